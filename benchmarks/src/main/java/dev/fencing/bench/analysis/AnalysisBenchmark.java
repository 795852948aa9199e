package dev.fencing.bench.analysis;

import dev.fencing.FencingConfig;
import dev.fencing.internal.sql.Dialect;
import dev.fencing.internal.sql.FencePlan;
import dev.fencing.internal.sql.StatementAnalyzer;
import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.parser.ParseException;
import net.sf.jsqlparser.parser.StringProvider;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.statement.Statement;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Goal 2: the first analysis of a statement text (a plan-cache miss: every operation builds a
 * text no cache has seen) against JSqlParser's own parse of the same string, the
 * {@code CCJSqlParserUtil.parse} that most users call (it starts a thread per call to enforce a
 * timeout) and the parser called directly. The analysis lexes the text, parses it with
 * JSqlParser, locates the writes and splices the check in, so it costs at least a direct parse.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(2)
public class AnalysisBenchmark {

    @Param({"UPDATE", "INSERT", "UPSERT", "DELETE", "UPDATE_FROM"})
    public Statements statement;

    private StatementAnalyzer analyzer;
    private long n;

    @Setup
    public void setUp() {
        // The smallest cache the configuration allows: misses evict, so the cache stays small.
        analyzer = new StatementAnalyzer(FencingConfig.builder().tables("orders").planCacheSize(16).build(),
                Dialect.POSTGRESQL);
        FencePlan plan = analyzer.plan(statement.text(0));
        if (plan.kind() != FencePlan.Kind.FENCED) {
            throw new IllegalStateException(statement + " is not fenced: " + plan);
        }
    }

    /**
     * A text no cache has seen, through {@code plan}: since issue 18 its shape is known after the
     * first operation, so this is a shape hit (lex, look up, put the literals back).
     */
    @Benchmark
    public FencePlan fencingFirstAnalysis() {
        return analyzer.plan(statement.text(++n));
    }

    /** The full analysis of a new text (what the first text of a shape pays): lex, parse, locate, splice, prove. */
    @Benchmark
    public FencePlan fencingFullAnalysis() {
        return analyzer.fullAnalysis(statement.text(++n));
    }

    /** JSqlParser 5.3 as most callers use it: a new thread per call to enforce its timeout. */
    @Benchmark
    public Statement jsqlparserUtilParse() throws JSQLParserException {
        return CCJSqlParserUtil.parse(statement.text(++n));
    }

    /** JSqlParser 5.3 called directly on the calling thread (no timeout). */
    @Benchmark
    public Statement jsqlparserDirect() throws ParseException {
        return new CCJSqlParser(new StringProvider(statement.text(++n))).Statement();
    }

    /** What building the unique text alone costs (subtract from the above if it matters). */
    @Benchmark
    public String textOnly() {
        return statement.text(++n);
    }
}
