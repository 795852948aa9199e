package dev.fencing.proof;

import dev.fencing.lock.Lease;
import dev.fencing.lock.RedisFencedLocks;
import dev.fencing.testing.RedisServer;
import dev.fencing.testing.RedisServers;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DRIVER BUG (liveness): with the watchdog on, an acquire whose round trip takes more than
 * about two thirds of the TTL (a slow first connect, a GC pause, a slow network) returns a
 * lease that reports itself lost before its first renewal, although Redis holds the lock and
 * renewing would keep it: the lease's TTL is counted from before the acquire was sent, but the
 * first renewal is scheduled TTL/3 after the acquire returned. Expected: the lease stays held
 * while Redis is up and renewals succeed.
 */
class WatchdogFirstRenewalTest {

    @Test
    void aLeaseWhoseAcquireWasSlowIsStillRenewed() throws Exception {
        Duration ttl = Duration.ofMillis(1200);
        try (RedisServers servers = new RedisServers()) {
            RedisServer server = servers.start();
            try (RedisFencedLocks locks = RedisFencedLocks.builder(server.uri()).watchdog(true)
                    .operationTimeout(Duration.ofSeconds(5)).build()) {
                locks.acquire("warm", ttl, Duration.ofSeconds(1)).close();     // connected: acquires take ~1 ms now
                server.pause();                                                 // the next acquire's reply is delayed
                CompletableFuture<Lease> acquire = CompletableFuture.supplyAsync(
                        () -> locks.acquire("slow", ttl, Duration.ofSeconds(5)));
                Thread.sleep(900);                                              // the delay is the point of the test
                server.resume();
                Lease lease = acquire.get(10, TimeUnit.SECONDS);
                long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
                while (System.nanoTime() < end) {
                    assertTrue(lease.isHeld(), "Redis is up and the watchdog renews, yet the lease reports itself lost");
                    Thread.sleep(50);
                }
                lease.close();
            }
        }
    }
}
