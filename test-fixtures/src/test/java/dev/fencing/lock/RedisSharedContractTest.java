package dev.fencing.lock;

import dev.fencing.testing.TestRedis;
import dev.fencing.testing.locks.FencedLocksContractTest;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** The shared lock contract (the one etcd and ZooKeeper run) against {@link RedisFencedLocks}. */
@TestRedis
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisSharedContractTest extends FencedLocksContractTest {

    private final String uri;
    private final String prefix = "contract:" + UUID.randomUUID() + ":";
    private RedisClient client;
    private StatefulRedisConnection<String, String> connection;

    RedisSharedContractTest(@TestRedis String uri) {
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
        RedisFencedLocks.Builder builder = RedisFencedLocks.builder(uri).keyPrefix(prefix);
        if (options.watchdog()) {
            builder.watchdog(true).watchdogExecutor(options.renewalSchedule());
        }
        if (options.pollInterval() != null) {
            builder.pollInterval(options.pollInterval());
        }
        return builder.build();
    }

    @Override
    protected void expireAtStore(String resource) {
        connection.sync().del(new RedisKeys(prefix).lock(resource));
    }

    @Override
    protected String storeName() {
        return "Redis at " + RedisAddress.parse(uri);
    }
}
