package dev.fencing.proof;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.FencingException;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Database faults under fenced writes, on PostgreSQL with HikariCP under
 * {@link FencingDataSource}: the backend killed mid-transaction and while the fenced write
 * waits, statement timeouts, and an exhausted pool. Each must end in a clear
 * {@link SQLException} that is not a {@link FencingException} (so pools evict broken
 * connections and retry logic sees the real cause), with no partial fenced write, and a pool
 * that works afterwards. Each scenario prints what it observed.
 */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@SuppressWarnings("try") // fence scopes are entered for their effect on the thread
class PostgresFaultsTest {

    private static final long ROW_FENCE = 10;
    private static final long CURRENT = 20;
    private static final FencingConfig CONFIG = FencingConfig.builder().tables("orders").build();
    private static final String ROWS = "SELECT id, status, amount, last_fence FROM orders ORDER BY id";

    private final DataSource scratch;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private List<java.util.Map<String, Object>> initialRows;

    PostgresFaultsTest(DataSource scratch) {
        this.scratch = scratch;
    }

    @BeforeAll
    void schema() throws SQLException {
        Db.execute(scratch, "CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(20), amount BIGINT, "
                + "last_fence BIGINT NOT NULL DEFAULT 0)");
    }

    @BeforeEach
    void rows() throws SQLException {
        Db.execute(scratch, "DELETE FROM orders",
                "INSERT INTO orders VALUES (1, 'pending', 100, " + ROW_FENCE + "), (2, 'pending', 200, " + ROW_FENCE + ")");
        initialRows = Db.rows(scratch, ROWS);
    }

    @AfterAll
    void stop() {
        executor.shutdownNow();
    }

