package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.jdbc.DatabaseGuard;
import dev.fencing.lock.FencedLocks;
import dev.fencing.lock.JdbcFencedLocks;
import java.sql.Connection;
import java.sql.Statement;
import java.util.UUID;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

/** With fencing.database-guard=required, health is DOWN until the guard is installed on every wrapped data source. */
class GuardHealthTest {

    @Test
    void healthReportsAMissingGuardAndIsUpOnceItIsInstalled() throws Exception {
        JdbcDataSource raw = new JdbcDataSource();
        raw.setURL("jdbc:h2:mem:guard_health_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1");
        try (Connection c = raw.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE guarded_orders (id BIGINT PRIMARY KEY, status VARCHAR(20), last_fence BIGINT NOT NULL DEFAULT 0)");
        }
        FencedDataSources dataSources = new FencedDataSources(new MockEnvironment()
                .withProperty("fencing.tables", "guarded_orders")
                .withProperty("fencing.database-guard", "required"));
        dataSources.postProcessAfterInitialization(raw, "dataSource");
        JdbcFencedLocks locks = JdbcFencedLocks.create(raw);
        locks.createTable();
        try (FencedLocks closing = locks) {
            var missing = new FencingHealthIndicator(locks, dataSources).health();
            assertThat(missing.getStatus().getCode()).isEqualTo("DOWN");
            assertThat(missing.getDetails()).containsKey("databaseGuard");
            assertThat(missing.getDetails().get("databaseGuard").toString()).containsIgnoringCase("guarded_orders");

            DatabaseGuard.install(raw, dataSources.config());
            var installed = new FencingHealthIndicator(locks, dataSources).health();
            assertThat(installed.getStatus().getCode()).isEqualTo("UP");
            assertThat(installed.getDetails()).containsEntry("databaseGuard", "installed and current");
        }
    }
}
