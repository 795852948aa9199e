package dev.fencing.proof;

import dev.fencing.FencingConfig;
import dev.fencing.proof.Corpus.Entry;
import dev.fencing.proof.Corpus.Target;
import dev.fencing.internal.sql.Dialect;
import dev.fencing.internal.sql.FencePlan;
import dev.fencing.internal.sql.StatementAnalyzer;
import dev.fencing.internal.sql.ZeroRowCheck;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Plans by shape (issue 18): for every text the shape rule admits, the plan the shape path gives
 * (a template analysed once, the text's literals put back) is the plan the full analysis gives,
 * database text, fence positions, parameter mapping and zero-row queries included; and every text
 * the rule excludes is analysed in full.
 */
class ShapePlanEquivalenceTest {

    private static final FencingConfig CONFIG = FencingConfig.builder().tables("orders", "payments").build();
    /** With the database guard required, some forms are sent as written: the template must keep that too. */
    private static final FencingConfig GUARDED = FencingConfig.builder().tables("orders", "payments")
            .databaseGuard(FencingConfig.Guard.REQUIRED).build();
    /** Under the {@code long} profile: five times the fuzzer's texts, twice the variations. */
    private static final boolean LONG = Boolean.getBoolean("fencing.long");
    private static final Pattern STRING = Pattern.compile("'[^'\\\\]*'");
    private static final Pattern INTEGER = Pattern.compile("(?<![\\w$.'\"`])\\d+(?![\\w.'\"`])");
    private static final String SAFE = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,:-/*%@_+=()<>!~^&|";

    /** The corpus and the fuzzer's output: each admitted text, and literal variations of it, agree with the full analysis. */
    @Test
    void shapePathGivesTheFullAnalysisPlanForTheCorpusTheFuzzerAndLiteralVariations() throws Exception {
        List<String> problems = new ArrayList<>();
        int[] counts = new int[3]; // admitted, variations admitted, excluded
        Random random = new Random(18);
        for (FencingConfig config : List.of(CONFIG, GUARDED)) {
            for (Target target : Target.values()) {
                boolean guarded = config == GUARDED;
                List<String> texts = new ArrayList<>();
                String schema = target == Target.H2 ? "PUBLIC" : "fx_schema";
                for (Entry entry : Corpus.load()) {
                    if (entry.targets().contains(target)) {
                        texts.addAll(entry.statements(schema));
                    }
                }
                SqlFuzzer fuzzer = new SqlFuzzer(18, switch (target) {
                    case PG -> SqlFuzzer.Flavor.POSTGRESQL;
                    case H2 -> SqlFuzzer.Flavor.H2;
                    case MARIA -> SqlFuzzer.Flavor.MARIADB;
                }, schema);
                for (int i = 0; i < (LONG ? 1500 : guarded ? 100 : 300); i++) {
                    texts.add(fuzzer.statement());
                }
                texts.addAll(everydayTexts());
                try (Connection h2 = target == Target.H2 ? keyedH2() : null) {
                    StatementAnalyzer analyzer = new StatementAnalyzer(config, target.dialect());
                    if (h2 != null) {
                        analyzer.learnSchema(h2); // keys: the zero-row diagnosis by key is compared too
                    }
                    for (String sql : texts) {
                        compare(analyzer, guarded ? target.tag + " guarded" : target.tag, sql, problems, counts);
                        for (int v = 0; v < (LONG ? 6 : guarded ? 1 : 3); v++) {
                            String variant = vary(sql, random);
                            if (!variant.equals(sql) && analyzer.shapePlan(variant) != null) {
                                counts[1]++;
                            }
                            compare(analyzer, guarded ? target.tag + " guarded" : target.tag, variant, problems, new int[3]);
                        }
                    }
                }
            }
        }
        System.out.println("SHAPES: " + counts[0] + " texts admitted, " + counts[1] + " literal variations admitted, "
                + counts[2] + " texts excluded, " + problems.size() + " differences");
        assertTrue(problems.isEmpty(), String.join("\n", problems.subList(0, Math.min(20, problems.size()))));
        assertTrue(counts[0] > 300 && counts[1] > 1000, "too few admitted texts: " + Arrays.toString(counts));
    }

    /** Texts whose literals could change the lexing or the decision: the rule sends each to the full analysis. */
    @Test
    void everyExcludedTextTakesTheFullAnalysis() {
        String[] excluded = {
                "UPDATE orders SET status = 'it''s' WHERE id = 1",
                "UPDATE orders SET status = 'a\\' WHERE id = 1",
                "UPDATE orders SET status = 'a$b' WHERE id = 1",
                "UPDATE orders SET status = 'a--b' WHERE id = 1",
                "UPDATE orders SET status = 'a/*b' WHERE id = 1",
                "UPDATE orders SET status = 'a*/b' WHERE id = 1",
                "UPDATE orders SET status = 'a#b' WHERE id = 1",
                "UPDATE orders SET status = 'caf\u00e9' WHERE id = 1",
                "UPDATE orders SET status = 'a\u2028b' WHERE id = 1",
                "UPDATE orders SET status = 'a\tb' WHERE id = 1",
                "UPDATE orders SET status = 'a?b' WHERE id = 1",
                "UPDATE orders SET status = '{fn x}' WHERE id = 1",
                "UPDATE orders SET status = 'orders' WHERE id = 1",
                "UPDATE orders SET status = 'PAYMENTS' WHERE id = 1",
                "UPDATE orders SET status = 'update' WHERE id = 1",
                "UPDATE orders SET status = E'paid' WHERE id = 1",
                "UPDATE orders SET status = x'00' WHERE id = 1",
                "UPDATE orders SET amount = 1e5 WHERE id = 1",
                "UPDATE orders SET amount = 0x1F WHERE id = 1",
                "UPDATE orders SET amount = 1234567890123456789012 WHERE id = 1",
                "UPDATE orders SET amount = amount WHERE id = 1; DELETE FROM orders WHERE id = 2",
                "UPDATE orders SET status = 'paid' WHERE id = 1;",
                "SELECT set_config('standard_conforming_strings', 'off', false) FROM orders",
                "SET standard_conforming_strings = off",
                "CALL p('x') ",
                "EXECUTE s_1(1, 2)",
                "PREPARE p AS UPDATE orders SET status = 'paid' WHERE id = 1",
                "DO $$ BEGIN UPDATE orders SET status = 'paid'; END $$",
                "EXPLAIN ANALYZE UPDATE orders SET status = 'paid' WHERE id = 1",
                "WITH x AS (SELECT 1) UPDATE orders SET status = 'paid' WHERE id = 1",
                "INSERT INTO orders SET id = 1, status = 'paid'",
                "UPDATE orders SET status = {fn lcase('PAID')} WHERE id = 1",
                "UPDATE orders SET status = 'paid' WHERE id = 47193052817",
                "UPDATE orders SET status = 'paid'WHERE id = 1",
                "UPDATE orders SET amount = 1.2.3 WHERE id = 1",
        };
        // MariaDB reads these as a string in double quotes and as code in a comment; elsewhere they
        // are a quoted identifier and a comment, kept in the shape as they are
        String[] mariaDbExcluded = {
                "UPDATE orders SET status = \"paid\" WHERE id = 1",
                "UPDATE orders SET status = /*! 'paid' */ 'x' WHERE id = 1",
        };
        for (Dialect dialect : Dialect.values()) {
            StatementAnalyzer analyzer = new StatementAnalyzer(CONFIG, dialect);
            List<String> texts = new ArrayList<>(List.of(excluded));
            if (dialect == Dialect.MARIADB) {
                texts.addAll(List.of(mariaDbExcluded));
            } else {
                texts.add("UPDATE orders SET status = $$paid$$ WHERE id = 1"); // a dollar-quoted string (MariaDB: a name)
            }
            for (String sql : texts) {
                assertNull(analyzer.shapePlan(sql), dialect + " admitted by the shape rule: " + sql);
                long before = analyzer.analyses();
                FencePlan plan = analyzer.plan(sql);
                if (analyzer.analyses() == before) {
                    // names no fenced table: the pre-filter passes it before any cache is asked
                    assertEquals(FencePlan.Kind.PASS_THROUGH, plan.kind(), dialect + ": " + sql);
                    continue;
                }
                assertEquals(before + 1, analyzer.analyses(), dialect + " not analysed in full: " + sql);
                assertEquals(describe(analyzer.fullAnalysis(sql)), describe(plan), dialect + ": " + sql);
            }
            assertEquals(0, analyzer.cachedShapes(), dialect + ": an excluded text made a shape template");
        }
    }

    /** 1,000 texts of one shape: one analysis; each text's own literals reach its database text and diagnosis. */
    @Test
    void oneAnalysisPerShapeAndEachTextKeepsItsOwnLiterals() throws Exception {
        try (Connection h2 = keyedH2()) {
            StatementAnalyzer analyzer = new StatementAnalyzer(CONFIG, Dialect.H2);
            analyzer.learnSchema(h2);
            long before = analyzer.analyses();
            for (int i = 0; i < 1000; i++) {
                String sql = "UPDATE orders SET status = 'paid " + i + "', amount = amount + " + (i % 7) + ".25 WHERE id = "
                        + (1_000_000 + i) + " AND status = 'pending'";
                FencePlan plan = analyzer.plan(sql);
                assertEquals(FencePlan.Kind.FENCED, plan.kind());
                assertEquals(sql, plan.sql());
                assertTrue(plan.renderWithFence(77).contains("'paid " + i + "', amount = amount + " + (i % 7) + ".25"),
                        plan.renderWithFence(77));
                ZeroRowCheck check = plan.zeroRowCheck();
                assertNotNull(check);
                assertTrue(check.query().contains("id = " + (1_000_000 + i) + " AND status = 'pending'"), check.query());
                assertNotNull(check.byKey(), "the key conjunct must be diagnosed: " + check);
                assertTrue(check.byKey().query().endsWith("WHERE id = " + (1_000_000 + i)), check.byKey().query());
            }
            assertEquals(1, analyzer.analyses() - before, "one analysis for one shape");
            assertEquals(1, analyzer.cachedShapes());
        }
    }

    private static void compare(StatementAnalyzer analyzer, String target, String sql, List<String> problems, int[] counts) {
        FencePlan byShape = analyzer.shapePlan(sql);
        if (byShape == null) {
            counts[2]++;
            return;
        }
        counts[0]++;
        String expected = describe(analyzer.fullAnalysis(sql));
        String actual = describe(byShape);
        if (!expected.equals(actual)) {
            problems.add(target + ": " + sql + "\n  full:  " + expected + "\n  shape: " + actual);
        }
    }

    /** Everything a plan tells the pipeline, the database's text rendered with a fence included. */
    private static String describe(FencePlan plan) {
        StringBuilder text = new StringBuilder().append(plan.kind()).append(" | ").append(plan.sql()).append(" | ")
                .append(plan.fencedTable()).append(" | ").append(plan.preparedSql()).append(" | ")
                .append(plan.renderWithFence(9_000_000_001L)).append(" | ").append(Arrays.toString(plan.fenceIndexes()));
        for (int i = 1; i <= plan.parameterCount(); i++) {
            text.append(' ').append(plan.databaseIndex(i));
        }
        ZeroRowCheck check = plan.zeroRowCheck();
        text.append(" | ").append(check == null ? "no diagnosis" : check + " " + Arrays.toString(check.queryParameters()))
                .append(" | ").append(plan.countIsTheFencedWrite()).append(plan.writesEpochTable())
                .append(plan.controlsTransaction()).append(plan.changesSchema()).append(plan.checkedByGuard())
                .append(" | ").append(plan.kind() == FencePlan.Kind.REFUSED ? plan.refusalReason() : "");
        return text.toString();
    }

    /** {@code sql} with its single-quoted strings and plain integers replaced by random ones. */
    static String vary(String sql, Random random) {
        String strings = replace(STRING, sql, () -> {
            StringBuilder s = new StringBuilder("'");
            for (int n = random.nextInt(12); n > 0; n--) {
                s.append(SAFE.charAt(random.nextInt(SAFE.length())));
            }
            return s.append('\'').toString();
        });
        return replace(INTEGER, strings, () -> random.nextInt(4) == 0 ? random.nextInt(10) + "." + random.nextInt(1000)
                : Long.toString(Math.abs(random.nextLong()) % (random.nextBoolean() ? 100 : 1_000_000_000_000L)));
    }

    private static String replace(Pattern pattern, String text, java.util.function.Supplier<String> value) {
        Matcher matcher = pattern.matcher(text);
        StringBuilder out = new StringBuilder();
        while (matcher.find()) {
            matcher.appendReplacement(out, Matcher.quoteReplacement(value.get()));
        }
        matcher.appendTail(out);
        return out.toString();
    }

    private static List<String> everydayTexts() {
        return List.of(
                "UPDATE orders SET status = 'paid', amount = amount + 5 WHERE id = 1000042",
                "UPDATE orders o SET status = 'paid' WHERE o.id = 7 AND o.status = 'pending'",
                "DELETE FROM orders WHERE id = 99",
                "DELETE FROM orders WHERE id IN (1, 2, 3) AND status <> 'open'",
                "INSERT INTO orders (id, status, amount) VALUES (1, 'new', 10.50)",
                "INSERT INTO orders (id, status, amount) VALUES (1, 'new', 10), (2, 'new', 20)",
                "INSERT INTO payments (id, order_id) SELECT 5, id FROM orders WHERE status = 'paid'",
                "SELECT id, status FROM orders WHERE id = 5 AND amount > 10.5",
                "SELECT * FROM orders o JOIN payments p ON p.order_id = o.id WHERE o.id = 3 LIMIT 10",
                "UPDATE payments SET amount = 3 WHERE order_id = (SELECT id FROM orders WHERE status = 'x' LIMIT 1)",
                "update orders set status='a-b' where id=1 and status between 'a' and 'z'",
                "UPDATE orders SET status = 'paid' WHERE id = 1 OR id = 2",
                "UPDATE orders SET amount = -5 WHERE id = - 3",
                // multi-row inserts whose rows share one shape: planned from templates of one to three rows
                "INSERT INTO orders (id, status, amount) VALUES (1, 'new', 10), (2, 'new', 20), (3, 'new', 30), (4, 'x', 40)",
                "INSERT INTO orders (id, status) VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e') RETURNING id",
                "INSERT INTO orders (id, status) VALUES (1, 'a'),(2, 'b'),(3, 'c'),(4, 'd') ON CONFLICT (id) DO UPDATE"
                        + " SET status = EXCLUDED.status",
                "INSERT INTO orders (id, status) VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd') ON CONFLICT (id) DO NOTHING",
                "INSERT INTO orders (id, status) VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd') ON DUPLICATE KEY UPDATE"
                        + " status = VALUES(status)",
                "INSERT INTO payments (id, order_id, amount) VALUES (1, (SELECT id FROM orders WHERE status = 'x'), 5),"
                        + " (2, (SELECT id FROM orders WHERE status = 'y'), 6), (3, (SELECT id FROM orders WHERE status = 'z'), 7)");
    }

    private static Connection keyedH2() throws Exception {
        Connection h2 = DriverManager.getConnection("jdbc:h2:mem:shapes_" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        try (Statement s = h2.createStatement()) {
            s.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(40), amount DECIMAL(12,2), "
                    + CONFIG.column() + " BIGINT)");
            s.execute("CREATE TABLE payments (id BIGINT PRIMARY KEY, order_id BIGINT, amount INT, " + CONFIG.column()
                    + " BIGINT)");
        }
        return h2;
    }
}
