package dev.fencing.bench.analysis;

import dev.fencing.FencingConfig;
import dev.fencing.internal.sql.Dialect;
import dev.fencing.internal.sql.StatementAnalyzer;
import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.StringProvider;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Locale;

/**
 * Issue 18, goal 3, as a same-run ratio that a loaded machine can resolve: the full analysis of a
 * new text ({@link StatementAnalyzer#fullAnalysis}, what the first text of a shape pays) against
 * JSqlParser's parser called directly on the same text, in interleaved rounds, each timed in the
 * thread's own CPU time. Prints, per statement of {@link Statements}, the median over the rounds
 * of (analysis CPU / parse CPU).
 *
 * <pre>java -cp benchmarks.jar dev.fencing.bench.analysis.FirstAnalysisRatio [rounds] [opsPerRound]</pre>
 */
public final class FirstAnalysisRatio {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private FirstAnalysisRatio() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        int ops = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        StatementAnalyzer analyzer = new StatementAnalyzer(FencingConfig.builder().tables("orders").build(),
                Dialect.POSTGRESQL);
        long n = 0;
        for (int warm = 0; warm < 3; warm++) {
            for (Statements statement : Statements.values()) {
                for (int i = 0; i < ops * 3; i++) {
                    analyzer.fullAnalysis(statement.text(++n));
                    new CCJSqlParser(new StringProvider(statement.text(++n))).Statement();
                }
            }
        }
        System.out.println("statement      analysis us  parse us  ratio (median of " + rounds + " rounds)");
        for (Statements statement : Statements.values()) {
            double[] ratios = new double[rounds];
            double[] analysisMicros = new double[rounds];
            double[] parseMicros = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                long t0 = THREADS.getCurrentThreadCpuTime();
                for (int i = 0; i < ops; i++) {
                    analyzer.fullAnalysis(statement.text(++n));
                }
                long t1 = THREADS.getCurrentThreadCpuTime();
                for (int i = 0; i < ops; i++) {
                    new CCJSqlParser(new StringProvider(statement.text(++n))).Statement();
                }
                long t2 = THREADS.getCurrentThreadCpuTime();
                analysisMicros[r] = (t1 - t0) / 1e3 / ops;
                parseMicros[r] = (t2 - t1) / 1e3 / ops;
                ratios[r] = (double) (t1 - t0) / (t2 - t1);
            }
            System.out.printf(Locale.ROOT, "%-12s  %11.1f  %8.1f  %5.2f%n", statement, median(analysisMicros),
                    median(parseMicros), median(ratios));
        }
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
