package dev.fencing.bench.memory;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.bench.stub.StubDataSource;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.internal.sql.Dialect;
import dev.fencing.internal.sql.FencePlan;
import dev.fencing.internal.sql.StatementAnalyzer;

import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Locale;

/**
 * Issue 18, the churn goal: {@code N} distinct literal texts of {@code S} shapes (a column name
 * makes the shape, the literals change every time), first through a {@link StatementAnalyzer}
 * (counting full analyses), then through a {@link FencingDataSource} over the stub driver with
 * plain statements. Reports the heap in use after a full GC after the first 1,000 texts and at
 * the end.
 *
 * <pre>java -Xmx256m -cp benchmarks.jar dev.fencing.bench.memory.ShapeChurn [N] [S]</pre>
 *
 * Exits with status 1 when more than S texts were analysed in full or the heap grew by more than 10 %.
 */
public final class ShapeChurn {

    private ShapeChurn() {
    }

    @SuppressWarnings("try")
    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int shapes = args.length > 1 ? Integer.parseInt(args[1]) : 50;
        FencingConfig config = FencingConfig.builder().tables("orders").build();
        boolean ok = true;

        StatementAnalyzer analyzer = new StatementAnalyzer(config, Dialect.POSTGRESQL);
        long heapAt1000 = 0;
        long start = System.nanoTime();
        for (int i = 1; i <= n; i++) {
            FencePlan plan = analyzer.plan(text(i, shapes));
            if (plan.kind() != FencePlan.Kind.FENCED && plan.kind() != FencePlan.Kind.READ) {
                throw new IllegalStateException("not fenced: " + plan);
            }
            if (i == 1000) {
                heapAt1000 = usedHeapAfterGc();
            }
        }
        double micros = (System.nanoTime() - start) / 1e3 / n;
        long heapAtEnd = usedHeapAfterGc();
        System.out.printf(Locale.ROOT, "StatementAnalyzer: %d texts of %d shapes, %d full analyses, %d shape templates, "
                        + "%d cached texts, %.2f us/text; heap after 1,000: %.2f MiB, after %d: %.2f MiB (%+.1f %%)%n",
                n, shapes, analyzer.analyses(), analyzer.cachedShapes(), analyzer.cachedPlans(), micros, mib(heapAt1000),
                n, mib(heapAtEnd), 100.0 * (heapAtEnd - heapAt1000) / heapAt1000);
        ok &= analyzer.analyses() <= shapes;
        ok &= heapAtEnd <= heapAt1000 * 1.10;
        analyzer = null;

        try (FencingDataSource dataSource = new FencingDataSource(new StubDataSource(), config);
             Fence.Scope scope = Fence.enter(7);
             Connection connection = dataSource.getConnection();
             Statement statement = connection.createStatement()) {
            start = System.nanoTime();
            for (int i = 1; i <= n; i++) {
                statement.execute(text(i, shapes));
                if (i == 1000) {
                    heapAt1000 = usedHeapAfterGc();
                    start = System.nanoTime();
                }
            }
            micros = (System.nanoTime() - start) / 1e3 / (n - 1000);
            heapAtEnd = usedHeapAfterGc();
            System.out.printf(Locale.ROOT, "FencingDataSource (stub, plain Statement): %.2f us/statement; heap after 1,000: "
                            + "%.2f MiB, after %d: %.2f MiB (%+.1f %%)%n", micros, mib(heapAt1000), n, mib(heapAtEnd),
                    100.0 * (heapAtEnd - heapAt1000) / heapAt1000);
            ok &= heapAtEnd <= heapAt1000 * 1.10;
        }
        System.out.println(ok ? "PASS" : "FAIL");
        System.exit(ok ? 0 : 1);
    }

    /** Text {@code i}: shape {@code i % shapes} (its column name and statement kind), literals from {@code i}. */
    static String text(int i, int shapes) {
        int shape = i % shapes;
        String column = "c" + shape;
        return switch (shape % 4) {
            case 0 -> "UPDATE orders SET status = 'paid " + i + "', " + column + " = " + column + " + " + (i % 97)
                    + " WHERE id = " + (1_000_000 + i);
            case 1 -> "DELETE FROM orders WHERE id = " + i + " AND " + column + " < " + (i % 13) + ".5";
            case 2 -> "INSERT INTO orders (id, status, " + column + ") VALUES (" + i + ", 'new', " + (i * 7L) + ")";
            default -> "SELECT id, " + column + " FROM orders WHERE id = " + i + " AND status = 'open-" + (i % 5) + "'";
        };
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static double mib(long bytes) {
        return bytes / 1024.0 / 1024.0;
    }
}
