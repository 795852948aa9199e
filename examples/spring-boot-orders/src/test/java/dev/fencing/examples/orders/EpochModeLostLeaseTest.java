package dev.fencing.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.fencing.StaleFenceException;
import dev.fencing.spring.StaleFenceDataAccessException;
import dev.fencing.testing.PauseInjector;
import dev.fencing.testing.ScratchArea;
import dev.fencing.testing.TestDatabase;

import java.util.concurrent.ExecutionException;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The same timeline as {@link RowModeLostLeaseTest} with {@code fencing.mode=epoch} (the guard
 * table from the example's Flyway migration {@code V2__fencing_epochs.sql}): the successor's read
 * claimed the lock's epoch row, so the stale holder's cancel is refused although the row holds no
 * newer fence, and the successor pays the order.
 */
@SpringBootTest(properties = {"orders.lock.ttl=1s", "orders.lock.wait=15s", "fencing.mode=epoch"})
class EpochModeLostLeaseTest {

    static final ScratchArea SCHEMA = ScratchArea.create(TestDatabase.Kind.POSTGRESQL);
    static final PauseInjector PAUSES = new PauseInjector();

    @Autowired
    PaymentService payments;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", SCHEMA::url);
    }

    @Test
    void theStaleCancelIsRefusedAndTheSuccessorPays() throws Exception {
        JdbcTemplate database = new JdbcTemplate(SCHEMA.dataSource());
        try (LostLeaseScenario scenario = new LostLeaseScenario(payments, database, PAUSES)) {
            scenario.untilTheStaleHolderWakes();

            ExecutionException refused = assertThrows(ExecutionException.class, () -> scenario.staleHolderWrites().get());
            assertThat(refused.getCause()).isInstanceOfSatisfying(StaleFenceDataAccessException.class,
                    stale -> assertThat(stale).hasRootCauseInstanceOf(StaleFenceException.class));
            assertThat(scenario.order()).containsEntry("status", "pending");

            assertThat(scenario.successorWrites().get()).isEqualTo(PaymentService.Outcome.PAID);
            assertThat(scenario.order()).containsEntry("status", "paid").containsEntry("paid_amount", 250L);
            assertThat(database.queryForObject("SELECT fence FROM fencing_epochs WHERE lock_name = 'order:42'", Long.class))
                    .isPositive();
        }
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class StallingGateway {

        @Bean
        @Primary
        PaymentGateway stallingGateway() {
            return LostLeaseScenario.stallingGateway(PAUSES);
        }

        @Bean
        DisposableBean dropSchemaOnClose() {
            return SCHEMA::close;
        }
    }
}
