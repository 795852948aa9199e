package dev.fencing.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.fencing.StaleFenceException;
import dev.fencing.spring.StaleFenceDataAccessException;
import dev.fencing.testing.PauseInjector;
import dev.fencing.testing.ScratchArea;
import dev.fencing.testing.TestDatabase;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The primer's timeline, end to end: worker A takes the lock on order 42 and is paused past its
 * TTL while charging; the lock expires; worker B takes it with a newer fence and pays the order;
 * A wakes and writes: the database rejects the stale payment, and A's caller gets a
 * {@link DataAccessException} that says so, with both fences. B's payment survives.
 */
@SpringBootTest(properties = {"orders.lock.ttl=1s", "orders.lock.wait=10s"})
class PrimerTimelineTest {

    static final ScratchArea SCHEMA = ScratchArea.create(TestDatabase.Kind.POSTGRESQL);
    static final PauseInjector PAUSES = new PauseInjector();

    @Autowired
    PaymentService payments;

    final JdbcTemplate database = new JdbcTemplate(SCHEMA.dataSource());

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", SCHEMA::url);
    }

    @Test
    void theStalePaymentIsRejectedAndTheNewHoldersSurvives() throws Exception {
        payments.place(42);
        ExecutorService workers = Executors.newFixedThreadPool(2);
        try {
            PAUSES.arm("charge");
            Future<PaymentService.Outcome> workerA = workers.submit(() -> payments.pay(42, 100));
            PAUSES.awaitPaused("charge", Duration.ofSeconds(10));

            // B waits for A's lock to expire, takes it with a newer fence, and pays
            PaymentService.Outcome b = workers.submit(() -> payments.pay(42, 250)).get();
            assertThat(b).isEqualTo(PaymentService.Outcome.PAID);
            long fenceB = database.queryForObject("SELECT last_fence FROM orders WHERE id = 42", Long.class);

            PAUSES.release("charge");
            ExecutionException a = assertThrows(ExecutionException.class, workerA::get);

            assertThat(a.getCause()).isInstanceOfSatisfying(StaleFenceDataAccessException.class, stale -> {
                assertThat(stale.getAttemptedFence()).isLessThan(fenceB);
                assertThat(stale.getCurrentFence()).hasValue(fenceB);
                assertThat(stale.getTable()).isEqualTo("orders");
                assertThat(stale).hasCauseInstanceOf(StaleFenceException.class);
            });
            Map<String, Object> order = database.queryForMap("SELECT status, paid_amount, last_fence FROM orders WHERE id = 42");
            assertThat(order).containsEntry("status", "paid").containsEntry("paid_amount", 250L)
                    .containsEntry("last_fence", fenceB);
        } finally {
            PAUSES.close();
            workers.shutdownNow();
        }
    }

    /** The gateway of the application, with a pause point where a real worker could stall. */
    @TestConfiguration(proxyBeanMethods = false)
    static class PausingGateway {

        @Bean
        @Primary
        PaymentGateway pausingGateway() {
            return (orderId, amount) -> PAUSES.pauseAt("charge");
        }

        @Bean
        DisposableBean dropSchemaOnClose() {
            return SCHEMA::close;
        }
    }
}
