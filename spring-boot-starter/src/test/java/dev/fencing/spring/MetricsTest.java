package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Fence;
import dev.fencing.lock.Lease;

import java.time.Duration;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** The driver's statement events and the locks reach Micrometer. */
@SuppressWarnings("try") // leases and fence scopes are held, not used, inside their blocks
class MetricsTest extends StarterContextTest {

    @Autowired
    MeterRegistry meters;

    @Test
    void statementsAreCountedByOutcomeAndTable() {
        insertPendingOrder(70);
        double fenced = count(meters.find(FencingStatementMetrics.STATEMENTS).tags("outcome", "fenced", "table", "orders"));
        double passed = count(meters.find(FencingStatementMetrics.STATEMENTS).tags("outcome", "passed"));
        double missing = count(meters.find(FencingStatementMetrics.STATEMENTS)
                .tags("outcome", "refused", "kind", "missing_fence", "table", "orders"));
        double rejected = count(meters.find(FencingStatementMetrics.REJECTED).tags("kind", "row_fence", "table", "orders"));

        jdbc.queryForObject("SELECT count(*) FROM orders WHERE id = 70", Integer.class);
        jdbc.queryForObject("SELECT count(*) FROM orders WHERE id = 70", Integer.class); // planned from the cache
        assertThatThrownBy(() -> jdbc.update("UPDATE orders SET paid_amount = 1 WHERE id = 70"))
                .isInstanceOf(MissingFenceDataAccessException.class);
        long stale;
        try (Lease a = locks.acquire("order:70", Duration.ofSeconds(10), Duration.ZERO)) {
            stale = a.fence();
        }
        try (Lease b = locks.acquire("order:70", Duration.ofSeconds(10), Duration.ZERO); Fence.Scope scope = b.enterFence()) {
            jdbc.update("UPDATE orders SET paid_amount = 2 WHERE id = 70");
        }
        try (Fence.Scope scope = Fence.enter("order:70", stale)) {
            assertThatThrownBy(() -> jdbc.update("UPDATE orders SET paid_amount = 3 WHERE id = 70"))
                    .isInstanceOf(StaleFenceDataAccessException.class);
        }

        assertThat(count(meters.find(FencingStatementMetrics.STATEMENTS).tags("outcome", "fenced", "table", "orders")))
                .isEqualTo(fenced + 2);
        assertThat(count(meters.find(FencingStatementMetrics.STATEMENTS).tags("outcome", "passed"))).isGreaterThan(passed);
        assertThat(count(meters.find(FencingStatementMetrics.STATEMENTS)
                .tags("outcome", "refused", "kind", "missing_fence", "table", "orders"))).isEqualTo(missing + 1);
        assertThat(count(meters.find(FencingStatementMetrics.REJECTED).tags("kind", "row_fence", "table", "orders")))
                .isEqualTo(rejected + 1);
        assertThat(meters.get(FencingStatementMetrics.PLANNING).tag("cache", "hit").timer().count()).isPositive();
        assertThat(meters.get(FencingStatementMetrics.PLANNING).tag("cache", "miss").timer().count()).isPositive();
        assertThat(meters.get(FencingStatementMetrics.CACHE_SIZE).gauge().value()).isPositive();
    }

    @Test
    void theHikariPoolUnderTheWrappedDataSourceIsMetered() {
        assertThat(meters.find("hikaricp.connections").gauge())
                .as("Boot cannot unwrap a FencingDataSource; the starter binds the pool itself").isNotNull();
    }

    private static double count(Search search) {
        return search.counter() == null ? 0 : search.counter().count();
    }
}
