package dev.fencing.spring.app;

import dev.fencing.spring.FencedLock;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Payments under {@link FencedLock}, each in a transaction of its own. */
@Service
public class PaymentService {

    private final JdbcTemplate jdbc;
    private final OrderRepository orders;

    public PaymentService(JdbcTemplate jdbc, OrderRepository orders) {
        this.jdbc = jdbc;
        this.orders = orders;
    }

    /** Pays a pending order; {@code inside} runs first, inside the lock and the transaction. */
    @FencedLock(resource = "order:#{#orderId}", ttl = "10s", maxWait = "${test.lock-wait:2s}")
    @Transactional
    public int pay(long orderId, long amount, Runnable inside) {
        inside.run();
        return jdbc.update("UPDATE orders SET status = 'paid', paid_amount = ? WHERE id = ? AND status = 'pending'",
                amount, orderId);
    }

    /** The same through JPA. */
    @FencedLock(resource = "order:#{#orderId}", ttl = "10s")
    @Transactional
    public void payWithJpa(long orderId, long amount) {
        orders.findById(orderId).orElseThrow().pay(amount);
    }

    /** Writes, then outlives its 300 ms lease before the transaction commits. */
    @FencedLock(resource = "order:#{#orderId}", ttl = "300ms", maxWait = "0s")
    @Transactional
    public void payTooSlowly(long orderId, long amount) throws InterruptedException {
        jdbc.update("UPDATE orders SET status = 'paid', paid_amount = ? WHERE id = ?", amount, orderId);
        Thread.sleep(700);
    }

    /** A resource naming a variable that is not a parameter: refused, not evaluated to null. */
    @FencedLock(resource = "order:#{#orderNumber}")
    public void misspelt(long orderId) {
        throw new AssertionError("must not run");
    }

    /** A lock on a resource computed from an argument's property and a bean. */
    @FencedLock(resource = "#{@resourceNames.forOrder(#order.id)}", maxWait = "0s")
    public String lockedResource(Order order) {
        return dev.fencing.Fence.currentLock().orElse("none");
    }
}
