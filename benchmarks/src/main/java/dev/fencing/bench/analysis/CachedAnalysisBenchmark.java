package dev.fencing.bench.analysis;

import dev.fencing.FencingConfig;
import dev.fencing.internal.sql.Dialect;
import dev.fencing.internal.sql.FencePlan;
import dev.fencing.internal.sql.StatementAnalyzer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Goal 2, second half: the pre-filter. A statement that names no fenced table is passed through
 * without parsing or a cache lookup (goal: under 1 µs). Beside it, the cache hit of a fenced text
 * and the pre-filter over a long read that names no fenced table.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(2)
public class CachedAnalysisBenchmark {

    static final String UNFENCED = "UPDATE customers SET name = ? WHERE id = ?";
    static final String FENCED = "UPDATE orders SET status = ? WHERE id = ?";
    /** A reporting query of about 600 characters that names no fenced table. */
    static final String LONG_UNFENCED_SELECT = "SELECT c.id, c.name, c.email, c.created_at, a.street, a.city, a.zip, "
            + "a.country, s.plan, s.renewed_at, s.seats, count(i.id) AS invoices, sum(i.total) AS billed, "
            + "max(i.issued_at) AS last_invoice FROM customers c JOIN addresses a ON a.customer_id = c.id "
            + "LEFT JOIN subscriptions s ON s.customer_id = c.id AND s.active LEFT JOIN invoices i "
            + "ON i.customer_id = c.id AND i.issued_at > now() - interval '1 year' WHERE c.region = ? "
            + "AND c.deleted_at IS NULL AND (s.plan IN ('pro', 'team', 'enterprise') OR s.plan IS NULL) "
            + "GROUP BY c.id, c.name, c.email, c.created_at, a.street, a.city, a.zip, a.country, s.plan, "
            + "s.renewed_at, s.seats HAVING count(i.id) > ? ORDER BY billed DESC NULLS LAST LIMIT 100";

    private StatementAnalyzer analyzer;
    private String unfenced;
    private String fenced;
    private String longUnfenced;

    @Setup
    public void setUp() {
        analyzer = new StatementAnalyzer(FencingConfig.builder().tables("orders").build(), Dialect.POSTGRESQL);
        // Fresh copies, so that no identity shortcut of an interned literal is measured.
        unfenced = new String(UNFENCED.toCharArray());
        fenced = new String(FENCED.toCharArray());
        longUnfenced = new String(LONG_UNFENCED_SELECT.toCharArray());
        expect(unfenced, FencePlan.Kind.PASS_THROUGH);
        expect(longUnfenced, FencePlan.Kind.PASS_THROUGH);
        expect(fenced, FencePlan.Kind.FENCED);
    }

    private void expect(String sql, FencePlan.Kind kind) {
        FencePlan plan = analyzer.plan(sql);
        if (plan.kind() != kind) {
            throw new IllegalStateException(sql + ": expected " + kind + ", got " + plan);
        }
    }

    /** The pre-filter: a write that names no fenced table (goal: under 1 µs). */
    @Benchmark
    public FencePlan preFilterUnfencedUpdate() {
        return analyzer.plan(unfenced);
    }

    /** The pre-filter over a 600-character SELECT that names no fenced table. */
    @Benchmark
    public FencePlan preFilterLongSelect() {
        return analyzer.plan(longUnfenced);
    }

    /** A fenced text analysed before: pre-filter, then the plan cache (hash of the text, lookup). */
    @Benchmark
    public FencePlan cachedFencedUpdate() {
        return analyzer.plan(fenced);
    }
}
