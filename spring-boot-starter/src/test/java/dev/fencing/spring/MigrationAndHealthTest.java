package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.lock.RedisFencedLocks;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/** Flyway ran on the unwrapped data source; the health indicator reports the lock store and the fenced data sources. */
class MigrationAndHealthTest extends StarterContextTest {

    @Autowired
    Map<String, HealthIndicator> healthIndicators;

    @Test
    void flywayMigratedTheFencedTableThroughTheUnwrappedDataSource() {
        assertThat(database.queryForObject(
                "SELECT success FROM flyway_schema_history WHERE version = '1'", Boolean.class)).isTrue();
        // the same DDL through the application's (fenced) data source is refused: why Flyway must not use it
        assertThatThrownBy(() -> jdbc.execute("ALTER TABLE orders ADD COLUMN note TEXT"))
                .isInstanceOf(UnfenceableStatementDataAccessException.class);
    }

    @Test
    void healthIsUpWithTheLockStoreAndTheFencedDataSources() {
        HealthIndicator fencing = healthIndicators.get("fencingHealthIndicator");
        var health = fencing.health();
        assertThat(health.getStatus()).isEqualTo(Status.UP);
        assertThat(health.getDetails())
                .containsEntry("fencedDataSources", List.of("dataSource"))
                .containsEntry("fencedTables", List.of("orders"))
                .hasEntrySatisfying("lockStore", store -> assertThat(store.toString()).startsWith("JdbcFencedLocks"));
    }

    @Test
    void healthIsDownWhenTheLockStoreCannotBeReached() {
        try (RedisFencedLocks unreachable = RedisFencedLocks.create("redis://127.0.0.1:1")) {
            var health = new FencingHealthIndicator(unreachable, null).health();
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(health.getDetails()).containsKey("lockStoreError");
        }
    }
}
