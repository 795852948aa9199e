package dev.fencing.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.it.Await;
import dev.fencing.it.FreePorts;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link JdbcFencedLocks} on an in-memory H2 database. */
class H2JdbcFencedLocksTest extends JdbcFencedLocksContract {

    @BeforeAll
    void start() throws Exception {
        org.h2.jdbcx.JdbcDataSource database = new org.h2.jdbcx.JdbcDataSource();
        database.setURL("jdbc:h2:mem:" + table + ";DB_CLOSE_DELAY=-1");
        setUp(database);
    }

    /** Independent of the database, so run once, here. */
    @Test
    void anUnreachableDatabaseIsAClearFailure() {
        org.h2.jdbcx.JdbcDataSource nowhere = new org.h2.jdbcx.JdbcDataSource();
        nowhere.setURL("jdbc:h2:tcp://127.0.0.1:" + FreePorts.next() + "/nothing");
        JdbcFencedLocks locks = JdbcFencedLocks.create(nowhere);
        assertThatThrownBy(() -> locks.tryAcquire("order:1", Duration.ofSeconds(1)))
                .isInstanceOfSatisfying(LockAcquisitionException.class,
                        e -> assertThat(e.reason()).isEqualTo(LockAcquisitionException.Reason.STORE_FAILED))
                .hasMessageContaining("order:1")
                .hasMessageContaining("table fencing_locks");
    }

    @Test
    void aPoolWithoutAutoCommitStillCommitsEachStatement() throws Exception {
        com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
        config.setJdbcUrl("jdbc:h2:mem:" + table + ";DB_CLOSE_DELAY=-1");
        config.setAutoCommit(false);
        config.setMaximumPoolSize(2);
        try (com.zaxxer.hikari.HikariDataSource manualCommit = new com.zaxxer.hikari.HikariDataSource(config)) {
            JdbcFencedLocks locks = JdbcFencedLocks.builder(manualCommit).tableName(table).build();
            String resource = newResource();
            Lease lease = locks.tryAcquire(resource, Duration.ofSeconds(10)).orElseThrow();
            // Seen as held through the other pool: the claim was committed, not rolled back on return.
            JdbcFencedLocks others = JdbcFencedLocks.builder(dataSource).tableName(table).build();
            assertThat(others.tryAcquire(resource, Duration.ofSeconds(10))).isEmpty();
            lease.close();
            try (Lease next = others.tryAcquire(resource, Duration.ofSeconds(10)).orElseThrow()) {
                assertThat(next.fence()).isEqualTo(lease.fence() + 1);
            }
        }
    }

    /** Independent of the database, so run once, here. */
    @Test
    void keptConnectionsAreReusedAndGoBackToTheDataSourceWhenIdle() throws Exception {
        java.util.concurrent.atomic.AtomicInteger opened = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger open = new java.util.concurrent.atomic.AtomicInteger();
        javax.sql.DataSource counting = CountingDataSource.over(dataSource, opened, open);
        JdbcFencedLocks locks = JdbcFencedLocks.builder(counting).tableName(table)
                .idleTimeout(Duration.ofMillis(300)).build();
        String resource = newResource();
        for (int i = 0; i < 20; i++) {
            locks.tryAcquire(resource, Duration.ofSeconds(10)).orElseThrow().close();
        }
        assertThat(opened).as("one connection, kept between 40 operations").hasValue(1);
        assertThat(open).as("kept open while in use").hasValue(1);
        Await.until("the idle connection goes back", Duration.ofSeconds(5), () -> open.get() == 0);
        // Never closed on purpose: the instance holds no connection once idle.
        locks.tryAcquire(resource, Duration.ofSeconds(10)).orElseThrow().close();
        assertThat(opened).hasValue(2);
    }

    @Override
    protected String label() {
        return "JDBC H2 in-memory";
    }
}
