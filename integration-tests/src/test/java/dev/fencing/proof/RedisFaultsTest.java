package dev.fencing.proof;

import dev.fencing.it.Await;
import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.StaleFenceException;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.lock.Lease;
import dev.fencing.lock.LockAcquisitionException;
import dev.fencing.lock.RedisFencedLocks;
import dev.fencing.testing.RedisServer;
import dev.fencing.testing.RedisServers;
import dev.fencing.testing.TestDatabase;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Redis faults around {@link RedisFencedLocks}, on throw-away {@code redis-server} processes of
 * this test's own ({@link RedisServers}): the server stopped, killed, paused or restarted during
 * an acquire and during watchdog renewal. An acquire tries again until its {@code maxWait}
 * runs out and then fails with a clear {@link LockAcquisitionException} (never hangs past it,
 * never hands out a lease it does not hold), and a lease whose
 * renewals fail must report itself not held. A restart that loses the fence counter is the
 * documented limit; the database check then fails closed. Each scenario prints what it observed.
 */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@SuppressWarnings("try") // fence scopes are entered for their effect on the thread
class RedisFaultsTest {

    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(750);

    private final DataSource scratch;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private RedisServers servers;

    RedisFaultsTest(DataSource scratch) {
        this.scratch = scratch;
    }

    @BeforeAll
    void start() throws SQLException {
        servers = new RedisServers();
        Db.execute(scratch, "CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(20), last_fence BIGINT NOT NULL DEFAULT 0)",
                "INSERT INTO orders (id, status) VALUES (1, 'new')");
    }

    @AfterAll
    void stop() {
        executor.shutdownNow();
        servers.close();
    }

    private static RedisFencedLocks locks(RedisServer server, boolean watchdog) {
        return RedisFencedLocks.builder(server.uri()).operationTimeout(COMMAND_TIMEOUT).pollInterval(Duration.ofMillis(50))
                .watchdog(watchdog).build();
    }

    /** Acquires once the client reaches the server again (after a restart or resume); returns the lease. */
    private static Lease acquireWhenReachable(RedisFencedLocks locks, String resource, Duration ttl) throws Exception {
        Lease[] lease = new Lease[1];
        Duration took = Await.until("an acquire succeeds again", Duration.ofSeconds(45), () -> {
            try {
                Optional<Lease> acquired = locks.tryAcquire(resource, ttl);
                lease[0] = acquired.orElse(null);
                return lease[0] != null;
            } catch (LockAcquisitionException e) {
                return false;
            }
        });
        System.out.println("FAULT Redis back: the client acquired " + resource + " again after " + took.toMillis() + " ms");
        return lease[0];
    }

    private static LockAcquisitionException assertStoreFailed(String scenario, Duration bound, ThrowingSupplier action) {
        long started = System.nanoTime();
        LockAcquisitionException failure = assertThrows(LockAcquisitionException.class, action::get, scenario);
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        assertEquals(LockAcquisitionException.Reason.STORE_FAILED, failure.reason(), scenario + ": " + failure);
        assertTrue(took.compareTo(bound) < 0, scenario + " took " + took + ", more than " + bound);
        System.out.println("FAULT " + scenario + ": " + failure.reason() + " after " + took.toMillis() + " ms: " + failure.getMessage());
        return failure;
    }

    interface ThrowingSupplier {
        Object get() throws Throwable;
    }

    @Test
    void acquireWhileRedisIsDownFailsWhenItsWaitRunsOutAndWorksAfterARestart() throws Exception {
        RedisServer server = servers.start();
        try (RedisFencedLocks locks = locks(server, false)) {
            locks.acquire("faults:warm", Duration.ofSeconds(5), Duration.ofSeconds(1)).close();
            server.kill();
            LockAcquisitionException outlasted = assertStoreFailed("acquire (maxWait 1 s) on a killed Redis",
                    Duration.ofSeconds(10), () -> locks.acquire("faults:down", Duration.ofSeconds(5), Duration.ofSeconds(1)));
            assertTrue(outlasted.getMessage().contains("kept failing"), outlasted.getMessage());
            assertStoreFailed("tryAcquire on a killed Redis", Duration.ofSeconds(5),
                    () -> locks.tryAcquire("faults:down", Duration.ofSeconds(5)));
            server.restart();
            try (Lease lease = acquireWhenReachable(locks, "faults:down", Duration.ofSeconds(5))) {
                assertTrue(lease.isHeld());
            }
        }
    }

