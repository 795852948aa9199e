package dev.fencing.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.testing.PauseInjector;
import dev.fencing.testing.ScratchArea;
import dev.fencing.testing.TestDatabase;

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
 * Row mode's documented limit, shown ({@link LostLeaseScenario}): the stale holder's cancel of an
 * order its successor has read but not written yet lands, since the row holds no newer fence; the
 * successor, which has charged the customer, then finds the order cancelled. Epoch mode refuses
 * the same write ({@link EpochModeLostLeaseTest}).
 */
@SpringBootTest(properties = {"orders.lock.ttl=1s", "orders.lock.wait=15s"})
class RowModeLostLeaseTest {

    static final ScratchArea SCHEMA = ScratchArea.create(TestDatabase.Kind.POSTGRESQL);
    static final PauseInjector PAUSES = new PauseInjector();

    @Autowired
    PaymentService payments;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", SCHEMA::url);
    }

    @Test
    void theStaleCancelLandsOnTheRowTheSuccessorHasNotWritten() throws Exception {
        try (LostLeaseScenario scenario = new LostLeaseScenario(payments, new JdbcTemplate(SCHEMA.dataSource()), PAUSES)) {
            scenario.untilTheStaleHolderWakes();
            long placedWith = ((Number) scenario.order().get("last_fence")).longValue();

            assertThat(scenario.staleHolderWrites().get()).as("the stale holder's cancel").isTrue();
            assertThat(scenario.order()).containsEntry("status", "cancelled");
            long staleFence = ((Number) scenario.order().get("last_fence")).longValue();
            assertThat(staleFence).isGreaterThan(placedWith);

            assertThat(scenario.successorWrites().get()).isEqualTo(PaymentService.Outcome.ALREADY_PAID);
            assertThat(scenario.order()).containsEntry("status", "cancelled").containsEntry("paid_amount", 0L)
                    .containsEntry("last_fence", staleFence);
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
