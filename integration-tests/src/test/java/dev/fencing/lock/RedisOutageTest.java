package dev.fencing.lock;

import dev.fencing.internal.lock.RedisKeys;
import dev.fencing.internal.lock.LuaScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.it.Await;
import dev.fencing.it.FreePorts;
import dev.fencing.testing.RedisServer;
import dev.fencing.testing.RedisServers;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Redis that is not there, or that dies and comes back, with its own redis-server. */
class RedisOutageTest {

    private final RedisServers servers = new RedisServers();

    @AfterEach
    void killServers() {
        servers.close();
    }

    @Test
    void anUnreachableRedisIsAClearFailureNamingItsAddressButNotItsPassword() {
        int port = FreePorts.next();
        try (RedisFencedLocks locks = RedisFencedLocks.builder("redis://:secret@127.0.0.1:" + port)
                .operationTimeout(Duration.ofSeconds(2)).build()) {
            assertThatThrownBy(() -> locks.tryAcquire("order:1", Duration.ofSeconds(5)))
                    .isInstanceOfSatisfying(LockAcquisitionException.class,
                            e -> assertThat(e.reason()).isEqualTo(LockAcquisitionException.Reason.STORE_FAILED))
                    .hasMessageContaining("order:1")
                    .hasMessageContaining("Redis at redis://127.0.0.1:" + port + " is unreachable")
                    .hasMessageNotContaining("secret")
                    .satisfies(e -> System.out.println("nothing listening: " + e.getMessage()));
            assertThatThrownBy(() -> locks.acquire("order:1", Duration.ofSeconds(5), Duration.ofMillis(200)))
                    .isInstanceOf(LockAcquisitionException.class)
                    .hasMessageContaining("redis://127.0.0.1:" + port);
        }
    }

    @Test
    void aRedisRestartWhileAnAcquireWaitsEndsInALeaseOnceRedisIsBack() throws Exception {
        RedisServer server = servers.start();
        ExecutorService waiterThread = Executors.newSingleThreadExecutor();
        try (RetriesSeen retries = new RetriesSeen();
                RedisFencedLocks locks = RedisFencedLocks.builder(server.uri()).operationTimeout(Duration.ofSeconds(2)).build();
                RedisFencedLocks others = RedisFencedLocks.create(server.uri())) {
            server.kill();
            Future<Lease> waiter = waiterThread.submit(
                    () -> locks.acquire("order:9", Duration.ofSeconds(30), Duration.ofSeconds(5)));
            assertThat(retries.firstFailure.await(10, TimeUnit.SECONDS)).as("the acquire met the outage").isTrue();
            assertThat(waiter).isNotDone();

            server.restart();
            try (Lease lease = waiter.get(10, TimeUnit.SECONDS)) {
                assertThat(lease.fence()).isPositive();
                assertThat(lease.isHeld()).isTrue();
                awaitWorking(others);
                assertThat(others.tryAcquire("order:9", Duration.ofSeconds(5))).as("Redis holds it for the waiter").isEmpty();
            }
            System.out.println("acquire waited through a restart, " + retries.count.get() + " attempts failed meanwhile");
        } finally {
            waiterThread.shutdownNow();
        }
    }

    @Test
    void aWaitThatRunsOutDuringAnOutageFailsWithStoreFailedAndSaysSo_whileTryAcquireFailsAtOnce() throws Exception {
        RedisServer server = servers.start();
        try (RetriesSeen retries = new RetriesSeen();
                RedisFencedLocks locks = RedisFencedLocks.create(server.uri())) {
            server.kill();
            assertThatThrownBy(() -> locks.tryAcquire("order:10", Duration.ofSeconds(5)))
                    .isInstanceOfSatisfying(LockAcquisitionException.class,
                            e -> assertThat(e.reason()).isEqualTo(LockAcquisitionException.Reason.STORE_FAILED))
                    .hasMessageStartingWith("could not acquire lock 'order:10': Redis at " + server.uri());
            assertThat(retries.count).as("tryAcquire makes one attempt").hasValue(0);

            assertThatThrownBy(() -> locks.acquire("order:10", Duration.ofSeconds(5), Duration.ofMillis(300)))
                    .isInstanceOfSatisfying(LockAcquisitionException.class,
                            e -> assertThat(e.reason()).isEqualTo(LockAcquisitionException.Reason.STORE_FAILED))
                    .hasMessageContaining("could not acquire lock 'order:10' within PT0.3S: Redis at " + server.uri()
                            + " kept failing")
                    .hasMessageContaining("the last failure: Redis at " + server.uri())
                    .satisfies(e -> System.out.println("outage outlasted the wait: " + e.getMessage()));
            assertThat(retries.count.get()).as("acquire tried again").isPositive();
        }
    }

