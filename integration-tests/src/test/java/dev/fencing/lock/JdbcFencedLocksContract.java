package dev.fencing.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.it.UniqueNames;
import dev.fencing.testing.locks.FencedLocksContractTest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The shared lock contract, plus the table's own rules, against one database. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class JdbcFencedLocksContract extends FencedLocksContractTest {

    protected final String table = UniqueNames.next("fencing_locks_");
    protected HikariDataSource dataSource;
    /** The database without a pool: a new connection on every call. */
    protected DataSource unpooled;

    /** Opens a pool over {@code database} and creates the table; called once per class. */
    protected void setUp(DataSource database) throws Exception {
        this.unpooled = database;
        HikariConfig config = new HikariConfig();
        config.setDataSource(database);
        config.setMaximumPoolSize(12);
        config.setMinimumIdle(1);
        config.setPoolName("lock-test");
        dataSource = new HikariDataSource(config);
        JdbcFencedLocks.builder(dataSource).tableName(table).build().createTable();
    }

    @AfterAll
    void dropTable() throws Exception {
        if (dataSource != null) {
            try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("DROP TABLE IF EXISTS " + table);
            }
            dataSource.close();
        }
    }

    @Override
    protected FencedLocks newLocks(Options options) {
        // Another client's releases are only polled for: unless the test asks otherwise, poll
        // often, so the contention test is quick across the two clients.
        JdbcFencedLocks.Builder builder = JdbcFencedLocks.builder(dataSource).tableName(table)
                .pollInterval(options.pollInterval() != null ? options.pollInterval() : Duration.ofMillis(5));
        if (options.watchdog()) {
            builder.watchdog(true).renewalSchedule(options.renewalSchedule());
        }
        return builder.build();
    }

    /** Releases by other clients are noticed by polling: the lock table publishes nothing. */
    @Override
    protected boolean wakesWaitersAcrossClients() {
        return false;
    }

    @Override
    protected void expireAtStore(String resource) throws Exception {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement expire = connection.prepareStatement(
                        "UPDATE " + table + " SET expires_at = 0 WHERE lock_name = ?")) {
            expire.setString(1, resource);
            assertThat(expire.executeUpdate()).isEqualTo(1);
        }
    }

    @Override
    protected String storeName() {
        return "table " + table;
    }

    private long storedFence(String resource) throws Exception {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement read = connection.prepareStatement("SELECT fence, owner FROM " + table + " WHERE lock_name = ?")) {
            read.setString(1, resource);
            try (ResultSet row = read.executeQuery()) {
                assertThat(row.next()).isTrue();
                return row.getLong(1);
            }
        }
    }

    @Test
    void theRowKeepsTheLastFenceAndIsFreedOnRelease() throws Exception {
        JdbcFencedLocks locks = JdbcFencedLocks.builder(dataSource).tableName(table).build();
        String resource = newResource();
        Lease first = locks.tryAcquire(resource, Duration.ofSeconds(10)).orElseThrow();
        assertThat(first.fence()).isEqualTo(1);
        assertThat(storedFence(resource)).isEqualTo(1);
        first.close();
        Lease second = locks.tryAcquire(resource, Duration.ofSeconds(10)).orElseThrow();
        assertThat(second.fence()).isEqualTo(2);
        assertThat(storedFence(resource)).isEqualTo(2);
        second.close();
        assertThat(storedFence(resource)).as("the row stays, with its fence").isEqualTo(2);
    }

    @Test
    void expiryIsEpochMillisByTheDatabaseClock() throws Exception {
        JdbcFencedLocks locks = JdbcFencedLocks.builder(dataSource).tableName(table).build();
        String resource = newResource();
        long before = System.currentTimeMillis();
        try (Lease lease = locks.tryAcquire(resource, Duration.ofSeconds(60)).orElseThrow();
                Connection connection = dataSource.getConnection();
                PreparedStatement read = connection.prepareStatement(
                        "SELECT expires_at FROM " + table + " WHERE lock_name = ?")) {
            long after = System.currentTimeMillis();
            assertThat(lease.isHeld()).isTrue();
            read.setString(1, resource);
            try (ResultSet row = read.executeQuery()) {
                assertThat(row.next()).isTrue();
                // The database runs on this machine: its clock agrees with ours to well within a second.
                assertThat(row.getLong(1)).isBetween(before + 60_000 - 1_000, after + 60_000 + 1_000);
            }
        }
    }

    @Test
    void aWaiterOnTheSameInstanceWakesWhenALeaseIsReleasedNotByPolling() throws Exception {
        JdbcFencedLocks locks = JdbcFencedLocks.builder(dataSource).tableName(table)
                .pollInterval(Duration.ofSeconds(10)).build();
        String resource = newResource();
        Lease held = locks.tryAcquire(resource, Duration.ofSeconds(30)).orElseThrow();
        java.util.concurrent.ExecutorService waiterThread = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            java.util.concurrent.Future<Lease> waiter = waiterThread.submit(
                    () -> locks.acquire(resource, Duration.ofSeconds(10), Duration.ofSeconds(20)));
            Thread.sleep(200); // let it fail its first attempts and wait; the outcome does not depend on it
            long released = System.nanoTime();
            held.close();
            try (Lease next = waiter.get(5, java.util.concurrent.TimeUnit.SECONDS)) {
                assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(2));
                assertThat(next.fence()).isEqualTo(held.fence() + 1);
            }
        } finally {
            waiterThread.shutdownNow();
        }
    }

    @Test
    void createTableIsIdempotentAndNamesAreChecked() throws Exception {
        JdbcFencedLocks.builder(dataSource).tableName(table).build().createTable();
        assertThatThrownBy(() -> JdbcFencedLocks.builder(dataSource).tableName("locks; DROP TABLE x").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tableName");
        JdbcFencedLocks locks = JdbcFencedLocks.builder(dataSource).tableName(table).build();
        assertThatThrownBy(() -> locks.tryAcquire("x".repeat(256), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
        try (Lease longest = locks.tryAcquire("é".repeat(255), Duration.ofSeconds(1)).orElseThrow()) {
            assertThat(longest.fence()).isEqualTo(1);
        }
    }

    @Test
    void lockNamesCompareExactly() {
        JdbcFencedLocks locks = JdbcFencedLocks.builder(dataSource).tableName(table).build();
        String resource = newResource();
        try (Lease lower = locks.tryAcquire(resource.toLowerCase(), Duration.ofSeconds(10)).orElseThrow();
                Lease upper = locks.tryAcquire(resource.toUpperCase(), Duration.ofSeconds(10)).orElseThrow()) {
            assertThat(lower.fence()).isEqualTo(1);
            assertThat(upper.fence()).isEqualTo(1);
        }
    }

    /**
     * Another session holds a row lock on lock X's row (a long transaction, a console), so
     * X's renewals block. Each lease is renewed on its own with a time limit, so lease Y,
     * renewed by the same instance, stays held past several TTLs and no competitor gets it;
     * only X is lost. (With one renewal thread for all leases, X's stuck renewal starved Y's
     * and a competitor took Y.)
     */
    @Test
    void aRenewalStuckBehindARowLockLosesOnlyItsOwnLease() throws Exception {
        JdbcFencedLocks locks = JdbcFencedLocks.builder(dataSource).tableName(table).watchdog(true).build();
        JdbcFencedLocks competitor = JdbcFencedLocks.builder(dataSource).tableName(table).build();
        String x = newResource();
        String y = newResource();
        Duration ttl = Duration.ofMillis(1500);
        try (Lease leaseX = locks.tryAcquire(x, ttl).orElseThrow();
                Lease leaseY = locks.tryAcquire(y, ttl).orElseThrow();
                Connection blocker = dataSource.getConnection()) {
            blocker.setAutoCommit(false);
            try (PreparedStatement lockRow = blocker.prepareStatement(
                    "SELECT fence FROM " + table + " WHERE lock_name = ? FOR UPDATE")) {
                lockRow.setString(1, x);
                try (ResultSet row = lockRow.executeQuery()) {
                    assertThat(row.next()).isTrue();
                }
            }
            try {
                Thread.sleep(3 * ttl.toMillis());
                assertThat(leaseY.isHeld()).as("Y, renewed beside the stuck renewal of X").isTrue();
                assertThat(competitor.tryAcquire(y, Duration.ofSeconds(10))).as("Y is still taken").isEmpty();
                assertThat(leaseX.isHeld()).as("X, whose renewals could not complete").isFalse();
            } finally {
                blocker.rollback();
            }
        } finally {
            locks.close();
            competitor.close();
        }
    }

    /**
     * 240 acquires of one hot lock: 8 threads in two instances (as two processes would be),
     * 30 each, the default poll interval; through the pool, and through a data source that
     * opens a connection per call. Prints the time; speed is not asserted.
     */
    @Test
    void measureContendedAcquires() throws Exception {
        for (boolean pooled : new boolean[] {true, false}) {
            DataSource source = pooled ? dataSource : unpooled;
            String resource = newResource();
            JdbcFencedLocks first = JdbcFencedLocks.builder(source).tableName(table).build();
            JdbcFencedLocks second = JdbcFencedLocks.builder(source).tableName(table).build();
            java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(8);
            try {
                long started = System.nanoTime();
                java.util.List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    JdbcFencedLocks locks = t % 2 == 0 ? first : second;
                    done.add(threads.submit(() -> {
                        for (int i = 0; i < 30; i++) {
                            locks.acquire(resource, Duration.ofSeconds(10), Duration.ofSeconds(60)).close();
                        }
                        return null;
                    }));
                }
                for (java.util.concurrent.Future<?> future : done) {
                    future.get(120, java.util.concurrent.TimeUnit.SECONDS);
                }
                System.out.printf("contended acquires [%s, %s]: 240 in %d ms%n", label(),
                        pooled ? "pool of 12" : "a connection per call",
                        java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
            } finally {
                threads.shutdownNow();
                first.close();
                second.close();
            }
        }
    }
}
