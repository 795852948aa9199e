package dev.fencing.spring.app;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** An order; its table is fenced, and the driver owns {@code last_fence}, so the entity only reads it. */
@Entity
@Table(name = "orders")
public class Order {

    @Id
    private Long id;

    private String status;

    @Column(name = "paid_amount")
    private long paidAmount;

    @Column(name = "last_fence", insertable = false, updatable = false)
    private Long lastFence;

    protected Order() {
    }

    public Order(long id, String status) {
        this.id = id;
        this.status = status;
    }

    public Long getId() {
        return id;
    }

    public String getStatus() {
        return status;
    }

    public long getPaidAmount() {
        return paidAmount;
    }

    public Long getLastFence() {
        return lastFence;
    }

    public void pay(long amount) {
        this.status = "paid";
        this.paidAmount = amount;
    }
}