    @Test
    void acquireWhileRedisIsPausedTimesOutClearly() throws Exception {
        RedisServer server = servers.start();
        try (RedisFencedLocks locks = locks(server, false)) {
            locks.acquire("faults:warm", Duration.ofSeconds(5), Duration.ofSeconds(1)).close();
            server.pause();
            try {
                assertStoreFailed("acquire on a paused (SIGSTOP) Redis, command timeout " + COMMAND_TIMEOUT.toMillis() + " ms",
                        Duration.ofSeconds(15), () -> locks.acquire("faults:paused", Duration.ofSeconds(1), Duration.ofSeconds(2)));
            } finally {
                server.resume();
            }
            // Redis runs the timed-out acquire when it resumes: that lock is held in nobody's name until
            // its TTL (1 s) passes, so the next acquire succeeds only then.
            try (Lease lease = acquireWhenReachable(locks, "faults:paused", Duration.ofSeconds(5))) {
                assertTrue(lease.isHeld());
            }
        }
    }

    @Test
    void redisKilledWhileAnAcquireWaitsEndsTheWaitAtMaxWaitWithAClearError() throws Exception {
        RedisServer server = servers.start();
        String resource = "faults:contended";
        try (RedisFencedLocks locks = locks(server, false);
             RedisFencedLocks holderLocks = locks(server, false);
             Lease holder = holderLocks.acquire(resource, Duration.ofSeconds(30), Duration.ofSeconds(1))) {
            assertTrue(holder.isHeld());
            Future<Throwable> waiter = executor.submit(() -> {
                try {
                    locks.acquire(resource, Duration.ofSeconds(5), Duration.ofSeconds(3)).close();
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            });
            // The waiter subscribes to the lock's release channel while it waits.
            RedisClient client = RedisClient.create(server.uri());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                String channel = "fencing:{" + resource + "}:released";
                Await.until("the waiter subscribed to " + channel, Duration.ofSeconds(10),
                        () -> connection.sync().pubsubNumsub(channel).getOrDefault(channel, 0L) > 0);
            } finally {
                client.shutdown();
            }
            long killed = System.nanoTime();
            server.kill();
            Throwable outcome = waiter.get(30, TimeUnit.SECONDS);
            Duration took = Duration.ofNanos(System.nanoTime() - killed);
            LockAcquisitionException failure = assertInstanceOf(LockAcquisitionException.class, outcome,
                    "a waiting acquire on a killed Redis must fail with LockAcquisitionException");
            System.out.println("FAULT Redis killed while an acquire waited (maxWait 3 s): " + failure.reason() + " "
                    + took.toMillis() + " ms after the kill: " + failure.getMessage());
            // Down for good: the wait runs out while the store still fails, and says so.
            assertEquals(LockAcquisitionException.Reason.STORE_FAILED, failure.reason());
            assertTrue(failure.getMessage().contains("kept failing"), failure.getMessage());
            assertTrue(took.compareTo(Duration.ofSeconds(10)) < 0, "the wait must end at maxWait: " + took);
        }
    }

    @Test
    void renewalFailsWhenRedisIsKilledAndTheLeaseReportsNotHeld() throws Exception {
        RedisServer server = servers.start();
        Duration ttl = Duration.ofMillis(1200);
        try (RedisFencedLocks locks = locks(server, true)) {
            // Connect first: a lease whose acquire also had to connect may be lost before its first renewal
            // (the TTL is counted from before the connect; see the report of the proof suite).
            locks.acquire("faults:warm", ttl, Duration.ofSeconds(1)).close();
            Lease lease = locks.acquire("faults:renewed", ttl, Duration.ofSeconds(1));
            long acquired = System.nanoTime();
            Await.until("the watchdog kept the lease past twice its TTL", Duration.ofSeconds(10),
                    () -> System.nanoTime() - acquired > 2 * ttl.toNanos());
            assertTrue(lease.isHeld(), "renewals must keep the lease while Redis is up");
            long killed = System.nanoTime();
            server.kill();
            Duration lost = Await.until("the lease reports not held", Duration.ofSeconds(10), () -> !lease.isHeld());
            System.out.println("FAULT Redis killed during watchdog renewal (TTL " + ttl.toMillis() + " ms): isHeld() false "
                    + lost.toMillis() + " ms after the kill");
            assertTrue(Duration.ofNanos(System.nanoTime() - killed).compareTo(ttl.plusSeconds(3)) < 0);
            assertThrows(IllegalStateException.class, lease::enterFence, "a lost lease must not enter its fence");
            server.restart();
            // A new client: the old one reconnects with a growing back-off, which this test need not wait for.
            try (RedisFencedLocks fresh = locks(server, false);
                 Lease successor = acquireWhenReachable(fresh, "faults:renewed", ttl)) {
                assertFalse(lease.isHeld(), "a lost lease stays lost after Redis returns");
                assertTrue(successor.isHeld());
                System.out.println("FAULT after the restart: old lease fence " + lease.fence() + " not held; new lease fence "
                        + successor.fence() + " (the restarted server lost its counter; the clock floor keeps fences growing)");
            }
            lease.close();
        }
    }

