package dev.fencing.examples.orders;

import dev.fencing.spring.FencedLock;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Pays an order once, under the order's fenced lock. */
@Service
public class PaymentService {

    /** What a call to {@link #pay} did. */
    public enum Outcome { PAID, ALREADY_PAID }

    private final OrderRepository orders;
    private final PaymentGateway gateway;
    private final JdbcClient jdbc;

    public PaymentService(OrderRepository orders, PaymentGateway gateway, JdbcClient jdbc) {
        this.orders = orders;
        this.gateway = gateway;
        this.jdbc = jdbc;
    }

    /**
     * Charges and marks the order paid. The lock is taken before the transaction begins and
     * released after it commits; the UPDATE carries the lock's fence, so if this worker's lease
     * expired while it was charging and another worker has paid the order since, the database
     * rejects the write and this throws {@link dev.fencing.spring.StaleFenceDataAccessException}.
     */
    @FencedLock(resource = "order:#{#orderId}", ttl = "${orders.lock.ttl:30s}", maxWait = "${orders.lock.wait:10s}")
    @Transactional
    public Outcome pay(long orderId, long amount) {
        Order order = orders.findById(orderId)
                .orElseThrow(() -> new IllegalArgumentException("no order " + orderId));
        if (!order.isPending()) {
            return Outcome.ALREADY_PAID;
        }
        gateway.charge(orderId, amount);
        // The primer's statement. The driver adds the fence check to it; when it changes no row,
        // the driver reads the order by its key: a newer fence there means this worker's lock
        // has passed on (StaleFenceDataAccessException), anything else that the order was paid.
        int changed = jdbc.sql("UPDATE orders SET status = 'paid', paid_amount = :amount WHERE id = :id AND status = 'pending'")
                .param("amount", amount)
                .param("id", orderId)
                .update();
        return changed == 1 ? Outcome.PAID : Outcome.ALREADY_PAID;
    }

    /** Places a new order. Inserting into a fenced table needs a fence too: the order's lock. */
    @FencedLock(resource = "order:#{#orderId}")
    @Transactional
    public Order place(long orderId) {
        return orders.save(new Order(orderId));
    }
}
