package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Fence;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.springframework.core.retry.RetryException;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.dao.NonTransientDataAccessException;
import org.springframework.dao.TransientDataAccessException;

/**
 * Spring Framework 7's own retry support ({@code org.springframework.core.retry}, Spring Boot 4
 * only) leaves a stale write alone when it retries transient failures: running it again with the
 * same fence is refused again.
 */
@SuppressWarnings("try") // fence scopes are held, not used, inside their blocks
class CoreRetryTest extends StarterContextTest {

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
}
