package dev.fencing.bench.analysis;

import dev.fencing.FencingConfig;
import dev.fencing.internal.sql.AnalyzerOptions;
import dev.fencing.internal.sql.Dialect;
import dev.fencing.internal.sql.StatementAnalyzer;
import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.StringProvider;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.LongFunction;

/**
 * Issues 18 and 32, as a same-run ratio that a loaded machine can resolve: the full analysis of a
 * new text ({@link StatementAnalyzer#fullAnalysis}, what the first text of a shape pays), with the
 * recognizer of common shapes on (production) and off (every statement read by JSqlParser),
 * against JSqlParser's parser called directly on the same text, in interleaved rounds, each timed
 * in the thread's own CPU time. Prints, per statement (the five of {@link Statements}, then three
 * Hibernate-style ones), the median over the rounds of (analysis CPU / parse CPU) for both, and
 * the median of those medians over the five {@link Statements}.
 *
 * <pre>java -cp benchmarks.jar dev.fencing.bench.analysis.FirstAnalysisRatio [rounds] [opsPerRound]</pre>
 */
public final class FirstAnalysisRatio {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** A statement whose text changes with {@code n} (so that no cache has seen it). */
    private record Text(String name, LongFunction<String> text) {
    }

    private FirstAnalysisRatio() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        int ops = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        FencingConfig config = FencingConfig.builder().tables("orders").build();
        StatementAnalyzer recognizing = new StatementAnalyzer(config, Dialect.POSTGRESQL);
        StatementAnalyzer parsing = new StatementAnalyzer(config, Dialect.POSTGRESQL,
                AnalyzerOptions.CHECKED.withoutRecognizer());
        List<Text> texts = new ArrayList<>();
        for (Statements statement : Statements.values()) {
            texts.add(new Text(statement.name(), statement::text));
        }
        texts.add(new Text("ORM_UPDATE", n -> "update orders set amount=?,status=?,version=? where id=? and version=" + n));
        texts.add(new Text("ORM_INSERT", n -> "insert into orders (amount,customer_id,status,version,id) values (?,?,?,?,"
                + n + ")"));
        texts.add(new Text("ORM_DELETE", n -> "delete from orders where id=? and version=" + n));
        long n = 0;
        for (int warm = 0; warm < 3; warm++) {
            for (Text text : texts) {
                for (int i = 0; i < ops * 3; i++) {
                    recognizing.fullAnalysis(text.text().apply(++n));
                    parsing.fullAnalysis(text.text().apply(++n));
                    new CCJSqlParser(new StringProvider(text.text().apply(++n))).Statement();
                }
            }
        }
        System.out.println("statement     recognizer us  parser us  parse us  recognizer/parse  parser/parse"
                + "  (medians of " + rounds + " rounds)");
        double[] onRatios = new double[Statements.values().length];
        double[] offRatios = new double[Statements.values().length];
        for (int s = 0; s < texts.size(); s++) {
            Text text = texts.get(s);
            double[][] samples = new double[5][rounds];
            for (int r = 0; r < rounds; r++) {
                long t0 = THREADS.getCurrentThreadCpuTime();
                for (int i = 0; i < ops; i++) {
                    recognizing.fullAnalysis(text.text().apply(++n));
                }
                long t1 = THREADS.getCurrentThreadCpuTime();
                for (int i = 0; i < ops; i++) {
                    parsing.fullAnalysis(text.text().apply(++n));
                }
                long t2 = THREADS.getCurrentThreadCpuTime();
                for (int i = 0; i < ops; i++) {
                    new CCJSqlParser(new StringProvider(text.text().apply(++n))).Statement();
                }
                long t3 = THREADS.getCurrentThreadCpuTime();
                samples[0][r] = (t1 - t0) / 1e3 / ops;
                samples[1][r] = (t2 - t1) / 1e3 / ops;
                samples[2][r] = (t3 - t2) / 1e3 / ops;
                samples[3][r] = (double) (t1 - t0) / (t3 - t2);
                samples[4][r] = (double) (t2 - t1) / (t3 - t2);
            }
            System.out.printf(Locale.ROOT, "%-12s  %13.1f  %9.1f  %8.1f  %16.2f  %12.2f%n", text.name(),
                    median(samples[0]), median(samples[1]), median(samples[2]), median(samples[3]), median(samples[4]));
            if (s < onRatios.length) {
                onRatios[s] = median(samples[3]);
                offRatios[s] = median(samples[4]);
            }
        }
        System.out.printf(Locale.ROOT, "median of the %d Statements: recognizer/parse %.2f, parser/parse %.2f%n",
                onRatios.length, median(onRatios), median(offRatios));
        System.out.println("statements the recognizer read: " + recognizing.recognizedStatements()
                + ", the parser-only analyzer: " + parsing.recognizedStatements());
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
