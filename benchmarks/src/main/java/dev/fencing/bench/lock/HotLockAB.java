package dev.fencing.bench.lock;

import dev.fencing.lock.RedisFencedLocks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RFencedLock;
import org.redisson.api.RedissonClient;

/**
 * Goal 4, the hot lock, robust against background load: {@link RedisFencedLocks} and Redisson's
 * {@code RFencedLock} on one resource, every thread acquiring and releasing it in a loop, in one
 * JVM, alternating in ABBA blocks of a few seconds, so that both meet the same machine. Per
 * thread count: throughput (acquire + release cycles per second over all blocks of each) and
 * the median and 90th percentile of one cycle. The first A and B blocks are warm-up.
 *
 * <pre>java -cp benchmarks.jar dev.fencing.bench.lock.HotLockAB [threads,..] [block seconds] [ABBA rounds]</pre>
 *
 * Defaults: 1,4,16 threads, 2 s blocks, 2 rounds (8 measured blocks per thread count).
 */
public final class HotLockAB {

    private static final Duration TTL = Duration.ofSeconds(30);
    private static final Duration MAX_WAIT = Duration.ofSeconds(30);

    /** One acquire + release of the hot lock. */
    private interface Cycle {
        void run() throws Exception;
    }

    private HotLockAB() {
    }

    public static void main(String[] args) throws Exception {
        int[] threadCounts = args.length > 0 ? Arrays.stream(args[0].split(",")).mapToInt(Integer::parseInt).toArray()
                : new int[] {1, 4, 16};
        long blockNanos = TimeUnit.SECONDS.toNanos(args.length > 1 ? Long.parseLong(args[1]) : 2);
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 2;

        Services.deleteKeys(Services.FENCING_PREFIX);
        Services.deleteRedissonKeys();
        RedisFencedLocks fencing = RedisFencedLocks.builder(Services.REDIS_URI).keyPrefix(Services.FENCING_PREFIX).build();
        RedissonClient redisson = Services.redisson();
        RFencedLock hot = redisson.getFencedLock(Services.REDISSON_PREFIX + "hot");
        Cycle ours = () -> fencing.acquire("hot", TTL, MAX_WAIT).close();
        Cycle theirs = () -> {
            Long token = hot.tryLockAndGetToken(MAX_WAIT.toMillis(), TTL.toMillis(), TimeUnit.MILLISECONDS);
            if (token == null) {
                throw new IllegalStateException("Redisson did not acquire the hot lock in " + MAX_WAIT);
            }
            hot.unlock();
        };
        try {
            for (int threads : threadCounts) {
                Result a = new Result();
                Result b = new Result();
                block(ours, threads, blockNanos, null); // warm-up
                block(theirs, threads, blockNanos, null);
                for (int round = 0; round < rounds; round++) {
                    block(ours, threads, blockNanos, a);
                    block(theirs, threads, blockNanos, b);
                    block(theirs, threads, blockNanos, b);
                    block(ours, threads, blockNanos, a);
                }
                System.out.printf(Locale.ROOT, "hot lock t=%-2d fencing-jdbc %s | Redisson %s | throughput ratio %.2f,"
                        + " median ratio %.2f (load %s)%n", threads, a, b, a.perSecond() / b.perSecond(),
                        a.percentile(0.5) / b.percentile(0.5), load());
            }
        } finally {
            fencing.close();
            redisson.shutdown();
            Services.deleteKeys(Services.FENCING_PREFIX);
            Services.deleteRedissonKeys();
        }
    }

    /** Runs {@code cycle} on {@code threads} threads for about {@code nanos}; adds to {@code into} unless null. */
    private static void block(Cycle cycle, int threads, long nanos, Result into) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<long[]> samples = new ArrayList<>();
        List<Thread> running = new ArrayList<>();
        Exception[] failure = new Exception[1];
        long[] window = new long[2];
        for (int t = 0; t < threads; t++) {
            long[][] own = {new long[1024]};
            int[] count = {0};
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                    long deadline = window[0] + nanos;
                    long now = System.nanoTime();
                    while (now < deadline) {
                        cycle.run();
                        long done = System.nanoTime();
                        if (count[0] == own[0].length) {
                            own[0] = Arrays.copyOf(own[0], count[0] * 2);
                        }
                        own[0][count[0]++] = done - now;
                        now = done;
                    }
                } catch (Exception e) {
                    synchronized (failure) {
                        failure[0] = e;
                    }
                }
                synchronized (samples) {
                    samples.add(Arrays.copyOf(own[0], count[0]));
                }
            }, "hot-" + t);
            running.add(thread);
            thread.start();
        }
        window[0] = System.nanoTime();
        start.countDown();
        for (Thread thread : running) {
            thread.join();
        }
        window[1] = System.nanoTime();
        if (failure[0] != null) {
            throw failure[0];
        }
        if (into != null) {
            into.add(samples, window[1] - window[0]);
        }
    }

    private static String load() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ")[0];
        } catch (java.io.IOException e) {
            return "?";
        }
    }

    /** The cycles of one implementation over its blocks. */
    private static final class Result {
        private final List<long[]> samples = new ArrayList<>();
        private long cycles;
        private long nanos;

        void add(List<long[]> block, long elapsed) {
            samples.addAll(block);
            for (long[] thread : block) {
                cycles += thread.length;
            }
            nanos += elapsed;
        }

        double perSecond() {
            return cycles / (nanos / 1e9);
        }

        double percentile(double p) {
            long[] all = samples.stream().flatMapToLong(Arrays::stream).sorted().toArray();
            return all.length == 0 ? Double.NaN : all[(int) Math.min(all.length - 1, all.length * p)] / 1e3;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%8.0f cycles/s, median %7.1f us, p90 %8.1f us", perSecond(),
                    percentile(0.5), percentile(0.9));
        }
    }
}
