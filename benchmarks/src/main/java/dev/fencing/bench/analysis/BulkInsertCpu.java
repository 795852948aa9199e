package dev.fencing.bench.analysis;

import dev.fencing.FencingConfig;
import dev.fencing.internal.sql.Dialect;
import dev.fencing.internal.sql.FencePlan;
import dev.fencing.internal.sql.LexingProbe;
import dev.fencing.internal.sql.StatementAnalyzer;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Locale;

/**
 * Issue 29, build 4: a 16,000-row literal {@code INSERT .. VALUES} (what a bulk loader sends), in
 * the thread's own CPU time: lexed (the lexer and the backslash test of every token, which read
 * the rest of the text from every string before), and planned end to end on a new text each round
 * (the shape path by rows: lexing, the shape's checks, the plan repeated row by row; the three
 * templates are analysed once, in the warm-up). Prints the median over the rounds per dialect.
 *
 * <pre>java -cp benchmarks.jar dev.fencing.bench.analysis.BulkInsertCpu [rounds] [rows]</pre>
 */
public final class BulkInsertCpu {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private BulkInsertCpu() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 21;
        int rows = args.length > 1 ? Integer.parseInt(args[1]) : 16_000;
        System.out.println("dialect      chars     lex ms CPU  plan ms CPU  (median of " + rounds + " rounds, " + rows
                + " rows)");
        for (Dialect dialect : new Dialect[] {Dialect.POSTGRESQL, Dialect.MARIADB, Dialect.H2}) {
            StatementAnalyzer analyzer = new StatementAnalyzer(FencingConfig.builder().tables("orders").build(), dialect);
            double[] lex = new double[rounds];
            double[] plan = new double[rounds];
            int length = 0;
            for (int round = -5; round < rounds; round++) {
                String sql = insert(rows, round + 10);
                length = sql.length();
                long t0 = THREADS.getCurrentThreadCpuTime();
                LexingProbe.lex(sql, dialect);
                long t1 = THREADS.getCurrentThreadCpuTime();
                FencePlan planned = analyzer.plan(sql);
                long t2 = THREADS.getCurrentThreadCpuTime();
                if (planned.kind() != FencePlan.Kind.FENCED) {
                    throw new IllegalStateException(dialect + ": not fenced: " + planned.kind());
                }
                if (round >= 0) {
                    lex[round] = (t1 - t0) / 1e6;
                    plan[round] = (t2 - t1) / 1e6;
                }
            }
            System.out.printf(Locale.ROOT, "%-11s  %7d  %10.1f  %11.1f   (analyses: %d)%n", dialect, length, median(lex),
                    median(plan), analyzer.analyses());
        }
    }

    /** {@code rows} rows of literals, each round's values its own (a text no cache has seen). */
    static String insert(int rows, int round) {
        StringBuilder sql = new StringBuilder("INSERT INTO orders (id, status, amount, note) VALUES ");
        for (int i = 0; i < rows; i++) {
            sql.append(i == 0 ? "" : ", ").append('(').append(round * 1_000_000L + i).append(", 'new', ")
                    .append(i % 1000).append('.').append(round % 100).append(", 'row ").append(i).append("')");
        }
        return sql.toString();
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
