package dev.fencing.bench.lock;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.lock.JdbcFencedLocks;
import dev.fencing.lock.Lease;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Goal 4, beside the Redis locks: {@link JdbcFencedLocks} on the loopback PostgreSQL through
 * HikariCP (pool of 17), default durable commits: each acquire and each release is one
 * autocommitted UPDATE that waits for the WAL flush. Same method names as
 * {@link RedisLockBenchmark}.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(2)
public class JdbcLockBenchmark {

    static final Duration TTL = Duration.ofSeconds(30);
    static final Duration MAX_WAIT = Duration.ofSeconds(30);

    @State(Scope.Benchmark)
    public static class Locks {
        HikariDataSource pool;
        JdbcFencedLocks locks;
        final AtomicInteger threads = new AtomicInteger();

        @Setup(Level.Trial)
        public void open() throws SQLException {
            pool = Services.postgresPool(17);
            dropTable();
            locks = JdbcFencedLocks.builder(pool).tableName(Services.LOCK_TABLE).build();
            locks.createTable();
        }

        @TearDown(Level.Trial)
        public void close() throws SQLException {
            locks.close();
            dropTable();
            pool.close();
        }

        private void dropTable() throws SQLException {
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + Services.LOCK_TABLE);
            }
        }
    }

    @State(Scope.Thread)
    public static class Own {
        String resource;

        @Setup(Level.Trial)
        public void name(Locks locks) {
            resource = "own-" + locks.threads.incrementAndGet();
        }
    }

    @Benchmark
    public long uncontended(Locks locks, Own own) {
        Lease lease = locks.locks.tryAcquire(own.resource, TTL)
                .orElseThrow(() -> new IllegalStateException(own.resource + " is held"));
        long fence = lease.fence();
        lease.close();
        return fence;
    }

    @Benchmark
    public long hotLock(Locks locks) {
        try (Lease lease = locks.locks.acquire("hot", TTL, MAX_WAIT)) {
            return lease.fence();
        }
    }
}
