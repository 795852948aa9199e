package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Fence;
import dev.fencing.lock.Lease;
import dev.fencing.spring.app.Order;
import dev.fencing.spring.app.PaymentService;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/** {@link FencedLock} around {@code @Transactional}: lock first, transaction inside, commit before release. */
@SuppressWarnings("try") // leases and fence scopes are held, not used, inside their blocks
class FencedLockTest extends StarterContextTest {

    @Autowired
    PaymentService payments;

    @Autowired
    TransactionTemplate transactions;

    @Autowired
    MeterRegistry meters;

    @Test
    void theTransactionBeginsUnderTheLockAndCommitsBeforeItIsReleased() {
        insertPendingOrder(1);
        List<String> seen = new ArrayList<>();
        OptionalLong[] fence = new OptionalLong[1];

        int changed = payments.pay(1, 250, () -> {
            fence[0] = Fence.current();
            seen.add("in transaction: " + TransactionSynchronizationManager.isActualTransactionActive());
            seen.add("lock free inside: " + lockIsFree("order:1"));
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    seen.add("lock free at commit: " + lockIsFree("order:1"));
                }
            });
        });

        assertThat(changed).isEqualTo(1);
        assertThat(seen).containsExactly("in transaction: true", "lock free inside: false", "lock free at commit: false");
        assertThat(lockIsFree("order:1")).isTrue();
        assertThat(Fence.current()).isEmpty();
        assertThat(fence[0]).isPresent();
        assertThat(database.queryForObject("SELECT last_fence FROM orders WHERE id = 1", Long.class))
                .isEqualTo(fence[0].getAsLong());
    }

    @Test
    void jpaWritesInsideTheMethodCarryTheFence() {
        insertPendingOrder(2);
        payments.payWithJpa(2, 300);
        assertThat(database.queryForMap("SELECT status, paid_amount, last_fence FROM orders WHERE id = 2"))
                .containsEntry("status", "paid").containsEntry("paid_amount", 300L)
                .hasEntrySatisfying("last_fence", f -> assertThat((Long) f).isPositive());
    }

    @Test
    void aLeaseLostBeforeCommitRollsTheTransactionBack() {
        insertPendingOrder(3);
        double lostBefore = meters.counter(FencingLockMetrics.LEASES_LOST).count();

        assertThatThrownBy(() -> payments.payTooSlowly(3, 500))
                .isInstanceOfSatisfying(FencedLockLostException.class, e -> assertThat(e.getResource()).isEqualTo("order:3"))
                .isInstanceOf(FencingDataAccessException.class);

        assertThat(database.queryForMap("SELECT status, paid_amount FROM orders WHERE id = 3"))
                .containsEntry("status", "pending").containsEntry("paid_amount", 0L);
        assertThat(meters.counter(FencingLockMetrics.LEASES_LOST).count()).isEqualTo(lostBefore + 1);
    }

    @Test
    void aMethodCalledInsideAnActiveTransactionIsRefused() {
        insertPendingOrder(4);
        assertThatThrownBy(() -> transactions.executeWithoutResult(tx -> payments.pay(4, 1, () -> { })))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already active");
        assertThat(database.queryForObject("SELECT status FROM orders WHERE id = 4", String.class)).isEqualTo("pending");
    }

    @Test
    void aLockHeldElsewhereIsReportedAsUnavailableAndTheMethodDoesNotRun() {
        try (Lease other = locks.acquire("order:5", Duration.ofSeconds(10), Duration.ZERO)) {
            assertThatThrownBy(() -> payments.lockedResource(new Order(5, "pending")))
                    .isInstanceOf(FencedLockUnavailableException.class);
        }
        assertThat(meters.timer(FencingLockMetrics.ACQUIRE, "outcome", "timed_out").count()).isPositive();
    }

    @Test
    void theResourceIsASpelTemplateOverArgumentsAndBeans() {
        assertThat(payments.lockedResource(new Order(6, "pending"))).isEqualTo("order:6");
        assertThat(meters.timer(FencingLockMetrics.ACQUIRE, "outcome", "acquired").count()).isPositive();
    }

    @Test
    void aResourceNamingAnUnknownVariableIsRefused() {
        assertThatThrownBy(() -> payments.misspelt(8))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("#orderNumber").hasMessageContaining("parameters: orderId");
    }

    private boolean lockIsFree(String resource) {
        return CompletableFuture.supplyAsync(() -> {
            Optional<Lease> lease = locks.tryAcquire(resource, Duration.ofSeconds(1));
            lease.ifPresent(Lease::close);
            return lease.isPresent();
        }).join();
    }
}