    @Test
    void renewalFailsWhileRedisIsPausedAndTheLeaseStaysLostAfterResume() throws Exception {
        RedisServer server = servers.start();
        Duration ttl = Duration.ofMillis(1200);
        try (RedisFencedLocks locks = locks(server, true)) {
            locks.acquire("faults:warm", ttl, Duration.ofSeconds(1)).close();
            Lease lease = locks.acquire("faults:paused-renewal", ttl, Duration.ofSeconds(1));
            assertTrue(lease.isHeld());
            server.pause();
            Duration lost;
            try {
                lost = Await.until("the lease reports not held", Duration.ofSeconds(10), () -> !lease.isHeld());
            } finally {
                server.resume();
            }
            System.out.println("FAULT Redis paused (SIGSTOP) during watchdog renewal (TTL " + ttl.toMillis()
                    + " ms): isHeld() false after " + lost.toMillis() + " ms");
            try (Lease successor = acquireWhenReachable(locks, "faults:paused-renewal", ttl)) {
                assertFalse(lease.isHeld(), "once not held, a lease stays not held");
                assertTrue(successor.fence() > lease.fence(), "Redis kept its counter across the pause");
            }
            lease.close();
        }
    }

    /**
     * A Redis without persistence that restarts empty has lost its fence counter, but the
     * acquire script issues {@code max(counter + 1, server clock in microseconds)}: the first
     * fence after the restart is still larger than every fence before it, so the new holder's
     * write is applied and the old tenure's fence can write no more.
     */
    @Test
    void aRestartThatLosesTheCounterStillIssuesALargerFence() throws Exception {
        RedisServer server = servers.start();
        DataSource fenced = new FencingDataSource(scratch, FencingConfig.builder().tables("orders").build());
        try (RedisFencedLocks locks = locks(server, false)) {
            long before = 0;
            for (int i = 0; i < 5; i++) {
                try (Lease lease = locks.acquire("faults:order", Duration.ofSeconds(5), Duration.ofSeconds(1))) {
                    before = lease.fence();
                    lease.runFenced(() -> write(fenced, "paid"));
                }
            }
            server.restart();
            long after;
            try (Lease lease = acquireWhenReachable(locks, "faults:order", Duration.ofSeconds(5))) {
                after = lease.fence();
                assertTrue(after > before, "the restarted Redis issued fence " + after + " after " + before);
                lease.runFenced(() -> write(fenced, "after-restart"));
                System.out.println("FAULT Redis restarted empty: fence " + after + " issued after " + before
                        + " (the server clock's floor); the new holder's write was applied");
            }
            long stale = before;
            try (Fence.Scope scope = Fence.enter("faults:order", stale)) {
                assertThrows(StaleFenceException.class, () -> writeChecked(fenced, "stale"));
            }
            Map<String, Object> row = Db.rows(scratch, "SELECT status, last_fence FROM orders WHERE id = 1").get(0);
            assertEquals("after-restart", row.get("status"));
            assertEquals(after, row.get("last_fence"));
        }
    }

    private static void write(DataSource fenced, String status) {
        try {
            writeChecked(fenced, status);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void writeChecked(DataSource fenced, String status) throws SQLException {
        try (Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
            statement.executeUpdate("UPDATE orders SET status = '" + status + "' WHERE id = 1");
        }
    }
}