    @Test
    void aContendedWaitSurvivesACrashAndTheLockAndCounterRestoredFromTheSnapshot() throws Exception {
        RedisServer server = servers.start();
        RedisKeys keys = new RedisKeys("fencing:");
        ExecutorService waiterThread = Executors.newSingleThreadExecutor();
        try (RetriesSeen retries = new RetriesSeen();
                RedisFencedLocks holderProcess = RedisFencedLocks.create(server.uri());
                RedisFencedLocks waiterProcess = RedisFencedLocks.create(server.uri())) {
            Lease held = holderProcess.tryAcquire("order:7", Duration.ofSeconds(30)).orElseThrow();
            assertThat(held.fence()).isPositive();
            // On disk: the lock and its counter must survive the restart for fences to keep growing.
            server.snapshot();

            Future<Lease> waiter = waiterThread.submit(
                    () -> waiterProcess.acquire("order:7", Duration.ofSeconds(10), Duration.ofSeconds(30)));
            // The waiter is mid-acquire once it listens on the release channel.
            Await.until("the waiter subscribes", Duration.ofSeconds(5), () -> RedisCommandsOn.server(server,
                    redis -> redis.pubsubNumsub(keys.releaseChannel("order:7")).get(keys.releaseChannel("order:7")) == 1));

            server.kill();
            assertThat(retries.firstFailure.await(10, TimeUnit.SECONDS)).as("the waiter met the outage").isTrue();
            server.crashAndRestartFromSnapshot();
            // Lettuce reconnects in the background; the restarted server knows no scripts (NOSCRIPT, re-sent).
            awaitWorking(holderProcess);
            assertThat(waiter).as("the persisted lock is still held").isNotDone();
            held.close();
            try (Lease next = waiter.get(20, TimeUnit.SECONDS)) {
                assertThat(next.fence()).as("the persisted counter goes on").isGreaterThan(held.fence());
            }
        } finally {
            waiterThread.shutdownNow();
        }
    }

    private static void awaitWorking(RedisFencedLocks locks) throws Exception {
        Await.until("the client reconnects", Duration.ofSeconds(10), () -> {
            try {
                locks.tryAcquire("probe", Duration.ofSeconds(1)).ifPresent(Lease::close);
                return true;
            } catch (LockAcquisitionException e) {
                return false;
            }
        });
    }

    @Test
    void aFlushedScriptCacheIsRefilledOnNoscript() throws Exception {
        RedisServer server = servers.start();
        try (RedisFencedLocks locks = RedisFencedLocks.create(server.uri())) {
            Lease first = locks.tryAcquire("order:8", Duration.ofSeconds(10)).orElseThrow();
            first.close();
            RedisCommandsOn.server(server, redis -> redis.scriptFlush());
            try (Lease lease = locks.tryAcquire("order:8", Duration.ofSeconds(10)).orElseThrow()) {
                assertThat(lease.fence()).isGreaterThan(first.fence());
            }
            assertThat(RedisCommandsOn.<java.util.List<Boolean>>server(server, redis -> redis.scriptExists(LuaScript.ACQUIRE.sha1(), LuaScript.RELEASE.sha1())))
                    .containsExactly(true, true);
        }
    }
}
