package dev.fencing.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The shared lock contract against the Redis at {@code FENCING_REDIS_URI}. */
class RedisFencedLocksTest extends FencedLocksContract {

    private static final String PREFIX = TestServices.uniquePrefix();
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;

    @BeforeAll
    static void connect() {
        client = RedisClient.create(RedisURI.create(TestServices.REDIS_URI));
        connection = client.connect();
    }

    @AfterAll
    static void cleanUp() {
        TestServices.deleteKeys(TestServices.REDIS_URI, PREFIX);
        connection.close();
        client.shutdown();
    }

    @Override
    protected Locks newLocks(ScheduledExecutorService watchdogExecutor) {
        RedisFencedLocks.Builder builder = RedisFencedLocks.builder(TestServices.REDIS_URI).keyPrefix(PREFIX);
        if (watchdogExecutor != null) {
            builder.watchdog(true).watchdogExecutor(watchdogExecutor);
        }
        return adapt(builder.build());
    }

    static Locks adapt(RedisFencedLocks locks) {
        return new Locks() {
            @Override
            public Optional<Lease> tryAcquire(String resource, Duration ttl) {
                return locks.tryAcquire(resource, ttl);
            }

            @Override
            public Lease acquire(String resource, Duration ttl, Duration maxWait) {
                return locks.acquire(resource, ttl, maxWait);
            }

            @Override
            public void close() {
                locks.close();
            }
        };
    }

    @Test
    void aWaiterInAnotherProcessWakesOnTheReleaseMessageNotByPolling() throws Exception {
        RedisKeys keys = new RedisKeys(PREFIX);
        String resource = newResource();
        ExecutorService waiterThread = Executors.newSingleThreadExecutor();
        // Polling every 10 s: only the release message can wake the waiter in time.
        try (RedisFencedLocks holderProcess = RedisFencedLocks.builder(TestServices.REDIS_URI).keyPrefix(PREFIX).build();
                RedisFencedLocks waiterProcess = RedisFencedLocks.builder(TestServices.REDIS_URI).keyPrefix(PREFIX)
                        .pollInterval(Duration.ofSeconds(10)).build()) {
            Lease held = holderProcess.tryAcquire(resource, Duration.ofSeconds(30)).orElseThrow();
            Future<Lease> waiter = waiterThread.submit(
                    () -> waiterProcess.acquire(resource, Duration.ofSeconds(10), Duration.ofSeconds(20)));
            RedisServerProcess.awaitUntil("the waiter subscribes", Duration.ofSeconds(5), () -> connection.sync()
                    .pubsubNumsub(keys.releaseChannel(resource)).get(keys.releaseChannel(resource)) == 1);
            long released = System.nanoTime();
            held.close();
            try (Lease next = waiter.get(5, TimeUnit.SECONDS)) {
                assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(2));
                assertThat(next.fence()).isGreaterThan(held.fence());
            }
            RedisServerProcess.awaitUntil("the waiter unsubscribes", Duration.ofSeconds(5), () -> connection.sync()
                    .pubsubNumsub(keys.releaseChannel(resource)).get(keys.releaseChannel(resource)) == 0);
        } finally {
            waiterThread.shutdownNow();
        }
    }

    @Override
    protected void expireAtStore(String resource) {
        connection.sync().del(new RedisKeys(PREFIX).lock(resource));
    }

    @Override
    protected String storeName() {
        return "Redis at " + RedisAddress.parse(TestServices.REDIS_URI);
    }

    @Override
    protected String label() {
        return "Redis " + RedisAddress.parse(TestServices.REDIS_URI);
    }
}
