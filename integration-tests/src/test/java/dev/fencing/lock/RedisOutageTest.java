package dev.fencing.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.it.Await;
import dev.fencing.it.FreePorts;
import dev.fencing.testing.RedisServer;
import dev.fencing.testing.RedisServers;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
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
                .commandTimeout(Duration.ofSeconds(2)).build()) {
            assertThatThrownBy(() -> locks.tryAcquire("order:1", Duration.ofSeconds(5)))
                    .isInstanceOfSatisfying(LockAcquisitionException.class,
                            e -> assertThat(e.reason()).isEqualTo(LockAcquisitionException.Reason.STORE_FAILED))
                    .hasMessageContaining("order:1")
                    .hasMessageContaining("Redis at redis://127.0.0.1:" + port + " is unreachable")
                    .hasMessageNotContaining("secret")
                    .satisfies(e -> System.out.println("nothing listening: " + e.getMessage()));
            assertThatThrownBy(() -> locks.acquire("order:1", Duration.ofSeconds(5), Duration.ofSeconds(5)))
                    .isInstanceOf(LockAcquisitionException.class)
                    .hasMessageContaining("redis://127.0.0.1:" + port);
        }
    }

    @Test
    void redisKilledWhileAnAcquireWaitsFailsItClearly_andLocksWorkAgainAfterTheRestart() throws Exception {
        RedisServer server = servers.start();
        RedisKeys keys = new RedisKeys("fencing:");
        ExecutorService waiterThread = Executors.newSingleThreadExecutor();
        try (RedisFencedLocks holderProcess = RedisFencedLocks.create(server.uri());
                RedisFencedLocks waiterProcess = RedisFencedLocks.create(server.uri())) {
            Lease held = holderProcess.tryAcquire("order:7", Duration.ofSeconds(30)).orElseThrow();
            assertThat(held.fence()).isPositive();
            // On disk: the lock and its counter must survive the restart for fences to keep growing.
            server.snapshot();

            Future<Lease> waiter = waiterThread.submit(
                    () -> waiterProcess.acquire("order:7", Duration.ofSeconds(10), Duration.ofSeconds(20)));
            // The waiter is mid-acquire once it listens on the release channel.
            Await.until("the waiter subscribes", Duration.ofSeconds(5), () -> RedisCommandsOn.server(server,
                    redis -> redis.pubsubNumsub(keys.releaseChannel("order:7")).get(keys.releaseChannel("order:7")) == 1));

            long killed = System.nanoTime();
            server.kill();
            assertThatThrownBy(() -> waiter.get(10, TimeUnit.SECONDS))
                    .cause()
                    .isInstanceOfSatisfying(LockAcquisitionException.class,
                            e -> assertThat(e.reason()).isEqualTo(LockAcquisitionException.Reason.STORE_FAILED))
                    .hasMessageContaining("order:7")
                    .hasMessageContaining("Redis at " + server.uri())
                    .satisfies(e -> System.out.println("killed mid-acquire: " + e.getMessage()));
            assertThat(Duration.ofNanos(System.nanoTime() - killed)).as("fails fast, not at maxWait").isLessThan(Duration.ofSeconds(3));

            server.crashAndRestartFromSnapshot();
            // Lettuce reconnects in the background; the restarted server knows no scripts (NOSCRIPT, re-sent).
            AtomicReference<Optional<Lease>> attempt = new AtomicReference<>();
            Await.until("locks work again", Duration.ofSeconds(10), () -> {
                try {
                    attempt.set(waiterProcess.tryAcquire("order:7", Duration.ofSeconds(10)));
                    return true;
                } catch (LockAcquisitionException e) {
                    return false;
                }
            });
            assertThat(attempt.get()).as("the persisted lock is still held").isEmpty();

            awaitWorking(holderProcess);
            held.close();
            try (Lease next = waiterProcess.acquire("order:7", Duration.ofSeconds(10), Duration.ofSeconds(5))) {
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
