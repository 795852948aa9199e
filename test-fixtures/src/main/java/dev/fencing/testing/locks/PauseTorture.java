package dev.fencing.testing.locks;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.StaleFenceException;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.lock.FencedLocks;
import dev.fencing.lock.Lease;
import dev.fencing.lock.LockAcquisitionException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * Pause torture for any lock store, on a real PostgreSQL database: workers loop "acquire a
 * lock on a row, read the row, sometimes stall past the TTL, write the row with the lease's
 * fence". A stalled worker waits until a successor that acquired the same lock after its lease
 * ended has written the row, then writes: the stale write of the primer's timeline. An
 * {@code AFTER UPDATE} trigger records every applied write's old and new fence; the invariant
 * is that no applied write lowered a row's fence. Run it once with {@link Writer#RAW} (the fence
 * written by hand, unchecked) to see that the workload does break the invariant without the
 * driver.
 *
 * <pre>{@code
 * PauseTorture.Result result = new PauseTorture(postgresScratch, "etcd").run(locks, Duration.ofSeconds(3),
 *         PauseTorture.Writer.FENCED, Duration.ofSeconds(8), null);
 * result.assertHeld();
 * }</pre>
 *
 * <p>Tables {@code torture_rows} and {@code torture_audit} are created in the data source's
 * current schema (a {@code @TestDatabase(POSTGRESQL)} scratch schema).
 */
public final class PauseTorture {

    /** How the workers write. */
    public enum Writer {
        /** Through {@link FencingDataSource}: stale writes are rejected. */
        FENCED,
        /** Straight to the database with the fence set by hand: nothing is checked. */
        RAW
    }

    private static final int WORKERS = 6;
    private static final int ROWS = 3;

    private final DataSource raw;
    private final String label;

    /** @param raw a PostgreSQL data source (not fenced) whose current schema the test owns */
    public PauseTorture(DataSource raw, String label) {
        this.raw = raw;
        this.label = label;
    }

    /** What one run did. */
    public record Result(String name, long applied, long staleRejected, long pauses, long pausesAfterSuccessorWrite,
                         long lostBeforeWork, long acquireFailures, long auditRows, long violations) {

        /** The invariant held, and the run did torture (stalls met successors, stale writes came). */
        public void assertHeld() {
            check(violations == 0, "applied writes lowered a row's fence");
            check(pausesAfterSuccessorWrite > 0, "no stalled worker saw its successor write; the torture did not torture");
            check(staleRejected > 0, "no stale write was rejected; the torture did not torture");
            check(applied > 0 && applied == auditRows, "every applied write is in the audit, and nothing else");
        }

        private void check(boolean condition, String message) {
            if (!condition) {
                throw new AssertionError(message + ": " + this);
            }
        }

        @Override
        public String toString() {
            return String.format("TORTURE %s applied=%d staleRejected=%d pauses=%d (after successor's write: %d) "
                            + "lostBeforeWork=%d acquireFailures=%d auditRows=%d violations(lowered)=%d",
                    name, applied, staleRejected, pauses, pausesAfterSuccessorWrite, lostBeforeWork, acquireFailures,
                    auditRows, violations);
        }
    }

