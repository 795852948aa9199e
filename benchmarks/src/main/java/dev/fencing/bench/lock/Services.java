package dev.fencing.bench.lock;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.bench.pg.Postgres;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** The lock stores the lock benchmarks use, and the clean-up of the keys they leave. */
final class Services {

    static final String REDIS_URI = env("FENCING_REDIS_URI", "redis://127.0.0.1:6379");
    /** Key prefix of RedisFencedLocks in the benchmarks. */
    static final String FENCING_PREFIX = "bench-fencing:";
    /** Name prefix of Redisson's locks in the benchmarks. */
    static final String REDISSON_PREFIX = "bench-redisson:";
    /** Redisson keeps each fenced lock's token counter (never expiring) under this name. */
    static final String REDISSON_TOKEN_PREFIX = "redisson_lock_token:{" + REDISSON_PREFIX;
    static final String LOCK_TABLE = "bench_fencing_locks";

    private Services() {
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    /** Deletes the keys the Redisson benchmarks leave: the locks and their token counters. */
    static void deleteRedissonKeys() {
        deleteKeys(REDISSON_PREFIX);
        deleteKeys(REDISSON_TOKEN_PREFIX);
    }

    /** Deletes every key that starts with {@code prefix} (lock fences never expire by design). */
    static void deleteKeys(String prefix) {
        RedisClient client = RedisClient.create(REDIS_URI);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches(glob(prefix) + "*").limit(1000));
                if (!page.getKeys().isEmpty()) {
                    redis.del(page.getKeys().toArray(new String[0]));
                }
                cursor = page;
            } while (!cursor.isFinished());
        } finally {
            client.shutdown();
        }
    }

    /** {@code prefix} with the characters that SCAN's glob patterns treat specially escaped. */
    private static String glob(String prefix) {
        return prefix.replaceAll("([\\\\*?\\[\\]{}^-])", "\\\\$1");
    }

    static RedissonClient redisson() {
        Config config = new Config();
        config.useSingleServer().setAddress(REDIS_URI);
        return Redisson.create(config);
    }

    static HikariDataSource postgresPool(int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(Postgres.url());
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(size);
        config.setPoolName("bench-locks");
        return new HikariDataSource(config);
    }
}
