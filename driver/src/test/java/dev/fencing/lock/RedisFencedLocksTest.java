package dev.fencing.lock;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
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
