package dev.fencing.examples.orders;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * An order. Its table is fenced: every write carries the fence of the lock it was made under, and
 * the driver keeps the newest one in {@code last_fence}, which the entity only reads.
 */
@Entity
@Table(name = "orders")
public class Order {

    @Id
    private Long id;

    private String status;

    @Column(name = "paid_amount")
    private long paidAmount;

    @Column(name = "last_fence", insertable = false, updatable = false)
    private long lastFence;

    protected Order() {
    }

    public Order(long id) {
        this.id = id;
        this.status = "pending";
    }

    public long getId() {
        return id;
    }

    public String getStatus() {
        return status;
    }

    public boolean isPending() {
        return "pending".equals(status);
    }

    public long getPaidAmount() {
        return paidAmount;
    }

    /** The fence of the newest write to this order. */
    public long getLastFence() {
        return lastFence;
    }
}
