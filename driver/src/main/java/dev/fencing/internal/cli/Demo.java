package dev.fencing.internal.cli;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.StaleFenceException;
import dev.fencing.jdbc.DatabaseGuard;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.lock.FencedLocks;
import dev.fencing.lock.JdbcFencedLocks;
import dev.fencing.lock.Lease;
import dev.fencing.lock.RedisFencedLocks;

import javax.sql.DataSource;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The primer's timeline with real parts: worker A takes the lock for order 42 and stops (a
 * stand-in for a GC pause) past its TTL; worker B takes the lock and pays; A wakes and pays
 * too. Run once through {@link FencingDataSource}, where A's write is rejected, once through
 * the plain data source, where the order is paid twice, and once with the database guard
 * installed, where B pays through the driver and A's stale payment comes from a plain
 * connection, like a console: the database itself refuses it. The third run has a table of its
 * own, so that its triggers never meet the first two runs.
 */
final class Demo {

    static final String ORDERS = "fencing_demo_orders";
    static final String GUARDED_ORDERS = "fencing_demo_guarded_orders";
    static final String LOCKS = "fencing_demo_locks";
    private static final String RESOURCE = "order:42";
    private static final Duration TTL = Duration.ofMillis(1000);

    /** What one run ended with. */
    record Outcome(boolean staleWriteRejected, int charges, String paidBy, long rowFence) {
    }

    /** The three runs. */
    record Result(Outcome fenced, Outcome unfenced, Outcome guarded) {
        boolean asExpected() {
            return fenced.staleWriteRejected() && fenced.charges() == 1 && "B".equals(fenced.paidBy())
                    && !unfenced.staleWriteRejected() && unfenced.charges() == 2
                    && guarded.staleWriteRejected() && guarded.charges() == 1 && "B".equals(guarded.paidBy());
        }
    }

    private final DataSource raw;
    private final String redisUri;
    private final PrintStream out;
    private long started;

    Demo(DataSource raw, String redisUri, PrintStream out) {
        this.raw = raw;
        this.redisUri = redisUri;
        this.out = out;
    }

    Result run() throws Exception {
        createTables();
        try {
            out.println("== 1. Through FencingDataSource (fencing.tables=" + ORDERS + ")");
            FencingDataSource fenced = new FencingDataSource(raw, FencingConfig.builder().tables(ORDERS).build());
            Outcome withFencing = timeline(fenced, fenced, ORDERS);
            out.println();
            out.println("== 2. The same timeline through the plain DataSource (no fencing)");
            Outcome withoutFencing = timeline(raw, raw, ORDERS);
            out.println();
            out.println("== 3. The database guard (fencing.database-guard=required): B pays through the driver,"
                    + " A's stale payment comes from a plain connection (a console)");
            FencingConfig guardConfig = FencingConfig.builder().tables(GUARDED_ORDERS)
                    .databaseGuard(FencingConfig.Guard.REQUIRED).build();
            DatabaseGuard.install(raw, guardConfig);
            Outcome withGuard;
            try {
                withGuard = timeline(raw, new FencingDataSource(raw, guardConfig), GUARDED_ORDERS);
            } finally {
                DatabaseGuard.remove(raw, guardConfig);
            }
            out.println();
            Result result = new Result(withFencing, withoutFencing, withGuard);
            out.println(result.asExpected()
                    ? "Result: with fencing the stale payment was rejected and B's data survived; without it the order was"
                            + " paid twice; with the guard the database refused the stale payment that bypassed the driver."
                    : "Result: UNEXPECTED outcome " + result);
            return result;
        } finally {
            dropTables();
        }
    }

    /** One timeline: A writes through {@code forA}, B through {@code forB}, both to {@code table}. */
    private Outcome timeline(DataSource forA, DataSource forB, String table) throws Exception {
        resetOrder(table);
        started = System.nanoTime();
        CountDownLatch aHoldsLockAndRead = new CountDownLatch(1);
        CountDownLatch bPaid = new CountDownLatch(1);
        AtomicReference<Boolean> rejected = new AtomicReference<>(false);
        AtomicReference<Exception> failure = new AtomicReference<>();
        try (FencedLocks locks = openLocks(raw, redisUri)) {
            // connect before the clock starts: a first, lazy connection must not eat A's TTL
            locks.tryAcquire(RESOURCE + ":warm-up", TTL).ifPresent(Lease::close);
            started = System.nanoTime();
            Thread workerA = new Thread(() -> {
                try {
                    holderA(locks, forA, table, aHoldsLockAndRead, bPaid, rejected);
                } catch (Exception e) {
                    failure.set(e);
                }
            }, "worker-A");
            workerA.start();
            aHoldsLockAndRead.await(10, TimeUnit.SECONDS);
            try {
                holderB(locks, forB, table, failure);
            } finally {
                bPaid.countDown();
            }
            workerA.join(TimeUnit.SECONDS.toMillis(15));
        }
        if (failure.get() != null) {
            throw failure.get();
        }
        Outcome outcome = readOutcome(rejected.get(), table);
        out.printf(Locale.ROOT, "final row: order 42 status=paid paid_by=%s charges=%d last_fence=%d%s%n",
                outcome.paidBy(), outcome.charges(), outcome.rowFence(),
                outcome.charges() > 1 ? "   <-- DOUBLE PAYMENT" : "");
        return outcome;
    }

