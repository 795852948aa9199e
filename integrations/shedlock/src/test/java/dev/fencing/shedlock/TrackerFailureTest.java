package dev.fencing.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencingConfig;
import dev.fencing.StaleFenceException;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.lock.FencedLocks;
import dev.fencing.lock.JdbcFencedLocks;
import dev.fencing.lock.Lease;
import dev.fencing.lock.RedisFencedLocks;
import dev.fencing.testing.PauseInjector;
import dev.fencing.testing.TestDatabase;
import dev.fencing.testing.TestDatabase.Kind;
import dev.fencing.testing.TestRedis;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import javax.sql.DataSource;

import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.junit.jupiter.api.Test;

/**
 * ShedLock's best-known failure, from its tracker: job A on node 1 runs past {@code lockAtMostFor}
 * (stopped inside the job by an injected pause), node 2 takes the lock and runs the job, then A
 * resumes and writes. Each node has its own {@code LockingTaskExecutor}, lock client and thread.
 * Plain ShedLock ({@code JdbcTemplateLockProvider}) lets both writes land; {@link FencedLockProvider}
 * has A's write refused and B's row stays.
 */
@TestRedis
class TrackerFailureTest {

    private static final Duration LOCK_AT_MOST_FOR = Duration.ofMillis(400);
    private static final AtomicInteger TABLES = new AtomicInteger();

    @Test
    void plainShedLockLetsTheStaleJobWriteOnPostgres(@TestDatabase(Kind.POSTGRESQL) DataSource db) throws Exception {
        plainShedLockLetsTheStaleJobWrite(db, "TIMESTAMP(3)");
    }

    @Test
    void plainShedLockLetsTheStaleJobWriteOnMariaDb(@TestDatabase(Kind.MARIADB) DataSource db) throws Exception {
        plainShedLockLetsTheStaleJobWrite(db, "TIMESTAMP(3) NULL");
    }

    @Test
    void redisLocksRefuseTheStaleJobOnPostgres(@TestDatabase(Kind.POSTGRESQL) DataSource db, @TestRedis String redis)
            throws Exception {
        fencedLocksRefuseTheStaleJob(db, node -> RedisFencedLocks.create(redis));
    }

    @Test
    void redisLocksRefuseTheStaleJobOnMariaDb(@TestDatabase(Kind.MARIADB) DataSource db, @TestRedis String redis)
            throws Exception {
        fencedLocksRefuseTheStaleJob(db, node -> RedisFencedLocks.create(redis));
    }

    @Test
    void jdbcLocksRefuseTheStaleJobOnPostgres(@TestDatabase(Kind.POSTGRESQL) DataSource db) throws Exception {
        fencedLocksRefuseTheStaleJob(db, node -> jdbcLocks(db));
    }

    @Test
    void jdbcLocksRefuseTheStaleJobOnMariaDb(@TestDatabase(Kind.MARIADB) DataSource db) throws Exception {
        fencedLocksRefuseTheStaleJob(db, node -> jdbcLocks(db));
    }

    /** The control: both writes land, the stale one last. */
    private void plainShedLockLetsTheStaleJobWrite(DataSource db, String timestamp) throws Exception {
        String table = newTable(db);
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS shedlock (name VARCHAR(64) NOT NULL PRIMARY KEY, lock_until " + timestamp
                    + ", locked_at " + timestamp + ", locked_by VARCHAR(255) NOT NULL)");
        }
        LockProvider plain = new JdbcTemplateLockProvider(db);
        Throwable a = race(plain, plain, db, db, table);
        assertThat(a).isNull();
        assertThat(Nodes.row(db, table)).containsEntry("writer", "A").containsEntry("writes", 2);
    }

    private void fencedLocksRefuseTheStaleJob(DataSource db, Function<String, FencedLocks> lockClient) throws Exception {
        String table = newTable(db);
        DataSource fenced = new FencingDataSource(db, FencingConfig.builder().tables(table).build());
        try (FencedLocks node1 = lockClient.apply("node 1"); FencedLocks node2 = lockClient.apply("node 2")) {
            // Connected before the race: a first acquire that connects could outlast lockAtMostFor,
            // and the provider does not start a task whose lease already ran out.
            warmUp(node1);
            warmUp(node2);
            Throwable a = race(new FencedLockProvider(node1), new FencedLockProvider(node2), fenced, db, table);
            assertThat(a).isInstanceOf(StaleFenceException.class);
            StaleFenceException stale = (StaleFenceException) a;
            Map<String, Object> row = Nodes.row(db, table);
            assertThat(row).containsEntry("writer", "B").containsEntry("writes", 1);
            assertThat(((Number) row.get("last_fence")).longValue()).isGreaterThan(stale.attemptedFence());
            assertThat(stale.currentFence()).hasValue(((Number) row.get("last_fence")).longValue());
        }
    }

    /**
     * A takes the job's lock and stops before its write; node 2 fires the job until it runs (once
     * A's lockAtMostFor has passed) and writes; A resumes and writes.
     *
     * @return what A's run threw, or null when it wrote
     */
    private static Throwable race(LockProvider provider1, LockProvider provider2, DataSource data, DataSource raw,
                                  String table)
            throws Exception {
        String job = "report-" + UUID.randomUUID();
        try (PauseInjector pauses = new PauseInjector(); Nodes.Node node1 = new Nodes.Node(provider1);
             Nodes.Node node2 = new Nodes.Node(provider2)) {
            pauses.arm("A before its write");
            Future<Boolean> a = node1.fire(Nodes.job(job, LOCK_AT_MOST_FOR, Duration.ZERO), () -> {
                pauses.pauseAt("A before its write");
                Nodes.write(data, table, "A");
            });
            pauses.awaitPaused("A before its write", Duration.ofSeconds(10));

            node2.fireUntilItRuns(job, LOCK_AT_MOST_FOR, () -> Nodes.write(data, table, "B"));
            assertThat(Nodes.row(raw, table)).containsEntry("writer", "B");

            pauses.release("A before its write");
            try {
                assertThat(a.get()).as("A ran").isTrue();
                return null;
            } catch (ExecutionException e) {
                return e.getCause();
            }
        }
    }

    private static String newTable(DataSource db) throws SQLException {
        String table = "job_runs_" + TABLES.incrementAndGet();
        Nodes.createJobTable(db, table);
        return table;
    }

    private static void warmUp(FencedLocks locks) {
        locks.tryAcquire("warm-up-" + UUID.randomUUID(), Duration.ofSeconds(10)).ifPresent(Lease::close);
    }

    static FencedLocks jdbcLocks(DataSource db) {
        JdbcFencedLocks locks = JdbcFencedLocks.create(db);
        try {
            locks.createTable();
        } catch (SQLException e) {
            locks.close();
            throw new IllegalStateException(e);
        }
        return locks;
    }
}
