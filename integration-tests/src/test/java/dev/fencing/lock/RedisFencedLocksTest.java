package dev.fencing.lock;

import dev.fencing.internal.lock.RedisKeys;
import dev.fencing.internal.lock.RedisAddress;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.it.Await;
import dev.fencing.testing.TestRedis;
import dev.fencing.testing.locks.FencedLocksContractTest;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The shared lock contract against the Redis at {@code FENCING_REDIS_URI}, in a logical database of its own. */
@TestRedis
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisFencedLocksTest extends FencedLocksContractTest {

    private static final String PREFIX = "fencing:";

    private final String uri;
    private RedisClient client;
    private StatefulRedisConnection<String, String> connection;

    RedisFencedLocksTest(@TestRedis String uri) {
        this.uri = uri;
    }

    @BeforeAll
    void connect() {
        client = RedisClient.create(uri);
        connection = client.connect();
    }

    @AfterAll
    void disconnect() {
        connection.close();
        client.shutdown();
    }

    @Override
    protected FencedLocks newLocks(Options options) {
        RedisFencedLocks.Builder builder = RedisFencedLocks.builder(uri).keyPrefix(PREFIX);
        if (options.watchdog()) {
            builder.watchdog(true).renewalSchedule(options.renewalSchedule());
        }
        if (options.pollInterval() != null) {
            builder.pollInterval(options.pollInterval());
        }
        return builder.build();
    }

    /** Stricter than the contract's wake-up test: the waiter is seen subscribed before, and unsubscribed after. */
    @Test
    void aWaiterInAnotherProcessWakesOnTheReleaseMessageNotByPolling() throws Exception {
        RedisKeys keys = new RedisKeys(PREFIX);
        String resource = newResource();
        ExecutorService waiterThread = Executors.newSingleThreadExecutor();
        // Polling every 10 s: only the release message can wake the waiter in time.
        try (RedisFencedLocks holderProcess = RedisFencedLocks.builder(uri).keyPrefix(PREFIX).build();
                RedisFencedLocks waiterProcess = RedisFencedLocks.builder(uri).keyPrefix(PREFIX)
                        .pollInterval(Duration.ofSeconds(10)).build()) {
            Lease held = holderProcess.tryAcquire(resource, Duration.ofSeconds(30)).orElseThrow();
            Future<Lease> waiter = waiterThread.submit(
                    () -> waiterProcess.acquire(resource, Duration.ofSeconds(10), Duration.ofSeconds(20)));
            Await.until("the waiter subscribes", Duration.ofSeconds(5), () -> connection.sync()
                    .pubsubNumsub(keys.releaseChannel(resource)).get(keys.releaseChannel(resource)) == 1);
            long released = System.nanoTime();
            held.close();
            try (Lease next = waiter.get(5, TimeUnit.SECONDS)) {
                assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(2));
                assertThat(next.fence()).isGreaterThan(held.fence());
            }
            Await.until("the waiter unsubscribes", Duration.ofSeconds(5), () -> connection.sync()
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
        return "Redis at " + RedisAddress.parse(uri);
    }

    @Override
    protected String label() {
        return "Redis " + RedisAddress.parse(uri);
    }
}