    /**
     * Runs the workload for {@code length}.
     *
     * @param ttl the TTL of every lease (short: stalls last until it has passed)
     * @param midRun run once, from another thread, a third into the run (kill a leader, pause a
     *        member), or null
     */
    public Result run(FencedLocks locks, Duration ttl, Writer writer, Duration length, Runnable midRun) throws Exception {
        setUp();
        DataSource target = writer == Writer.FENCED
                ? new FencingDataSource(raw, FencingConfig.builder().tables("torture_rows").build())
                : raw;
        String prefix = "torture:" + UUID.randomUUID();
        Board board = new Board();
        Semaphore stallers = new Semaphore(WORKERS / 2);
        AtomicLong applied = new AtomicLong();
        AtomicLong stale = new AtomicLong();
        AtomicLong pauses = new AtomicLong();
        AtomicLong pausesAfterSuccessor = new AtomicLong();
        AtomicLong lostBeforeWork = new AtomicLong();
        AtomicLong acquireFailures = new AtomicLong();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        long end = System.nanoTime() + length.toNanos();
        Duration successorWait = ttl.multipliedBy(3).plusSeconds(2);
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService workers = Executors.newFixedThreadPool(WORKERS + 1);
        List<Future<?>> futures = new ArrayList<>();
        try {
            for (int w = 0; w < WORKERS; w++) {
                long seed = 7919L * (w + 1);
                futures.add(workers.submit(() -> {
                    Random random = new Random(seed);
                    start.await();
                    while (System.nanoTime() < end && failures.isEmpty()) {
                        int row = random.nextInt(ROWS);
                        Lease lease;
                        try {
                            lease = locks.acquire(prefix + ":row:" + row, ttl, Duration.ofSeconds(20));
                        } catch (LockAcquisitionException e) {
                            // Timeouts and store failures (a failover in progress) are not violations.
                            acquireFailures.incrementAndGet();
                            continue;
                        }
                        boolean stall = random.nextInt(3) == 0 && stallers.tryAcquire();
                        try (lease) {
                            Fence.Scope scope;
                            try {
                                scope = lease.enterFence();
                            } catch (IllegalStateException lostAlready) {
                                lostBeforeWork.incrementAndGet();
                                continue;
                            }
                            try (scope) {
                                long value = read(row);
                                if (stall) {
                                    pauses.incrementAndGet();
                                    if (board.awaitNewer(row, lease.fence(), successorWait)) {
                                        pausesAfterSuccessor.incrementAndGet();
                                    }
                                }
                                try {
                                    if (write(target, writer, row, value + 1, lease.fence()) == 1) {
                                        applied.incrementAndGet();
                                        board.applied(row, lease.fence());
                                    }
                                } catch (StaleFenceException e) {
                                    stale.incrementAndGet();
                                }
                            }
                        } finally {
                            if (stall) {
                                stallers.release();
                            }
                        }
                    }
                    return null;
                }));
            }
            if (midRun != null) {
                futures.add(workers.submit(() -> {
                    Thread.sleep(length.toMillis() / 3);
                    midRun.run();
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : futures) {
                try {
                    future.get(length.toSeconds() + 120, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    failures.add(e.getCause());
                }
            }
        } finally {
            workers.shutdownNow();
            workers.awaitTermination(30, TimeUnit.SECONDS);
        }
        if (!failures.isEmpty()) {
            AssertionError error = new AssertionError("a worker failed in the torture of " + label + ": " + failures.peek());
            failures.forEach(error::addSuppressed);
            throw error;
        }
        Result result = new Result(label + "/" + writer, applied.get(), stale.get(), pauses.get(), pausesAfterSuccessor.get(),
                lostBeforeWork.get(), acquireFailures.get(), number("SELECT count(*) FROM torture_audit"),
                number("SELECT count(*) FROM torture_audit WHERE new_fence < old_fence"));
        System.out.println(result);
        return result;
    }

    private void setUp() throws SQLException {
        try (Connection connection = raw.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS torture_rows (id INT PRIMARY KEY, val BIGINT NOT NULL DEFAULT 0, "
                    + "last_fence BIGINT NOT NULL DEFAULT 0)");
            statement.execute("CREATE TABLE IF NOT EXISTS torture_audit (seq BIGSERIAL PRIMARY KEY, row_id INT NOT NULL, "
                    + "old_fence BIGINT, new_fence BIGINT)");
            statement.execute("CREATE OR REPLACE FUNCTION torture_record_fence() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                    + "INSERT INTO torture_audit (row_id, old_fence, new_fence) VALUES (NEW.id, OLD.last_fence, NEW.last_fence); "
                    + "RETURN NULL; END $$");
            statement.execute("DROP TRIGGER IF EXISTS torture_audit_trigger ON torture_rows");
            statement.execute("CREATE TRIGGER torture_audit_trigger AFTER UPDATE ON torture_rows FOR EACH ROW "
                    + "EXECUTE FUNCTION torture_record_fence()");
            statement.execute("DELETE FROM torture_rows");
            statement.execute("DELETE FROM torture_audit");
            for (int row = 0; row < ROWS; row++) {
                statement.execute("INSERT INTO torture_rows (id) VALUES (" + row + ")");
            }
        }
    }

    private long read(int row) throws SQLException {
        try (Connection connection = raw.getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT val FROM torture_rows WHERE id = ?")) {
            select.setInt(1, row);
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    private long number(String sql) throws SQLException {
        try (Connection connection = raw.getConnection(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private static int write(DataSource dataSource, Writer writer, int row, long value, long fence) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            if (writer == Writer.FENCED) {
                try (PreparedStatement update = connection.prepareStatement("UPDATE torture_rows SET val = ? WHERE id = ?")) {
                    update.setLong(1, value);
                    update.setInt(2, row);
                    return update.executeUpdate();
                }
            }
            try (PreparedStatement update = connection.prepareStatement(
                    "UPDATE torture_rows SET val = ?, last_fence = ? WHERE id = ?")) {
                update.setLong(1, value);
                update.setLong(2, fence);
                update.setInt(3, row);
                return update.executeUpdate();
            }
        }
    }

    /** Per row: the highest fence whose write was applied, so a stalled worker can wait for its successor. */
    private static final class Board {
        private final long[] highest = new long[ROWS];

        synchronized void applied(int row, long fence) {
            if (fence > highest[row]) {
                highest[row] = fence;
            }
            notifyAll();
        }

        synchronized boolean awaitNewer(int row, long fence, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (highest[row] <= fence) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            return true;
        }
    }
}
