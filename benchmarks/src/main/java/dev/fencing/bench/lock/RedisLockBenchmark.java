package dev.fencing.bench.lock;

import dev.fencing.lock.Lease;
import dev.fencing.lock.RedisFencedLocks;
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

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Goal 4: {@link RedisFencedLocks} acquire + release on the loopback Redis. {@code uncontended}:
 * each thread locks a resource of its own (one Lua script to acquire and issue the fence, one to
 * release). {@code hotLock}: every thread on the same resource, waiting for it (release
 * notifications over pub/sub). Run with {@code -t 1}, {@code -t 4} and {@code -t 16}; compare with
 * {@link RedissonLockBenchmark} (same method names, its own JVM) and {@link JdbcLockBenchmark}.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(2)
public class RedisLockBenchmark {

    static final Duration TTL = Duration.ofSeconds(30);
    static final Duration MAX_WAIT = Duration.ofSeconds(30);

    @State(Scope.Benchmark)
    public static class Locks {
        RedisFencedLocks locks;
        final AtomicInteger threads = new AtomicInteger();

        @Setup(Level.Trial)
        public void open() {
            Services.deleteKeys(Services.FENCING_PREFIX);
            locks = RedisFencedLocks.builder(Services.REDIS_URI).keyPrefix(Services.FENCING_PREFIX).build();
        }

        @TearDown(Level.Trial)
        public void close() {
            locks.close();
            Services.deleteKeys(Services.FENCING_PREFIX);
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
