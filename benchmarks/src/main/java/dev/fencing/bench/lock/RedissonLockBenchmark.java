package dev.fencing.bench.lock;

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
import org.redisson.api.RFencedLock;
import org.redisson.api.RedissonClient;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Goal 4, the alternative: Redisson 3.45.1's {@link RFencedLock} on the same Redis,
 * {@code tryLockAndGetToken} + {@code unlock}, with Redisson's default single-server settings.
 * JMH runs each benchmark in its own JVM, so Redisson never shares a process with Lettuce
 * (both use Netty 4.1.118.Final, so one jar holds both).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(2)
public class RedissonLockBenchmark {

    static final long LEASE_SECONDS = 30;
    static final long WAIT_SECONDS = 30;

    @State(Scope.Benchmark)
    public static class Locks {
        RedissonClient redisson;
        RFencedLock hot;
        final AtomicInteger threads = new AtomicInteger();

        @Setup(Level.Trial)
        public void open() {
            Services.deleteRedissonKeys();
            redisson = Services.redisson();
            hot = redisson.getFencedLock(Services.REDISSON_PREFIX + "hot");
        }

        @TearDown(Level.Trial)
        public void close() {
            redisson.shutdown();
            Services.deleteRedissonKeys();
        }
    }

    @State(Scope.Thread)
    public static class Own {
        RFencedLock lock;

        @Setup(Level.Trial)
        public void name(Locks locks) {
            lock = locks.redisson.getFencedLock(Services.REDISSON_PREFIX + "own-" + locks.threads.incrementAndGet());
        }
    }

    @Benchmark
    public long uncontended(Own own) {
        Long token = own.lock.tryLockAndGetToken(0, LEASE_SECONDS, TimeUnit.SECONDS);
        if (token == null) {
            throw new IllegalStateException(own.lock.getName() + " is held");
        }
        own.lock.unlock();
        return token;
    }

    @Benchmark
    public long hotLock(Locks locks) {
        Long token = locks.hot.tryLockAndGetToken(WAIT_SECONDS, LEASE_SECONDS, TimeUnit.SECONDS);
        if (token == null) {
            throw new IllegalStateException("the hot lock was not acquired in " + WAIT_SECONDS + " s");
        }
        locks.hot.unlock();
        return token;
    }
}
