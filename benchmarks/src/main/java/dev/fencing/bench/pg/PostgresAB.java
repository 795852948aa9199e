package dev.fencing.bench.pg;

import dev.fencing.Fence;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Goal 3 on a shared, noisy machine: the fenced and the hand-written variants interleaved in short
 * blocks (A B B A A B ...), so that a change of background load hits both alike. JMH runs each
 * variant as its own run, seconds or minutes apart; when other processes come and go, that alone
 * moves the ratio by more than the 3% the goal allows. Each round runs both variants for the same
 * time with the same threads, and the ratio of the round's two throughputs is kept; the median of
 * those ratios is the result. Beside it, the client threads' own CPU time per operation (the
 * benchmark threads only: pgjdbc, HikariCP and fencing-jdbc work on the caller's thread), which
 * the server's and the other processes' load disturb far less than throughput. Same table, pool
 * and statements as {@link PostgresBenchmark}.
 *
 * <pre>java -cp benchmarks.jar dev.fencing.bench.pg.PostgresAB [rounds] [blockMillis] [async|durable] [threads,...]</pre>
 */
public final class PostgresAB {

    private enum Variant { FENCED, HAND_WRITTEN }

    private enum Scenario { UPDATE, MIX }

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** What one block did: operations per second, and client CPU nanoseconds per operation. */
    private record Block(double opsPerSecond, double cpuNanosPerOp) {
    }

    private PostgresAB() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        long blockMillis = args.length > 1 ? Long.parseLong(args[1]) : 1000;
        String commit = args.length > 2 ? args[2] : "async";
        int[] threadCounts = Arrays.stream((args.length > 3 ? args[3] : "1,4").split(","))
                .mapToInt(Integer::parseInt).toArray();
        PostgresBenchmark.Database db = new PostgresBenchmark.Database();
        db.commit = commit;
        db.open();
        ExecutorService pool = Executors.newCachedThreadPool();
        try {
            System.out.printf(Locale.ROOT, "PostgreSQL A/B, commit=%s, %d rounds of %d ms per variant, order ABBA%n",
                    commit, rounds, blockMillis);
            System.out.println("scenario  threads  fenced ops/s (median)  hand-written ops/s (median)  "
                    + "ratio median  [p25, p75]  min..max  |  client CPU us/op fenced  hand-written  difference");
            for (Scenario scenario : Scenario.values()) {
                for (int threads : threadCounts) {
                    for (Variant variant : Variant.values()) {
                        block(pool, db, scenario, variant, threads, Math.max(1000, blockMillis)); // warm-up
                    }
                    double[] fenced = new double[rounds];
                    double[] hand = new double[rounds];
                    double[] ratio = new double[rounds];
                    double[] fencedCpu = new double[rounds];
                    double[] handCpu = new double[rounds];
                    for (int round = 0; round < rounds; round++) {
                        boolean fencedFirst = (round & 1) == 0;
                        for (int k = 0; k < 2; k++) {
                            Variant variant = (k == 0) == fencedFirst ? Variant.FENCED : Variant.HAND_WRITTEN;
                            Block result = block(pool, db, scenario, variant, threads, blockMillis);
                            if (variant == Variant.FENCED) {
                                fenced[round] = result.opsPerSecond();
                                fencedCpu[round] = result.cpuNanosPerOp();
                            } else {
                                hand[round] = result.opsPerSecond();
                                handCpu[round] = result.cpuNanosPerOp();
                            }
                        }
                        ratio[round] = fenced[round] / hand[round];
                    }
                    double[] sorted = ratio.clone();
                    Arrays.sort(sorted);
                    System.out.printf(Locale.ROOT, "%-8s  %7d  %21.0f  %27.0f  %12.3f  [%.3f, %.3f]  %.3f..%.3f"
                                    + "  |  %23.2f  %12.2f  %+10.2f%n",
                            scenario, threads, median(fenced), median(hand), median(ratio),
                            sorted[rounds / 4], sorted[(3 * rounds) / 4], sorted[0], sorted[rounds - 1],
                            median(fencedCpu) / 1e3, median(handCpu) / 1e3,
                            (median(fencedCpu) - median(handCpu)) / 1e3);
                }
            }
        } finally {
            pool.shutdownNow();
            db.close();
        }
    }

    /** Runs one variant with {@code threads} threads for {@code millis}. */
    private static Block block(ExecutorService pool, PostgresBenchmark.Database db, Scenario scenario, Variant variant,
                                int threads, long millis) throws Exception {
        long start = System.nanoTime();
        long deadline = start + millis * 1_000_000L;
        List<Callable<long[]>> tasks = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            tasks.add(() -> run(db, scenario, variant, deadline));
        }
        long ops = 0;
        long cpu = 0;
        for (Future<long[]> done : pool.invokeAll(tasks)) {
            ops += done.get()[0];
            cpu += done.get()[1];
        }
        return new Block(ops / ((System.nanoTime() - start) / 1e9), (double) cpu / Math.max(1, ops));
    }

    @SuppressWarnings("try") // the fence scope is used by the statements inside it
    private static long[] run(PostgresBenchmark.Database db, Scenario scenario, Variant variant, long deadline)
            throws Exception {
        String[] statuses = {"new", "paid", "shipped", "done"};
        long cpuStart = THREADS.getCurrentThreadCpuTime();
        long ops = 0;
        try (Fence.Scope scope = Fence.enter(PostgresBenchmark.FENCE)) {
            while (System.nanoTime() < deadline) {
                long id = ThreadLocalRandom.current().nextLong(1, PostgresBenchmark.ROWS + 1);
                String status = statuses[(int) (ops & 3)];
                boolean update = scenario == Scenario.UPDATE || ops % 10 == 9;
                if (variant == Variant.FENCED) {
                    if (update) {
                        PostgresBenchmark.fencedUpdate(db.fenced, status, id);
                    } else {
                        PostgresBenchmark.select(db.fenced, id);
                    }
                } else {
                    if (update) {
                        PostgresBenchmark.handWrittenUpdate(db.pool, status, id, PostgresBenchmark.FENCE);
                    } else {
                        PostgresBenchmark.select(db.pool, id);
                    }
                }
                ops++;
            }
        }
        return new long[] {ops, THREADS.getCurrentThreadCpuTime() - cpuStart};
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
