package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Fence;
import dev.fencing.lock.Lease;
import dev.fencing.lock.RedisFencedLocks;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** Flyway ran on the unwrapped data source; the health indicator reports the lock store and the fenced data sources. */
@SuppressWarnings("try") // the fence scope is held, not used, inside its block
class MigrationAndHealthTest extends StarterContextTest {

    @Autowired
    FencingHealthIndicator fencing;

    @Test
    void flywayMigratedTheFencedTableThroughTheUnwrappedDataSource() {
        assertThat(database.queryForObject(
                "SELECT success FROM flyway_schema_history WHERE version = '1'", Boolean.class)).isTrue();
        // the same DDL through the application's (fenced) data source is refused: why Flyway must not use it
        assertThatThrownBy(() -> jdbc.execute("ALTER TABLE orders ADD COLUMN note TEXT"))
                .isInstanceOf(UnfenceableStatementDataAccessException.class);
    }

    @Test
    void healthIsUpWithTheLockStoreTheFencedDataSourcesAndTheTablesWhoseColumnWasChecked() {
        try (Lease lease = locks.acquire("order:5", Duration.ofSeconds(10), Duration.ofSeconds(5));
             Fence.Scope scope = lease.enterFence()) {
            jdbc.update("INSERT INTO orders (id, status) VALUES (5, 'pending')");
        }
        var health = fencing.health();
        assertThat(health.getStatus().getCode()).isEqualTo("UP");
        assertThat(health.getDetails())
                .containsEntry("fencedDataSources", List.of("dataSource"))
                .containsEntry("fencedTables", List.of("orders"))
                .containsEntry("fenceColumnChecked", List.of("orders"))
                .hasEntrySatisfying("lockStore", store -> assertThat(store.toString()).startsWith("JdbcFencedLocks"));
    }

    @Test
    void healthIsDownWhenTheLockStoreCannotBeReached() {
        try (RedisFencedLocks unreachable = RedisFencedLocks.create("redis://127.0.0.1:1")) {
            var health = new FencingHealthIndicator(unreachable, null).health();
            assertThat(health.getStatus().getCode()).isEqualTo("DOWN");
            assertThat(health.getDetails()).containsKey("lockStoreError");
        }
    }
}