    /** A takes the lock, reads, pauses until B has paid (its lease expired meanwhile), then charges. */
    private void holderA(FencedLocks locks, DataSource forA, String table, CountDownLatch aHoldsLockAndRead,
                         CountDownLatch bPaid, AtomicReference<Boolean> rejected) throws Exception {
        try (Lease lease = locks.acquire(RESOURCE, TTL, Duration.ofSeconds(5))) {
            log("A", lease.fence(), "acquired the lock on " + RESOURCE + " (ttl " + TTL.toMillis() + " ms)");
            try (Fence.Scope scope = lease.enterFence()) {
                log("A", lease.fence(), "read order 42: " + readStatus(forA, table) + "; about to charge the card");
                log("A", lease.fence(), "PAUSED (stop-the-world GC) ...");
                aHoldsLockAndRead.countDown();
                bPaid.await(10, TimeUnit.SECONDS);
                log("A", lease.fence(), "resumed after " + elapsedMillis() + " ms, lock held: " + lease.isHeld()
                        + " (A does not look); charging");
                rejected.set(!chargeAsStaleHolder(lease, forA, table));
            }
        }
    }

    /** A's late charge: true when it was applied, false when the driver or the database refused it. */
    private boolean chargeAsStaleHolder(Lease lease, DataSource forA, String table) throws SQLException {
        try {
            pay(forA, "A", table);
            log("A", lease.fence(), "payment APPLIED");
            return true;
        } catch (StaleFenceException e) {
            log("A", lease.fence(), "payment REJECTED: StaleFenceException, row holds fence "
                    + e.currentFence().orElse(-1));
            return false;
        } catch (SQLException e) {
            if (!isGuardRefusal(e)) {
                throw e;
            }
            log("A", lease.fence(), "payment REFUSED BY THE DATABASE: SQLState " + e.getSQLState()
                    + " (" + firstLine(e.getMessage()) + ")");
            return false;
        }
    }

    /** B waits for the lock (A's lease expires), reads and charges under its newer fence. */
    private void holderB(FencedLocks locks, DataSource forB, String table, AtomicReference<Exception> failure)
            throws Exception {
        log("B", 0, "waiting for the lock on " + RESOURCE);
        try (Lease lease = locks.acquire(RESOURCE, TTL, Duration.ofSeconds(10))) {
            log("B", lease.fence(), "acquired the lock (A's lease expired)");
            lease.runFenced(() -> {
                try {
                    log("B", lease.fence(), "read order 42: " + readStatus(forB, table) + "; charging");
                    pay(forB, "B", table);
                    log("B", lease.fence(), "payment applied");
                } catch (SQLException e) {
                    failure.set(e);
                }
            });
        }
    }

    /** The guard's refusal as a plain connection sees it: ZF002 (no fence in the session) or ZF001 (stale). */
    private static boolean isGuardRefusal(SQLException e) {
        for (SQLException next = e; next != null; next = next.getNextException()) {
            if ("ZF001".equals(next.getSQLState()) || "ZF002".equals(next.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    private static String firstLine(String text) {
        int end = text == null ? -1 : text.indexOf('\n');
        return end < 0 ? String.valueOf(text) : text.substring(0, end);
    }

    private void pay(DataSource orders, String worker, String table) throws SQLException {
        try (Connection connection = orders.getConnection();
             PreparedStatement update = connection.prepareStatement("UPDATE " + table
                     + " SET status = 'paid', paid_by = ?, charges = charges + 1 WHERE id = ?")) {
            update.setString(1, worker);
            update.setLong(2, 42);
            update.executeUpdate();
        }
    }

    private String readStatus(DataSource orders, String table) throws SQLException {
        try (Connection connection = orders.getConnection(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT status FROM " + table + " WHERE id = 42")) {
            return row.next() ? row.getString(1) : "missing";
        }
    }

    private Outcome readOutcome(boolean rejected, String table) throws SQLException {
        try (Connection connection = raw.getConnection(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT charges, paid_by, last_fence FROM " + table + " WHERE id = 42")) {
            row.next();
            return new Outcome(rejected, row.getInt(1), row.getString(2), row.getLong(3));
        }
    }

    private void log(String worker, long fence, String what) {
        out.printf(Locale.ROOT, "%+6d ms  worker %s  fence %-4s %s%n", elapsedMillis(), worker,
                fence == 0 ? "-" : Long.toString(fence), what);
    }

    private long elapsedMillis() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    }

    private void createTables() throws SQLException {
        dropTables();
        try (Connection connection = raw.getConnection(); Statement statement = connection.createStatement()) {
            for (String table : new String[] {ORDERS, GUARDED_ORDERS}) {
                statement.execute("CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, status VARCHAR(20) NOT NULL, "
                        + "paid_by VARCHAR(20), charges INT NOT NULL, last_fence BIGINT NOT NULL DEFAULT 0)");
            }
        }
        JdbcFencedLocks.builder(raw).tableName(LOCKS).build().createTable();
    }

    /** Order 42, pending. With the guard on, through its sanctioned (and logged) migration path. */
    private void resetOrder(String table) throws SQLException {
        if (table.equals(GUARDED_ORDERS)) {
            DatabaseGuard.migrate(raw, "fencing demo: reset order 42", connection -> reset(connection, table));
            return;
        }
        try (Connection connection = raw.getConnection()) {
            reset(connection, table);
        }
    }

    private static void reset(Connection connection, String table) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("DELETE FROM " + table);
            statement.execute("INSERT INTO " + table + " (id, status, charges) VALUES (42, 'pending', 0)");
        }
    }

    private void dropTables() throws SQLException {
        try (Connection connection = raw.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + ORDERS);
            statement.execute("DROP TABLE IF EXISTS " + GUARDED_ORDERS);
            statement.execute("DROP TABLE IF EXISTS " + LOCKS);
        }
    }

    /** The lock kind the demo runs with: the database's own (default) or Redis. */
    private static FencedLocks openLocks(DataSource raw, String redisUri) {
        return redisUri != null ? RedisFencedLocks.create(redisUri)
                : JdbcFencedLocks.builder(raw).tableName(LOCKS).build();
    }
}
