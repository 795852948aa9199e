package dev.fencing.bench.lock;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.lock.JdbcFencedLocks;
import dev.fencing.lock.Lease;
import dev.fencing.lock.RedisFencedLocks;
import org.redisson.api.RFencedLock;
import org.redisson.api.RedissonClient;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Goal 4, handoff: how long after a holder releases a lock the thread already waiting for it
 * holds it. Each round: the main thread takes the lock; a second thread starts a waiting acquire;
 * after 50 ms (so that it is waiting, subscribed to release notifications) the main thread notes
 * the time and releases; the waiter notes the time its acquire returned. Handoff = the difference,
 * which includes the release's own round trip. One store per JVM:
 *
 * <pre>java -cp benchmarks.jar dev.fencing.bench.lock.LockHandoff redis|redisson|jdbc [rounds]</pre>
 */
public final class LockHandoff {

    private static final Duration TTL = Duration.ofSeconds(30);
    private static final Duration MAX_WAIT = Duration.ofSeconds(10);
    private static final long SETTLE_MILLIS = 50;
    private static final int WARMUP_ROUNDS = 20;

    /** One store: hold, wait, release. */
    private interface Store extends AutoCloseable {
        /** Takes the lock on the calling thread; returns what {@link #release} needs. */
        Object acquire() throws Exception;

        void release(Object held) throws Exception;

        @Override
        void close() throws SQLException;
    }

    private LockHandoff() {
    }

    public static void main(String[] args) throws Exception {
        String kind = args.length > 0 ? args[0] : "redis";
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        try (Store store = open(kind)) {
            long[] handoff = new long[rounds];
            long[] release = new long[rounds];
            for (int round = -WARMUP_ROUNDS; round < rounds; round++) {
                long[] times = round(store);
                if (round >= 0) {
                    handoff[round] = times[0];
                    release[round] = times[1];
                }
            }
            System.out.printf(Locale.ROOT, "handoff %s (%d rounds after %d warm-up; us): %s%n", kind, rounds,
                    WARMUP_ROUNDS, stats(handoff));
            System.out.printf(Locale.ROOT, "release call alone %s (us): %s%n", kind, stats(release));
        }
    }

    /** One round: {handoff ns, release-call ns}. */
    private static long[] round(Store store) throws Exception {
        Object held = store.acquire();
        CountDownLatch started = new CountDownLatch(1);
        long[] acquiredAt = new long[1];
        Exception[] failure = new Exception[1];
        Thread waiter = new Thread(() -> {
            try {
                started.countDown();
                Object next = store.acquire();
                acquiredAt[0] = System.nanoTime();
                store.release(next);
            } catch (Exception e) {
                failure[0] = e;
            }
        }, "waiter");
        waiter.start();
        started.await();
        TimeUnit.MILLISECONDS.sleep(SETTLE_MILLIS);
        long releasedAt = System.nanoTime();
        store.release(held);
        long releaseReturned = System.nanoTime();
        waiter.join();
        if (failure[0] != null) {
            throw failure[0];
        }
        return new long[] {acquiredAt[0] - releasedAt, releaseReturned - releasedAt};
    }

    private static String stats(long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        double mean = Arrays.stream(sorted).average().orElse(0);
        return String.format(Locale.ROOT, "median %.0f, p90 %.0f, p99 %.0f, max %.0f, mean %.0f",
                sorted[sorted.length / 2] / 1e3, sorted[(int) (sorted.length * 0.9)] / 1e3,
                sorted[Math.min(sorted.length - 1, (int) (sorted.length * 0.99))] / 1e3,
                sorted[sorted.length - 1] / 1e3, mean / 1e3);
    }

    private static Store open(String kind) throws Exception {
        return switch (kind) {
            case "redis" -> redis();
            case "redisson" -> redisson();
            case "jdbc" -> jdbc();
            default -> throw new IllegalArgumentException("redis, redisson or jdbc, not " + kind);
        };
    }

    private static Store redis() {
        Services.deleteKeys(Services.FENCING_PREFIX);
        RedisFencedLocks locks = RedisFencedLocks.builder(Services.REDIS_URI).keyPrefix(Services.FENCING_PREFIX).build();
        return new Store() {
            @Override
            public Object acquire() {
                return locks.acquire("handoff", TTL, MAX_WAIT);
            }

            @Override
            public void release(Object held) {
                ((Lease) held).close();
            }

            @Override
            public void close() {
                locks.close();
                Services.deleteKeys(Services.FENCING_PREFIX);
            }
        };
    }

    private static Store redisson() {
        Services.deleteRedissonKeys();
        RedissonClient redisson = Services.redisson();
        RFencedLock lock = redisson.getFencedLock(Services.REDISSON_PREFIX + "handoff");
        return new Store() {
            @Override
            public Object acquire() throws InterruptedException {
                Long token = lock.tryLockAndGetToken(MAX_WAIT.toMillis(), TTL.toMillis(), TimeUnit.MILLISECONDS);
                if (token == null) {
                    throw new IllegalStateException("not acquired within " + MAX_WAIT);
                }
                return token;
            }

            @Override
            public void release(Object held) {
                lock.unlock();
            }

            @Override
            public void close() {
                redisson.shutdown();
                Services.deleteRedissonKeys();
            }
        };
    }

    private static Store jdbc() throws Exception {
        HikariDataSource pool = Services.postgresPool(4);
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + Services.LOCK_TABLE);
        }
        JdbcFencedLocks locks = JdbcFencedLocks.builder(pool).tableName(Services.LOCK_TABLE).build();
        locks.createTable();
        return new Store() {
            @Override
            public Object acquire() {
                return locks.acquire("handoff", TTL, MAX_WAIT);
            }

            @Override
            public void release(Object held) {
                ((Lease) held).close();
            }

            @Override
            public void close() throws SQLException {
                locks.close();
                try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                    s.execute("DROP TABLE IF EXISTS " + Services.LOCK_TABLE);
                }
                pool.close();
            }
        };
    }
}
