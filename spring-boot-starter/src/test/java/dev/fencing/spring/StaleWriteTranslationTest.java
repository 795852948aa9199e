package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Fence;
import dev.fencing.StaleFenceException;
import dev.fencing.lock.Lease;
import dev.fencing.spring.app.OrderRepository;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.retry.RetryException;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.dao.NonTransientDataAccessException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The primer's timeline through Spring: A's lease (fence a) expires, B takes the lock (fence b)
 * and pays; A's late write is rejected, and Spring reports it as a
 * {@link StaleFenceDataAccessException} carrying both fences, through JdbcTemplate and JPA.
 */
@SuppressWarnings("try") // leases and fence scopes are held, not used, inside their blocks
class StaleWriteTranslationTest extends StarterContextTest {

    @Autowired
    OrderRepository orders;

    @Autowired
    TransactionTemplate transactions;

    @Test
    void aStaleWriteThroughJdbcTemplateIsTranslatedWithBothFences() throws Exception {
        insertPendingOrder(42);
        long stale = expiredLease("order:42");
        long current = payAsNewHolder(42, 100);

        try (Fence.Scope a = Fence.enter("order:42", stale)) {
            assertThatThrownBy(() -> jdbc.update("UPDATE orders SET status = 'paid', paid_amount = 999 WHERE id = 42"))
                    .isInstanceOfSatisfying(StaleFenceDataAccessException.class, e -> {
                        assertThat(e.getAttemptedFence()).isEqualTo(stale);
                        assertThat(e.getCurrentFence()).hasValue(current);
                        assertThat(e.getTable()).isEqualTo("orders");
                        assertThat(e.getMessage()).contains("UPDATE orders");
                    })
                    .hasCauseInstanceOf(StaleFenceException.class);
        }
        assertThat(database.queryForObject("SELECT paid_amount FROM orders WHERE id = 42", Long.class)).isEqualTo(100);
    }

    @Test
    void aStaleWriteThroughSpringDataJpaIsTranslatedWithBothFences() throws Exception {
        insertPendingOrder(43);
        long stale = expiredLease("order:43");
        long current = payAsNewHolder(43, 100);

        try (Fence.Scope a = Fence.enter("order:43", stale)) {
            assertThatThrownBy(() -> transactions.executeWithoutResult(tx -> orders.findById(43L).orElseThrow().pay(999)))
                    .isInstanceOfSatisfying(StaleFenceDataAccessException.class, e -> {
                        assertThat(e.getAttemptedFence()).isEqualTo(stale);
                        assertThat(e.getCurrentFence()).hasValue(current);
                        assertThat(e.getTable()).isEqualTo("orders");
                    });
        }
        assertThat(database.queryForObject("SELECT paid_amount FROM orders WHERE id = 43", Long.class)).isEqualTo(100);
    }

    @Test
    void aStaleWriteIsNeverRetriedByRetrySupportForTransientFailures() throws Exception {
        insertPendingOrder(44);
        long stale = expiredLease("order:44");
        payAsNewHolder(44, 100);
        RetryTemplate retry = new RetryTemplate(RetryPolicy.builder()
                .includes(TransientDataAccessException.class).maxRetries(3).delay(Duration.ofMillis(1)).build());
        AtomicInteger attempts = new AtomicInteger();

        try (Fence.Scope a = Fence.enter("order:44", stale)) {
            assertThatThrownBy(() -> retry.execute(() -> {
                attempts.incrementAndGet();
                return jdbc.update("UPDATE orders SET paid_amount = 999 WHERE id = 44");
            })).isInstanceOf(RetryException.class)
                    .cause().isInstanceOf(StaleFenceDataAccessException.class)
                    .isInstanceOf(NonTransientDataAccessException.class);
        }
        assertThat(attempts).hasValue(1);
    }

    /** A takes the lock with a short TTL and is "paused" past it: its fence is now stale. */
    private long expiredLease(String resource) throws InterruptedException {
        Lease a = locks.acquire(resource, Duration.ofMillis(100), Duration.ofSeconds(5));
        while (a.isHeld()) {
            Thread.sleep(20);
        }
        return a.fence();
    }

    /** B takes the lock and pays: the row now holds B's fence. */
    private long payAsNewHolder(long orderId, long amount) {
        try (Lease b = locks.acquire("order:" + orderId, Duration.ofSeconds(10), Duration.ofSeconds(5));
             Fence.Scope scope = b.enterFence()) {
            assertThat(jdbc.update("UPDATE orders SET status = 'paid', paid_amount = ? WHERE id = ?", amount, orderId))
                    .isEqualTo(1);
            return b.fence();
        }
    }
}
