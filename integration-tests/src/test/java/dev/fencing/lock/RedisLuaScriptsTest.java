package dev.fencing.lock;

import dev.fencing.internal.lock.RedisKeys;
import dev.fencing.internal.lock.LuaScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.it.UniqueNames;
import dev.fencing.testing.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Each Lua script on its own, straight through Lettuce, against the Redis at {@code FENCING_REDIS_URI}. */
@TestRedis
class RedisLuaScriptsTest {

    // Pub/sub channels are shared by all logical databases: a prefix of its own keeps its messages apart.
    private static final String PREFIX = UniqueNames.next("fencing-test-") + ":";
    private static final RedisKeys KEYS = new RedisKeys(PREFIX);
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisCommands<String, String> redis;

    @BeforeAll
    static void connect(@TestRedis String uri) {
        client = RedisClient.create(RedisURI.create(uri));
        connection = client.connect();
        redis = connection.sync();
    }

    @AfterAll
    static void cleanUp() {
        connection.close();
        client.shutdown();
    }

    /** The script run as RedisLockStore runs it: asynchronously, with a time limit. */
    private static long run(LuaScript script, String[] keys, String... args) {
        try {
            return script.run(connection.async(), Duration.ofSeconds(5), keys, args);
        } catch (TimeoutException e) {
            throw new AssertionError("Redis did not answer Lua script " + script.name() + " within 5 s", e);
        }
    }

    private static long acquire(String resource, String owner, long ttlMillis) {
        return run(LuaScript.ACQUIRE, new String[] {KEYS.lock(resource), KEYS.fence(resource)}, owner,
                Long.toString(ttlMillis));
    }

    /** The Redis server's clock in microseconds since the epoch, as the acquire script reads it. */
    private static long serverMicros() {
        java.util.List<String> time = redis.time();
        return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
    }

    @Test
    void acquireSetsTheLockAndIssuesTheServersClockInMicrosAsTheFirstFence_orReportsTheHoldersTtl() {
        String resource = "acquire-" + System.nanoTime();
        long before = serverMicros();
        long first = acquire(resource, "owner-1", 10_000);
        long after = serverMicros();
        assertThat(first).as("the server's TIME in microseconds").isBetween(before, after);
        assertThat(redis.get(KEYS.lock(resource))).isEqualTo("owner-1");
        assertThat(redis.pttl(KEYS.lock(resource))).isBetween(1L, 10_000L);
        assertThat(redis.get(KEYS.fence(resource))).isEqualTo(Long.toString(first));
        assertThat(redis.ttl(KEYS.fence(resource))).as("the counter never expires").isEqualTo(-1);

        long held = acquire(resource, "owner-2", 10_000);
        assertThat(held).as("minus the holder's remaining TTL").isBetween(-10_000L, -1L);
        assertThat(redis.get(KEYS.fence(resource))).as("no fence for a failed attempt").isEqualTo(Long.toString(first));

        redis.del(KEYS.lock(resource));
        long second = acquire(resource, "owner-2", 10_000);
        assertThat(second).isGreaterThan(first).isLessThanOrEqualTo(serverMicros());
    }

    @Test
    void aCounterThatWentBackStillYieldsALargerFence_andOneAheadOfTheClockIsIncremented() {
        String resource = "floor-" + System.nanoTime();
        long lost = acquire(resource, "owner-1", 10_000);
        redis.del(KEYS.lock(resource));
        // Redis lost its recent writes: the counter is back at a value from long ago.
        redis.set(KEYS.fence(resource), "5");
        assertThat(acquire(resource, "owner-2", 10_000)).as("the clock, not 6").isGreaterThan(lost);
        redis.del(KEYS.lock(resource));

        // A counter ahead of the clock (fences issued under a clock that ran ahead) keeps counting.
        long ahead = serverMicros() + 3_600_000_000L;
        redis.set(KEYS.fence(resource), Long.toString(ahead));
        assertThat(acquire(resource, "owner-3", 10_000)).isEqualTo(ahead + 1);
        assertThat(redis.get(KEYS.fence(resource))).isEqualTo(Long.toString(ahead + 1));
    }

