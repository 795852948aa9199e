package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Fence;
import dev.fencing.StaleFenceException;
import dev.fencing.spring.app.OrderRepository;


import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.dao.NonTransientDataAccessException;
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
                    // never retried by retry support for transient failures: the same write is refused again
                    .isInstanceOf(NonTransientDataAccessException.class)
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
}
