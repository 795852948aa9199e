package dev.fencing.bench.memory;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.bench.stub.StubDataSource;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.internal.sql.Dialect;
import dev.fencing.internal.sql.FencePlan;
import dev.fencing.internal.sql.StatementAnalyzer;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.Locale;

/**
 * Goal 5, first half: the analysis cache stays within its bound under many distinct statement
 * texts (an application that builds SQL with literals in it, say). Analyses {@code N} distinct
 * fenced texts, first through a {@link StatementAnalyzer} (whose cache size can be read), then
 * through a {@link FencingDataSource} over the stub driver (the path an application takes), and
 * reports the cache size and the heap in use after a full GC at ten checkpoints.
 *
 * <pre>java -Xmx256m -cp benchmarks.jar dev.fencing.bench.memory.PlanCacheBound [N] [planCacheSize]</pre>
 *
 * Exits with status 1 when the cache grew past its bound or the heap kept growing.
 */
public final class PlanCacheBound {

    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

    private PlanCacheBound() {
    }

    @SuppressWarnings("try") // the fence scope is used by the statements inside it
    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int bound = args.length > 1 ? Integer.parseInt(args[1]) : FencingConfig.builder().tables("x").build()
                .planCacheSize();
        FencingConfig config = FencingConfig.builder().tables("orders").planCacheSize(bound).build();
        System.out.printf(Locale.ROOT, "distinct texts: %d, plan cache bound: %d, max heap: %d MiB%n", n, bound,
                Runtime.getRuntime().maxMemory() >> 20);
        long baseline = usedHeapAfterGc();
        System.out.printf(Locale.ROOT, "heap in use before: %.1f MiB%n", mib(baseline));

        boolean ok = true;
        System.out.println();
        System.out.println("StatementAnalyzer.plan(text i), i = 1..N");
        System.out.println("      texts  cached plans   heap MiB  us/analysis");
        StatementAnalyzer analyzer = new StatementAnalyzer(config, Dialect.POSTGRESQL);
        long maxCached = 0;
        long heapAtFirstFull = -1;
        long lastHeap = 0;
        long start = System.nanoTime();
        int step = Math.max(1, n / 10);
        for (int i = 1; i <= n; i++) {
            FencePlan plan = analyzer.plan(text(i));
            if (plan.kind() != FencePlan.Kind.FENCED) {
                throw new IllegalStateException("not fenced: " + plan);
            }
            maxCached = Math.max(maxCached, analyzer.cachedPlans());
            if (i % step == 0) {
                long elapsed = System.nanoTime() - start;
                long heap = usedHeapAfterGc();
                System.out.printf(Locale.ROOT, "%11d  %12d  %9.1f  %11.1f%n", i, analyzer.cachedPlans(),
                        mib(heap), elapsed / 1e3 / step);
                if (heapAtFirstFull < 0 && i >= bound) {
                    heapAtFirstFull = heap;
                }
                lastHeap = heap;
                start = System.nanoTime();
            }
        }
        System.out.printf(Locale.ROOT, "largest cache size seen: %d (bound %d)%n", maxCached, bound);
        if (maxCached > bound) {
            System.out.println("FAIL: the cache grew past its bound");
            ok = false;
        }
        ok &= heapFlat(heapAtFirstFull, lastHeap);
        analyzer = null;

        System.out.println();
        System.out.println("FencingDataSource (stub driver): prepareStatement(text i) + executeUpdate, i = 1..N");
        System.out.println("      texts   heap MiB  us/statement");
        heapAtFirstFull = -1;
        try (FencingDataSource dataSource = new FencingDataSource(new StubDataSource(), config);
             Fence.Scope scope = Fence.enter(7);
             Connection connection = dataSource.getConnection()) {
            start = System.nanoTime();
            for (int i = 1; i <= n; i++) {
                try (PreparedStatement update = connection.prepareStatement(text(i))) {
                    update.setString(1, "paid");
                    update.setLong(2, i);
                    update.executeUpdate();
                }
                if (i % step == 0) {
                    long elapsed = System.nanoTime() - start;
                    long heap = usedHeapAfterGc();
                    System.out.printf(Locale.ROOT, "%11d  %9.1f  %12.1f%n", i, mib(heap), elapsed / 1e3 / step);
                    if (heapAtFirstFull < 0 && i >= bound) {
                        heapAtFirstFull = heap;
                    }
                    lastHeap = heap;
                    start = System.nanoTime();
                }
            }
        }
        ok &= heapFlat(heapAtFirstFull, lastHeap);
        System.out.println();
        System.out.println(ok ? "PASS: the plan cache stayed within its bound" : "FAIL");
        System.exit(ok ? 0 : 1);
    }

    /** Distinct texts: the literal changes, as in SQL built by string concatenation. */
    static String text(int i) {
        return "UPDATE orders SET status = ? WHERE id = ? AND tenant_id = " + i;
    }

    /** Once the cache is full, the heap may only wobble (GC timing), not keep growing. */
    private static boolean heapFlat(long atFull, long atEnd) {
        if (atFull < 0) {
            System.out.println("(fewer texts than the bound: heap growth not judged)");
            return true;
        }
        double growth = mib(atEnd - atFull);
        System.out.printf(Locale.ROOT, "heap growth after the cache filled: %.1f MiB%n", growth);
        if (growth > 16) {
            System.out.println("FAIL: the heap kept growing after the cache was full");
            return false;
        }
        return true;
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return MEMORY.getHeapMemoryUsage().getUsed();
    }

    private static double mib(long bytes) {
        return bytes / 1024.0 / 1024.0;
    }
}
