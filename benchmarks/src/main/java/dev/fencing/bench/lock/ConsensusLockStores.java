package dev.fencing.bench.lock;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.lock.FencedLocks;
import dev.fencing.lock.JdbcFencedLocks;
import dev.fencing.lock.Lease;
import dev.fencing.lock.RedisFencedLocks;
import dev.fencing.lock.etcd.EtcdFencedLocks;
import dev.fencing.lock.zookeeper.ZooKeeperFencedLocks;
import dev.fencing.testing.locks.EtcdCluster;
import dev.fencing.testing.locks.ZooKeeperEnsemble;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The four lock stores side by side, in one run on one machine: acquire + release latency and
 * throughput at 1, 4 and 16 threads (each thread its own resource, so the store, not a hot lock,
 * is measured), and handoff (a release to the already waiting acquirer holding the lock).
 *
 * <p>Redis and PostgreSQL are the shared services ({@code FENCING_REDIS_URI},
 * {@code FENCING_PG_URL}); etcd (one member, the Debian 3.4 binary, fsync on every write as
 * always) and ZooKeeper (one server, {@code forceSync=yes}) are started for the run on free
 * loopback ports. Not JMH: a store's round trips are milliseconds, and what matters is the ratio
 * between stores measured in the same run. Short by design (shared 2-core machine):
 *
 * <pre>java -cp benchmarks.jar dev.fencing.bench.lock.ConsensusLockStores [seconds per point] [handoff rounds]</pre>
 */
public final class ConsensusLockStores {

    private static final Duration TTL = Duration.ofSeconds(10);
    private static final int[] THREADS = {1, 4, 16};
    private static final String TABLE = "bench_consensus_locks";