    @Test
    void acquireLeavesNoLockBehindWhenTheCounterIsUnusable() {
        String resource = "broken-" + System.nanoTime();
        redis.sadd(KEYS.fence(resource), "not a counter");
        assertThatThrownBy(() -> acquire(resource, "owner-1", 10_000))
                .isInstanceOf(RedisCommandExecutionException.class)
                .hasMessageContaining("unusable")
                .hasMessageContaining("WRONGTYPE");
        assertThat(redis.exists(KEYS.lock(resource))).isZero();

        for (String bad : new String[] {"1.5", "-3", "abc", "9007199254740993"}) {
            redis.set(KEYS.fence(resource), bad);
            assertThatThrownBy(() -> acquire(resource, "owner-1", 10_000))
                    .isInstanceOf(RedisCommandExecutionException.class)
                    .hasMessageContaining("unusable")
                    .hasMessageContaining(bad);
            assertThat(redis.exists(KEYS.lock(resource))).as(bad).isZero();
            assertThat(redis.get(KEYS.fence(resource))).as("left as it was").isEqualTo(bad);
        }
    }

    @Test
    void releaseDeletesOnlyTheOwnersLockAndAnnouncesIt() throws Exception {
        String resource = "release-" + System.nanoTime();
        acquire(resource, "owner-1", 10_000);
        BlockingQueue<String> heard = new LinkedBlockingQueue<>();
        try (StatefulRedisPubSubConnection<String, String> pubSub = client.connectPubSub()) {
            pubSub.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String channel, String message) {
                    heard.add(channel + "=" + message);
                }
            });
            pubSub.sync().subscribe(KEYS.releaseChannel(resource));

            String[] lock = {KEYS.lock(resource)};
            assertThat(run(LuaScript.RELEASE, lock, "someone-else", KEYS.releaseChannel(resource), "1")).isZero();
            assertThat(redis.get(KEYS.lock(resource))).isEqualTo("owner-1");

            assertThat(run(LuaScript.RELEASE, lock, "owner-1", KEYS.releaseChannel(resource), "1")).isEqualTo(1);
            assertThat(redis.exists(KEYS.lock(resource))).isZero();
            assertThat(heard.poll(5, TimeUnit.SECONDS)).isEqualTo(KEYS.releaseChannel(resource) + "=1");
            assertThat(redis.exists(KEYS.fence(resource))).as("the counter stays").isEqualTo(1);

            assertThat(run(LuaScript.RELEASE, lock, "owner-1", KEYS.releaseChannel(resource), "1"))
                    .as("releasing twice").isZero();
            assertThat(heard.poll(100, TimeUnit.MILLISECONDS)).as("nothing announced for nothing released").isNull();
        }
    }

    @Test
    void extendResetsOnlyTheOwnersTtlAndNeverRevivesAnExpiredLock() {
        String resource = "extend-" + System.nanoTime();
        acquire(resource, "owner-1", 1_000);
        String[] lock = {KEYS.lock(resource)};
        assertThat(run(LuaScript.EXTEND, lock, "someone-else", "60000")).isZero();
        assertThat(redis.pttl(KEYS.lock(resource))).isLessThanOrEqualTo(1_000);

        assertThat(run(LuaScript.EXTEND, lock, "owner-1", "60000")).isEqualTo(1);
        assertThat(redis.pttl(KEYS.lock(resource))).isGreaterThan(1_000);

        redis.del(KEYS.lock(resource));
        assertThat(run(LuaScript.EXTEND, lock, "owner-1", "60000")).isZero();
        assertThat(redis.exists(KEYS.lock(resource))).isZero();
    }

    @Test
    void theDigestRunByEvalshaIsTheOneRedisComputesOnScriptLoad() {
        for (LuaScript script : new LuaScript[] {LuaScript.ACQUIRE, LuaScript.RELEASE, LuaScript.EXTEND}) {
            assertThat(redis.scriptLoad(read(script.name()))).as(script.name()).isEqualTo(script.sha1());
        }
    }

    private static String read(String name) {
        try (var in = LuaScript.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