    private static int update(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            return statement.executeUpdate(sql);
        }
    }

    private void terminate(long pid) throws SQLException {
        try (Connection admin = scratch.getConnection();
             PreparedStatement kill = admin.prepareStatement("SELECT pg_terminate_backend(?)")) {
            kill.setInt(1, (int) pid);
            try (var result = kill.executeQuery()) {
                result.next();
                assertTrue(result.getBoolean(1), "pg_terminate_backend(" + pid + ") found no backend");
            }
        }
    }

    private static void assertClearDatabaseError(SQLException e, String scenario, String... sqlStatePrefixes) {
        assertFalse(e instanceof FencingException, scenario + ": a database failure must not look like a fencing refusal: " + e);
        assertNotNull(e.getSQLState(), scenario + ": no SQLState on " + e);
        boolean known = false;
        for (String prefix : sqlStatePrefixes) {
            known |= e.getSQLState().startsWith(prefix);
        }
        assertTrue(known, scenario + ": SQLState " + e.getSQLState() + " is not one of " + List.of(sqlStatePrefixes) + ": " + e);
        System.out.println("FAULT " + scenario + ": " + Db.describe(e));
    }

    @Test
    void backendKilledMidTransactionCommitsNothingAndThePoolRecovers() throws Exception {
        HikariDataSource pool = Db.pool(scratch, "faults-terminate", 2, Duration.ofSeconds(10));
        try (FencingDataSource fenced = new FencingDataSource(pool, CONFIG)) {
            SQLException failure;
            try (Fence.Scope scope = Fence.enter(CURRENT); Connection connection = fenced.getConnection()) {
                connection.setAutoCommit(false);
                assertEquals(1, update(connection, "UPDATE orders SET status = 'first' WHERE id = 1"));
                long pid = Db.number(connection, "SELECT pg_backend_pid()");
                terminate(pid);
                failure = assertThrows(SQLException.class,
                        () -> update(connection, "UPDATE orders SET status = 'second' WHERE id = 2"));
                SQLException commit = assertThrows(SQLException.class, connection::commit);
                System.out.println("FAULT terminated backend, then commit: " + Db.describe(commit));
            }
            assertClearDatabaseError(failure, "fenced write after pg_terminate_backend (mid-transaction)", "08", "57P01");
            assertEquals(initialRows, Db.rows(scratch, ROWS), "the transaction's earlier fenced write must not be committed");

            try (Fence.Scope scope = Fence.enter(CURRENT); Connection connection = fenced.getConnection()) {
                assertEquals(1, update(connection, "UPDATE orders SET status = 'recovered' WHERE id = 1"));
            }
            assertEquals(List.of("recovered:" + CURRENT), Db.rows(scratch, "SELECT status || ':' || last_fence AS v FROM orders WHERE id = 1")
                    .stream().map(row -> row.get("v")).toList());
            System.out.println("FAULT terminated backend: pool recovered, total connections now "
                    + pool.getHikariPoolMXBean().getTotalConnections());
        }
    }

    @Test
    void backendKilledWhileItsFencedWriteWaitsForALock() throws Exception {
        HikariDataSource pool = Db.pool(scratch, "faults-terminate-waiting", 2, Duration.ofSeconds(10));
        try (FencingDataSource fenced = new FencingDataSource(pool, CONFIG); Connection blocker = scratch.getConnection()) {
            blocker.setAutoCommit(false);
            Db.rows(blocker, "SELECT id FROM orders WHERE id = 1 FOR UPDATE");
            CompletableFuture<Long> backend = new CompletableFuture<>();
            Future<SQLException> writer = executor.submit(() -> {
                try (Fence.Scope scope = Fence.enter(CURRENT); Connection connection = fenced.getConnection()) {
                    connection.setAutoCommit(false);
                    update(connection, "UPDATE orders SET status = 'early' WHERE id = 2");
                    backend.complete(Db.number(connection, "SELECT pg_backend_pid()"));
                    try {
                        update(connection, "UPDATE orders SET status = 'blocked' WHERE id = 1");
                        connection.commit();
                        return null;
                    } catch (SQLException e) {
                        return e;
                    }
                }
            });
            long pid = backend.get(10, TimeUnit.SECONDS);
            Await.until("the fenced write waits for the row lock", Duration.ofSeconds(10), () -> "Lock".equals(
                    Db.rows(scratch, "SELECT wait_event_type FROM pg_stat_activity WHERE pid = " + pid).stream()
                            .findFirst().map(row -> row.get("wait_event_type")).orElse(null)));
            terminate(pid);
            SQLException failure = writer.get(10, TimeUnit.SECONDS);
            blocker.rollback();
            assertNotNull(failure, "the waiting fenced write must fail when its backend is killed");
            assertClearDatabaseError(failure, "fenced write killed while waiting for a row lock", "08", "57P01");
            assertEquals(initialRows, Db.rows(scratch, ROWS), "neither fenced write of the killed transaction may be committed");
            try (Fence.Scope scope = Fence.enter(CURRENT); Connection connection = fenced.getConnection()) {
                assertEquals(1, update(connection, "UPDATE orders SET status = 'recovered' WHERE id = 1"));
            }
        }
    }

    @Test
    void queryTimeoutCancelsAFencedWriteWaitingForALock() throws Exception {
        HikariDataSource pool = Db.pool(scratch, "faults-query-timeout", 2, Duration.ofSeconds(10));
        try (FencingDataSource fenced = new FencingDataSource(pool, CONFIG); Connection blocker = scratch.getConnection()) {
            blocker.setAutoCommit(false);
            Db.rows(blocker, "SELECT id FROM orders WHERE id = 1 FOR UPDATE");
            SQLException plain;
            SQLException prepared;
            long started = System.nanoTime();
            try (Fence.Scope scope = Fence.enter(CURRENT); Connection connection = fenced.getConnection()) {
                try (Statement statement = connection.createStatement()) {
                    statement.setQueryTimeout(1);
                    plain = assertThrows(SQLException.class,
                            () -> statement.executeUpdate("UPDATE orders SET status = 'late' WHERE id = 1"));
                }
                try (PreparedStatement statement = connection.prepareStatement("UPDATE orders SET status = ? WHERE id = ?")) {
                    statement.setQueryTimeout(1);
                    statement.setString(1, "late");
                    statement.setLong(2, 1);
                    prepared = assertThrows(SQLException.class, statement::executeUpdate);
                }
            }
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            blocker.rollback();
            assertClearDatabaseError(plain, "Statement.setQueryTimeout(1) on a blocked fenced write", "57014");
            assertClearDatabaseError(prepared, "PreparedStatement.setQueryTimeout(1) on a blocked fenced write", "57014");
            System.out.println("FAULT query timeouts: both cancelled after " + took.toMillis() + " ms in all");
            assertEquals(initialRows, Db.rows(scratch, ROWS), "a cancelled fenced write must change nothing");
            try (Fence.Scope scope = Fence.enter(CURRENT); Connection connection = fenced.getConnection()) {
                assertEquals(1, update(connection, "UPDATE orders SET status = 'after' WHERE id = 1"));
            }
        }
    }

    @Test
    void statementTimeoutCancelsASlowFencedWrite() throws Exception {
        // Not pooled: SET statement_timeout would stay on a pooled connection.
        FencingDataSource fenced = new FencingDataSource(scratch, CONFIG);
        SQLException failure;
        try (Fence.Scope scope = Fence.enter(CURRENT); Connection connection = fenced.getConnection()) {
            Db.execute(connection, "SET statement_timeout = '300ms'");
            failure = assertThrows(SQLException.class, () -> update(connection,
                    "UPDATE orders SET amount = amount + (SELECT 1 FROM pg_sleep(5)) WHERE id IN (1, 2)"));
            Db.execute(connection, "RESET statement_timeout");
            assertEquals(1, update(connection, "UPDATE orders SET status = 'after' WHERE id = 2"));
        }
        assertClearDatabaseError(failure, "SET statement_timeout = '300ms' on a slow fenced write", "57014");
        List<java.util.Map<String, Object>> rows = Db.rows(scratch, ROWS);
        assertEquals(initialRows.get(0), rows.get(0), "the cancelled fenced write must change nothing");
        assertEquals(100L, rows.get(0).get("amount"));
        assertEquals(200L, rows.get(1).get("amount"), "the cancelled fenced write must change nothing");
    }

    @Test
    void anExhaustedPoolFailsClearlyAppliesNothingAndRecovers() throws Exception {
        // The first connection may take longer than 250 ms on a loaded machine: it gets a generous
        // timeout, and the short one applies only to the request that must find the pool exhausted.
        HikariDataSource pool = Db.pool(scratch, "faults-exhausted", 1, Duration.ofSeconds(30));
        try (FencingDataSource fenced = new FencingDataSource(pool, CONFIG)) {
            SQLException failure;
            long started;
            Duration waited;
            try (Connection held = fenced.getConnection()) {
                held.setAutoCommit(false);
                pool.getHikariConfigMXBean().setConnectionTimeout(250);
                try (Fence.Scope scope = Fence.enter(CURRENT)) {
                    started = System.nanoTime();
                    failure = assertThrows(SQLException.class, () -> {
                        try (Connection connection = fenced.getConnection()) {
                            update(connection, "UPDATE orders SET status = 'never' WHERE id = 1");
                        }
                    });
                    waited = Duration.ofNanos(System.nanoTime() - started);
                }
                assertTrue(Fence.current().isEmpty(), "the fence scope must be closed after the failure");
                held.rollback();
            }
            // HikariCP's timeout: SQLTransientConnectionException, SQLState null unless a connect attempt failed.
            assertInstanceOf(SQLTransientConnectionException.class, failure, "pool exhaustion: " + failure);
            assertFalse(failure instanceof FencingException);
            System.out.println("FAULT getConnection on an exhausted pool (maximumPoolSize=1, connectionTimeout=250ms, waited "
                    + waited.toMillis() + " ms): " + Db.describe(failure));
            assertEquals(initialRows, Db.rows(scratch, ROWS), "no fenced write may be applied");
            try (Fence.Scope scope = Fence.enter(CURRENT); Connection connection = fenced.getConnection()) {
                assertEquals(1, update(connection, "UPDATE orders SET status = 'after' WHERE id = 1"));
            }
            System.out.println("FAULT exhausted pool: usable again once the held connection was returned");
        }
    }
}