    private ConsensusLockStores() {
    }

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 2;
        int handoffRounds = args.length > 1 ? Integer.parseInt(args[1]) : 50;
        String prefix = "bench-consensus-" + UUID.randomUUID() + "/";
        System.out.printf(Locale.ROOT, "lock stores, same run: %.1f s per point after %.1f s warm-up, %d handoff rounds; "
                + "%d CPUs; load average at start %s%n", seconds, seconds / 2, handoffRounds,
                Runtime.getRuntime().availableProcessors(), loadAverage());
        try (EtcdCluster etcd = EtcdCluster.start(1);
             ZooKeeperEnsemble zookeeper = ZooKeeperEnsemble.start(1, true);
             HikariDataSource pool = Services.postgresPool(20)) {
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + TABLE);
            }
            Map<String, FencedLocks> stores = new LinkedHashMap<>();
            stores.put("redis", RedisFencedLocks.builder(Services.REDIS_URI).keyPrefix("bench-consensus:").build());
            JdbcFencedLocks jdbc = JdbcFencedLocks.builder(pool).tableName(TABLE).build();
            jdbc.createTable();
            stores.put("jdbc-postgresql", jdbc);
            // Generous timeouts: the point is latency under a shared machine's load, not failing on it.
            stores.put("etcd", EtcdFencedLocks.builder(etcd.uri()).keyPrefix(prefix)
                    .operationTimeout(Duration.ofSeconds(30)).build());
            stores.put("zookeeper", ZooKeeperFencedLocks.builder(zookeeper.uri() + "/" + prefix.replace("/", ""))
                    .operationTimeout(Duration.ofSeconds(30)).build());
            for (Map.Entry<String, FencedLocks> store : stores.entrySet()) {
                // Connect before any clock starts.
                store.getValue().tryAcquire("connect-" + store.getKey(), TTL).ifPresent(Lease::close);
            }
            try {
                System.out.println();
                System.out.println("| store | threads | acquire+release/s | median us | p99 us |");
                System.out.println("|---|---|---|---|---|");
                for (int threads : THREADS) {
                    for (Map.Entry<String, FencedLocks> store : stores.entrySet()) {
                        throughput(store.getKey(), store.getValue(), threads, seconds);
                    }
                }
                System.out.println();
                System.out.println("| store | handoff median us | p90 us | p99 us | max us |");
                System.out.println("|---|---|---|---|---|");
                for (Map.Entry<String, FencedLocks> store : stores.entrySet()) {
                    handoff(store.getKey(), store.getValue(), handoffRounds);
                }
            } finally {
                stores.values().forEach(FencedLocks::close);
                Services.deleteKeys("bench-consensus:");
                try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                    s.execute("DROP TABLE IF EXISTS " + TABLE);
                }
            }
        }
        System.out.println("load average at end " + loadAverage());
    }

    private static void throughput(String name, FencedLocks locks, int threads, double seconds) throws Exception {
        run(locks, threads, seconds / 2, "warm-" + name); // warm-up, discarded
        Sample sample = run(locks, threads, seconds, name);
        System.out.printf(Locale.ROOT, "| %s | %d | %,.0f | %.0f | %.0f |%n", name, threads,
                sample.cycles / sample.seconds, sample.percentile(0.5), sample.percentile(0.99));
    }

    private record Sample(long cycles, double seconds, long[] nanos) {
        double percentile(double p) {
            return nanos.length == 0 ? 0 : nanos[Math.min(nanos.length - 1, (int) (nanos.length * p))] / 1e3;
        }
    }

    private static Sample run(FencedLocks locks, int threads, double seconds, String label) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        long[] end = new long[1];
        List<Future<long[]>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            String resource = label + ":" + t;
            done.add(pool.submit(() -> {
                long[] samples = new long[1024];
                int count = 0;
                start.await();
                while (System.nanoTime() - end[0] < 0) {
                    long began = System.nanoTime();
                    Lease lease = locks.tryAcquire(resource, TTL)
                            .orElseThrow(() -> new IllegalStateException(resource + " is held: resources are per thread"));
                    lease.close();
                    if (count == samples.length) {
                        samples = Arrays.copyOf(samples, count * 2);
                    }
                    samples[count++] = System.nanoTime() - began;
                }
                return Arrays.copyOf(samples, count);
            }));
        }
        long began = System.nanoTime();
        end[0] = began + (long) (seconds * 1e9);
        start.countDown();
        List<long[]> all = new ArrayList<>();
        for (Future<long[]> future : done) {
            all.add(future.get(60, TimeUnit.SECONDS));
        }
        double took = (System.nanoTime() - began) / 1e9;
        pool.shutdown();
        long[] merged = all.stream().flatMapToLong(Arrays::stream).sorted().toArray();
        return new Sample(merged.length, took, merged);
    }

    private static void handoff(String name, FencedLocks locks, int rounds) throws Exception {
        String resource = "handoff-" + name;
        long[] handoffs = new long[rounds];
        for (int round = -5; round < rounds; round++) {
            Lease held = locks.acquire(resource, TTL, Duration.ofSeconds(10));
            long[] acquiredAt = new long[1];
            Exception[] failure = new Exception[1];
            Thread waiter = new Thread(() -> {
                try (Lease next = locks.acquire(resource, TTL, Duration.ofSeconds(20))) {
                    acquiredAt[0] = System.nanoTime();
                } catch (Exception e) {
                    failure[0] = e;
                }
            });
            waiter.start();
            TimeUnit.MILLISECONDS.sleep(100); // the waiter tried, failed and waits (watching, subscribed)
            long releasedAt = System.nanoTime();
            held.close();
            waiter.join();
            if (failure[0] != null) {
                throw failure[0];
            }
            if (round >= 0) {
                handoffs[round] = acquiredAt[0] - releasedAt;
            }
        }
        Arrays.sort(handoffs);
        Sample sample = new Sample(rounds, 0, handoffs);
        System.out.printf(Locale.ROOT, "| %s | %.0f | %.0f | %.0f | %.0f |%n", name, sample.percentile(0.5),
                sample.percentile(0.9), sample.percentile(0.99), handoffs[rounds - 1] / 1e3);
    }

    private static String loadAverage() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim();
        } catch (Exception e) {
            return "unknown";
        }
    }
}
