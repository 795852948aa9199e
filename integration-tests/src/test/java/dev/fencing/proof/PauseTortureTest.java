package dev.fencing.proof;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.StaleFenceException;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.lock.JdbcFencedLocks;
import dev.fencing.lock.Lease;
import dev.fencing.lock.LockAcquisitionException;
import dev.fencing.lock.RedisFencedLocks;
import dev.fencing.testing.TestDatabase;
import dev.fencing.testing.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pause torture on PostgreSQL: {@value #WORKERS} workers loop "acquire a short-TTL lock on a
 * row, read the row, sometimes stall past the TTL, write the row with the lease's fence". A
 * stalled worker waits (on a condition, not a timer) until a successor that acquired the same
 * lock after its lease expired has written the row, so its write is the stale write of the
 * primer's timeline, every time.
 *
 * <p>An {@code AFTER UPDATE} trigger records every applied write's old and new fence. The
 * invariant: no applied write lowered a row's fence ({@code strictly-newer}: nor repeated it).
 * The same workload through the raw data source (the fence written by hand, without the
 * condition) must break the invariant, which proves this test can fail.
 *
 * <p>Row mode cannot stop a stale write to a row the successor has not written yet; such a
 * write is not a violation of this invariant (it raises the row's fence), and the stall is
 * arranged so that the successor has written first.
 */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
@TestRedis
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PauseTortureTest {

    static final int WORKERS = 8;
    private static final int ROWS = 3;
    private static final Duration TTL = Duration.ofMillis(300);
    private static final Duration MAX_WAIT = Duration.ofSeconds(10);
    /** How long a stalled worker waits for its successor's write before writing anyway. */
    private static final Duration SUCCESSOR_WAIT = Duration.ofSeconds(5);

    enum Writer { FENCED, RAW }

    private final DataSource scratch;
    private final String redisUri;
    private HikariDataSource pool;
    private HikariDataSource lockPool;
    private String schema;

    PauseTortureTest(DataSource scratch, @TestRedis String redisUri) {
        this.scratch = scratch;
        this.redisUri = redisUri;
    }

    @BeforeAll
    void schema() throws SQLException {
        schema = Db.home(scratch);
        Db.execute(scratch,
                "CREATE TABLE accounts (id INT PRIMARY KEY, val BIGINT NOT NULL DEFAULT 0, last_fence BIGINT NOT NULL DEFAULT 0)",
                "CREATE TABLE fence_audit (seq BIGSERIAL PRIMARY KEY, row_id INT NOT NULL, old_fence BIGINT, new_fence BIGINT, "
                        + "at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp())",
                "CREATE FUNCTION record_fence() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                        + "INSERT INTO " + schema + ".fence_audit (row_id, old_fence, new_fence) "
                        + "VALUES (NEW.id, OLD.last_fence, NEW.last_fence); RETURN NULL; END $$",
                "CREATE TRIGGER accounts_fence_audit AFTER UPDATE ON accounts FOR EACH ROW EXECUTE FUNCTION record_fence()");
        pool = Db.pool(scratch, "torture", WORKERS + 2, Duration.ofSeconds(30));
        lockPool = Db.pool(scratch, "torture-locks", WORKERS + 2, Duration.ofSeconds(30));
    }

    @AfterAll
    void close() {
        pool.close();
        lockPool.close();
    }

    @Test
    void redisLocksFencedNewerOrEqualNeverLowerARowsFence() throws Exception {
        try (RedisFencedLocks locks = RedisFencedLocks.builder(redisUri).pollInterval(Duration.ofMillis(20)).build()) {
            Result fenced = run("redis/fenced/newer-or-equal", locks::acquire, Writer.FENCED,
                    FencingConfig.Comparison.NEWER_OR_EQUAL, Duration.ofSeconds(6));
            fenced.assertHeld(false);
        }
    }

    @Test
    void redisLocksFencedStrictlyNewerNeverLowerNorRepeatARowsFence() throws Exception {
        try (RedisFencedLocks locks = RedisFencedLocks.builder(redisUri).pollInterval(Duration.ofMillis(20)).build()) {
            Result fenced = run("redis/fenced/strictly-newer", locks::acquire, Writer.FENCED,
                    FencingConfig.Comparison.STRICTLY_NEWER, Duration.ofSeconds(4));
            fenced.assertHeld(true);
        }
    }

    @Test
    void jdbcLocksFencedNeverLowerARowsFence() throws Exception {
        JdbcFencedLocks locks = JdbcFencedLocks.builder(lockPool).pollInterval(Duration.ofMillis(20)).build();
        try (locks) {
            locks.createTable();
            Result fenced = run("jdbc/fenced/newer-or-equal", locks::acquire, Writer.FENCED,
                    FencingConfig.Comparison.NEWER_OR_EQUAL, Duration.ofSeconds(4));
            fenced.assertHeld(false);
        }
    }

    /** The control: the same workload without the driver must break the invariant, or this test proves nothing. */
    @Test
    void theSameWorkloadUnfencedLowersFences() throws Exception {
        try (RedisFencedLocks locks = RedisFencedLocks.builder(redisUri).pollInterval(Duration.ofMillis(20)).build()) {
            Result raw = run("redis/UNFENCED", locks::acquire, Writer.RAW,
                    FencingConfig.Comparison.NEWER_OR_EQUAL, Duration.ofSeconds(4));
            assertTrue(raw.violations > 0, "the unfenced run must lower fences, else the fenced runs prove nothing: " + raw);
            assertEquals(0, raw.staleRejected, raw.toString());
        }
    }

    interface Acquire {
        Lease acquire(String resource, Duration ttl, Duration maxWait);
    }

    /** What one run did. */
    record Result(String name, long applied, long staleRejected, long zeroRows, long pauses, long pausesAfterSuccessorWrite,
                  long leasesLostBeforeWork, long acquireTimeouts, long repeatWrites, long auditRows, long violations,
                  long repeats, FencingConfig.Comparison comparison) {

        void assertHeld(boolean strict) {
            assertEquals(0, violations, "applied writes lowered a row's fence: " + this);
            if (strict) {
                assertEquals(0, repeats, "strictly-newer: applied writes repeated a row's fence: " + this);
            }
            assertTrue(pausesAfterSuccessorWrite > 0, "no stalled worker saw its successor write; the torture did not torture: " + this);
            assertTrue(staleRejected > 0, "no stale write was rejected; the torture did not torture: " + this);
            assertTrue(applied > 0, this.toString());
            assertEquals(applied, auditRows, "every applied write is in the audit, and nothing else: " + this);
        }

        @Override
        public String toString() {
            return String.format("TORTURE %-28s comparison=%s applied=%d staleRejected=%d zeroRows=%d pauses=%d "
                            + "(after successor's write: %d) leasesLostBeforeWork=%d acquireTimeouts=%d sameLeaseRewrites=%d "
                            + "auditRows=%d violations(lowered)=%d repeats(equal)=%d",
                    name, comparison, applied, staleRejected, zeroRows, pauses, pausesAfterSuccessorWrite,
                    leasesLostBeforeWork, acquireTimeouts, repeatWrites, auditRows, violations, repeats);
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

        /** Waits until a write with a fence above {@code fence} was applied to {@code row}; false on timeout. */
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

    private Result run(String name, Acquire locks, Writer writer, FencingConfig.Comparison comparison, Duration length)
            throws Exception {
        Db.execute(pool, "UPDATE accounts SET val = 0, last_fence = 0", "DELETE FROM accounts", "DELETE FROM fence_audit");
        for (int row = 0; row < ROWS; row++) {
            Db.execute(pool, "INSERT INTO accounts (id) VALUES (" + row + ")");
        }
        DataSource target = writer == Writer.FENCED
                ? new FencingDataSource(pool, FencingConfig.builder().tables("accounts").comparison(comparison).build())
                : pool;
        String prefix = "torture:" + UUID.randomUUID();
        Board board = new Board();
        Semaphore stallers = new Semaphore(WORKERS / 2);
        AtomicLong applied = new AtomicLong();
        AtomicLong stale = new AtomicLong();
        AtomicLong zeroRows = new AtomicLong();
        AtomicLong pauses = new AtomicLong();
        AtomicLong pausesAfterSuccessor = new AtomicLong();
        AtomicLong lostBeforeWork = new AtomicLong();
        AtomicLong timeouts = new AtomicLong();
        AtomicLong rewrites = new AtomicLong();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        long end = System.nanoTime() + length.toNanos();
        CountDownLatch start = new CountDownLatch(1);

        ExecutorService workers = Executors.newFixedThreadPool(WORKERS);
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
                            lease = locks.acquire(prefix + ":row:" + row, TTL, MAX_WAIT);
                        } catch (LockAcquisitionException e) {
                            if (e.reason() == LockAcquisitionException.Reason.TIMED_OUT) {
                                timeouts.incrementAndGet();
                                continue;
                            }
                            throw e;
                        }
                        boolean stall = random.nextInt(3) == 0 && stallers.tryAcquire();
                        try (lease) {
                            Fence.Scope scope;
                            try {
                                scope = lease.enterFence();    // entered while held; the stall happens inside it
                            } catch (IllegalStateException lostAlready) {
                                lostBeforeWork.incrementAndGet();
                                continue;
                            }
                            try (scope) {
                                long value = read(target, row);
                                if (stall) {
                                    pauses.incrementAndGet();
                                    Duration untilEnd = Duration.ofNanos(Math.max(0, end - System.nanoTime()));
                                    Duration wait = untilEnd.compareTo(SUCCESSOR_WAIT) < 0 ? untilEnd : SUCCESSOR_WAIT;
                                    if (board.awaitNewer(row, lease.fence(), wait)) {
                                        pausesAfterSuccessor.incrementAndGet();
                                    }
                                    long ttlLeft = TTL.toMillis() + 50;
                                    while (lease.isHeld() && ttlLeft-- > 0) {
                                        Thread.sleep(1);        // only when no successor came: let the TTL pass
                                    }
                                    if (lease.isHeld()) {
                                        throw new AssertionError("a stalled worker still holds its lease past the TTL: " + lease);
                                    }
                                }
                                int writes = !stall && comparison == FencingConfig.Comparison.NEWER_OR_EQUAL
                                        && random.nextInt(5) == 0 ? 2 : 1;
                                for (int i = 0; i < writes; i++) {
                                    if (i == 1) {
                                        rewrites.incrementAndGet();
                                    }
                                    try {
                                        int count = write(target, writer, row, value + 1 + i, lease.fence());
                                        if (count == 1) {
                                            applied.incrementAndGet();
                                            board.applied(row, lease.fence());
                                        } else {
                                            zeroRows.incrementAndGet();
                                        }
                                    } catch (StaleFenceException e) {
                                        stale.incrementAndGet();
                                        break;
                                    }
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
            start.countDown();
            for (Future<?> future : futures) {
                try {
                    future.get(length.toSeconds() + 60, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    failures.add(e.getCause());
                }
            }
        } finally {
            workers.shutdownNow();
            workers.awaitTermination(30, TimeUnit.SECONDS);
        }
        if (!failures.isEmpty()) {
            AssertionError error = new AssertionError("a worker failed in " + name + ": " + Db.describe(failures.peek()));
            failures.forEach(error::addSuppressed);
            throw error;
        }
        long auditRows = Db.number(pool, "SELECT count(*) FROM fence_audit");
        long violations = Db.number(pool, "SELECT count(*) FROM fence_audit WHERE new_fence < old_fence");
        long repeats = Db.number(pool, "SELECT count(*) FROM fence_audit WHERE new_fence = old_fence");
        Result result = new Result(name, applied.get(), stale.get(), zeroRows.get(), pauses.get(), pausesAfterSuccessor.get(),
                lostBeforeWork.get(), timeouts.get(), rewrites.get(), auditRows, violations, repeats, comparison);
        System.out.println(result);
        return result;
    }

    private static long read(DataSource dataSource, int row) throws SQLException {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT val FROM accounts WHERE id = ?")) {
            select.setInt(1, row);
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    private static int write(DataSource dataSource, Writer writer, int row, long value, long fence) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            if (writer == Writer.FENCED) {
                try (PreparedStatement update = connection.prepareStatement("UPDATE accounts SET val = ? WHERE id = ?")) {
                    update.setLong(1, value);
                    update.setInt(2, row);
                    return update.executeUpdate();
                }
            }
            // What an application without the driver does: it writes its fence, but nothing checks it.
            try (PreparedStatement update = connection.prepareStatement("UPDATE accounts SET val = ?, last_fence = ? WHERE id = ?")) {
                update.setLong(1, value);
                update.setLong(2, fence);
                update.setInt(3, row);
                return update.executeUpdate();
            }
        }
    }
}
