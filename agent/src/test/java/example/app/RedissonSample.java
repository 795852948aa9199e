package example.app;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * An application that uses Redisson's {@code RFencedLock} and never the fencing API: without the
 * agent its writes carry no check at all. Two tenures of one lock:
 * <ol>
 *   <li>A takes the lock with a 1 s lease and writes (applied with its token);</li>
 *   <li>A's lease expires while it "pauses"; B takes the lock (a larger token), writes, unlocks;</li>
 *   <li>A wakes and writes: rejected as stale, since the row holds B's token; its unlock fails
 *       (the lock is not its own any more) and ends its fence: its next write has none;</li>
 *   <li>B's write after its unlock has no fence either.</li>
 * </ol>
 * Arguments: {@code <postgres-url> <redis-uri> <table> <row-id> <lock-name>}.
 */
public final class RedissonSample {

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String redisUri = args[1];
        String table = args[2];
        long id = Long.parseLong(args[3]);
        String lockName = args[4];
        String update = "UPDATE " + table + " SET status = ? WHERE id = ?";

        HikariConfig hikari = new HikariConfig();
        hikari.setJdbcUrl(url);
        hikari.setMaximumPoolSize(2);
        Config config = new Config();
        config.useSingleServer().setAddress(redisUri);
        RedissonClient redisson = Redisson.create(config);
        StringBuilder result = new StringBuilder("RESULT");
        try (HikariDataSource pool = new HikariDataSource(hikari)) {
            CountDownLatch aWrote = new CountDownLatch(1);
            CountDownLatch bDone = new CountDownLatch(1);
            Thread a = new Thread(() -> {
                try {
                    RFencedLock lock = redisson.getFencedLock(lockName);
                    Long token = lock.tryLockAndGetToken(5, 1, TimeUnit.SECONDS);
                    append(result, "tokenA", token);
                    append(result, "a1", write(pool, update, "A1", id));
                    aWrote.countDown();
                    bDone.await(); // "paused" past its lease while B held the lock
                    append(result, "a2", write(pool, update, "A2", id));
                    try {
                        lock.unlock();
                        append(result, "aUnlock", "ok");
                    } catch (RuntimeException e) {
                        append(result, "aUnlock", e.getClass().getSimpleName());
                    }
                    append(result, "a3", write(pool, update, "A3", id));
                } catch (Exception e) {
                    append(result, "aError", e);
                }
            }, "tenure-A");
            Thread b = new Thread(() -> {
                try {
                    aWrote.await();
                    RFencedLock lock = redisson.getFencedLock(lockName);
                    Long token = lock.tryLockAndGetToken(10, 30, TimeUnit.SECONDS); // waits out A's lease
                    append(result, "tokenB", token);
                    append(result, "b1", write(pool, update, "B", id));
                    lock.unlock();
                    append(result, "b2", write(pool, update, "B2", id));
                } catch (Exception e) {
                    append(result, "bError", e);
                } finally {
                    bDone.countDown();
                }
            }, "tenure-B");
            a.start();
            b.start();
            a.join();
            b.join();
        } finally {
            redisson.shutdown();
        }
        System.out.println(result);
    }

    private static synchronized void append(StringBuilder result, String key, Object value) {
        synchronized (result) {
            result.append(' ').append(key).append('=').append(value);
        }
    }

    private static String write(HikariDataSource pool, String update, String status, long id) throws SQLException {
        try (Connection c = pool.getConnection()) {
            return WritesSample.write(c, update, status, id);
        }
    }
}
