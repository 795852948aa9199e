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

    /**
     * Cancels a pending order. No {@code @Transactional}: each statement commits on its own, so no
     * before-commit check of the lease runs, as in much code that writes outside transactions. If
     * this worker's lease expires while the gateway call stalls, and another worker takes the lock
     * and reads the order (about to pay it) but has not written it yet, the UPDATE below meets a
     * row that holds no newer fence: in row mode (the default) it lands, and the other worker's
     * payment then finds the order cancelled after charging. In epoch mode
     * ({@code fencing.mode=epoch}) the other worker's first statement claimed the lock's guard
     * row, and this write is refused ({@link dev.fencing.spring.StaleFenceDataAccessException}).
     * See {@code docs/spring.md}, "A lost lease and rows the successor has not written".
     */
    @FencedLock(resource = "order:#{#orderId}", ttl = "${orders.lock.ttl:30s}", maxWait = "${orders.lock.wait:10s}")
    public boolean cancel(long orderId) {
        String status = jdbc.sql("SELECT status FROM orders WHERE id = :id").param("id", orderId)
                .query(String.class).single();
        if (!status.equals("pending")) {
            return false;
        }
        gateway.releaseHold(orderId);
        return jdbc.sql("UPDATE orders SET status = 'cancelled' WHERE id = :id AND status = 'pending'")
                .param("id", orderId)
                .update() == 1;
    }

    /** Places a new order. Inserting into a fenced table needs a fence too: the order's lock. */
    @FencedLock(resource = "order:#{#orderId}")
    @Transactional
    public Order place(long orderId) {
        return orders.save(new Order(orderId));
    }
}
