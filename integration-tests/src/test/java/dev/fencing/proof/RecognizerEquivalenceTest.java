package dev.fencing.proof;

import dev.fencing.FencingConfig;
import dev.fencing.internal.sql.AnalyzerOptions;
import dev.fencing.internal.sql.FencePlan;
import dev.fencing.internal.sql.StatementAnalyzer;
import dev.fencing.proof.Corpus.Target;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The recognizer of common shapes (issue 32): for every text, the plan with the recognizer on is
 * the plan with every statement read by JSqlParser, field by field ({@link PlanDump#describe}:
 * kind, table, spliced and rendered text, fence and parameter indexes, zero-row diagnosis, flags,
 * refusal message), both by the full analysis and through the analyzer's caches and shapes. The
 * texts: the plan dump's (bypass corpus, fuzzer, every test's SQL), generated ORM-style statements
 * (names, quoting, keywords as names, the fence column, literals, spacing), and literal variations
 * of all of them; under the plan dump's four configurations (row, epoch, guarded, strict) and the
 * three dialects. And the recognizer must actually serve: every Hibernate-style statement below is
 * read by it, so that a recognizer that silently accepts nothing fails here.
 */
class RecognizerEquivalenceTest {

    private static final AnalyzerOptions PARSER_ONLY = AnalyzerOptions.CHECKED.withoutRecognizer();
    private static final boolean LONG = Boolean.getBoolean("fencing.long");
    /**
     * The default build compares every fourth plan-dump text here (-Plong: all): PlanDumpTest holds
     * every one of them, read with the recognizer on, to the baseline written before it existed.
     */
    private static final int CORPUS_SAMPLE = 4;

    @Test
    void theRecognizersPlansAreTheFullAnalysisPlans() throws Exception {
        List<String> problems = new ArrayList<>();
        long texts = 0;
        long served = 0;
        Random random = new Random(32);
        for (Target target : Target.values()) {
            String schema = PlanDump.schemaOf(target);
            List<String> corpus = withVariations(everyNth(PlanDump.texts(target), LONG ? 1 : CORPUS_SAMPLE), random);
            List<String> orm = new ArrayList<>(hibernateStyle(target));
            OrmTexts generator = new OrmTexts(new Random(3200 + target.ordinal()), target);
            for (int i = 0; i < (LONG ? 20_000 : 1_500); i++) {
                orm.add(generator.statement());
            }
            orm = withVariations(orm, random);
            for (Map.Entry<String, FencingConfig> config : PlanDump.configurations(schema).entrySet()) {
                try (Connection h2 = target == Target.H2 ? PlanDump.keyedH2(config.getValue()) : null) {
                    StatementAnalyzer on = new StatementAnalyzer(config.getValue(), target.dialect());
                    StatementAnalyzer off = new StatementAnalyzer(config.getValue(), target.dialect(), PARSER_ONLY);
                    if (h2 != null) {
                        on.learnSchema(h2);
                        off.learnSchema(h2);
                    }
                    String where = config.getKey() + " " + target.tag;
                    for (String sql : corpus) {
                        compare(where + " full", sql, on.fullAnalysis(sql), off.fullAnalysis(sql), problems);
                        texts++;
                    }
                    // the ORM texts also through the caches and plans by shape (templates read by the recognizer)
                    for (String sql : orm) {
                        compare(where + " full", sql, on.fullAnalysis(sql), off.fullAnalysis(sql), problems);
                        compare(where + " plan", sql, on.plan(sql), off.plan(sql), problems);
                        texts++;
                    }
                    served += on.recognizedStatements();
                    assertEquals(0, off.recognizedStatements(), where + ": the recognizer read with it off");
                }
            }
        }
        System.out.println("RECOGNIZER: " + texts + " texts x configurations, " + served
                + " statements read by the recognizer, " + problems.size() + " differences");
        assertTrue(problems.isEmpty(), problems.size() + " differences:\n"
                + String.join("\n", problems.subList(0, Math.min(12, problems.size()))));
        // about 2,000 in the default build's sample, 3,400 over the whole dump (with -Plong far more)
        assertTrue(served > 1_500, "too few statements read by the recognizer: " + served);
    }

    /** Every Hibernate-style statement is read by the recognizer (row mode), fenced, as JSqlParser's reading has it. */
    @Test
    void theRecognizerServesHibernateStyleStatements() {
        for (Target target : Target.values()) {
            FencingConfig config = PlanDump.configurations(PlanDump.schemaOf(target)).get("row");
            StatementAnalyzer on = new StatementAnalyzer(config, target.dialect());
            StatementAnalyzer off = new StatementAnalyzer(config, target.dialect(), PARSER_ONLY);
            for (String sql : hibernateStyle(target)) {
                long before = on.recognizedStatements();
                FencePlan plan = on.fullAnalysis(sql);
                assertEquals(before + 1, on.recognizedStatements(), target.tag + ": not recognized: " + sql);
                assertEquals(FencePlan.Kind.FENCED, plan.kind(), target.tag + ": " + sql);
                assertEquals(PlanDump.describe(off.fullAnalysis(sql)), PlanDump.describe(plan), target.tag + ": " + sql);
            }
            assertTrue(on.parsedCharacters() == 0, target.tag + ": JSqlParser parsed a recognized statement");
        }
    }

    private static List<String> everyNth(List<String> texts, int n) {
        List<String> kept = new ArrayList<>();
        for (int i = 0; i < texts.size(); i += n) {
            kept.add(texts.get(i));
        }
        return kept;
    }

    private static void compare(String where, String sql, FencePlan on, FencePlan off, List<String> problems) {
        String expected = PlanDump.describe(off);
        String actual = PlanDump.describe(on);
        if (!expected.equals(actual)) {
            problems.add(where + ": " + sql + "\n  parser:     " + expected + "\n  recognizer: " + actual);
        }
    }

    /** What Hibernate 6, Spring's JdbcTemplate and MyBatis send for plain entity writes. */
    static List<String> hibernateStyle(Target target) {
        String q = target == Target.MARIA ? "`" : "\"";
        return List.of(
                "insert into orders (amount,customer_id,status,id) values (?,?,?,?)",
                "update orders set amount=?,customer_id=?,status=? where id=?",
                "update orders set amount=?,status=?,version=? where id=? and version=?",
                "delete from orders where id=?",
                "delete from orders where id=? and version=?",
                "insert into payments (amount,order_id,id) values (?,?,?)",
                "update payments set amount=?,order_id=? where id=?",
                "UPDATE orders SET status = ?, amount = ? WHERE id = ?",
                "INSERT INTO orders (id, status, amount) VALUES (?, ?, ?), (?, ?, ?)",
                "DELETE FROM orders WHERE id = ? AND status <> ?",
                "UPDATE orders SET status = 'paid' WHERE id = 42",
                "INSERT INTO orders (id, status, amount) VALUES (7, 'new', 10.50)",
                "update " + q + "orders" + q + " set " + q + "status" + q + " = ? where " + q + "id" + q + " = ?",
                "UPDATE orders\n   SET status = ?\n WHERE id = ?\n   AND amount >= ?");
    }

    /**
     * ORM-style statements, some of the recognizer's shapes and some just beside them: plain,
     * quoted and keyword names, the fence column, every comparison, values of every kind, spacing
     * and case varied.
     */
    private static final class OrmTexts {
        private static final String[] TABLES = {"orders", "payments", "customers", "ORDERS", "Orders", "orders_archive"};
        private static final String[] COLUMNS = {"id", "status", "amount", "customer_id", "version", "note",
                "last_fence", "LAST_FENCE", "name", "type", "date", "value", "key", "user", "_x1", "a$b", "created_at",
                "current", "next", "text", "int", "sel", "zone"};
        private static final String[] OPERATORS = {"=", "<>", "!=", "<", ">", "<=", ">=", "< =", "=>", "<=>", "==",
                "LIKE", "IS"};
        private static final String[] VALUES = {"?", "?", "?", "1", "42", "3.5", "123456789012345678",
                "1234567890123456789", "'paid'", "'it''s'", "''", "'a\\b'", "NULL", "null", "TRUE", "-1", "1e3",
                "'x -- y'", "'/* z */'", "'caf\u00e9'", "x'00'", "DEFAULT", "now()", "??"};
        private static final String[] SPACES = {" ", " ", " ", "", "\n", "\t", "  ", "\r\n", " /* c */ ", "\f", "\u00a0"};

        private final Random random;
        private final Target target;

        OrmTexts(Random random, Target target) {
            this.random = random;
            this.target = target;
        }

        String statement() {
            StringBuilder sql = new StringBuilder();
            String table = name(pick(TABLES));
            switch (random.nextInt(3)) {
                case 0 -> {
                    sql.append(word("update")).append(' ').append(table).append(' ').append(word("set")).append(' ');
                    int columns = 1 + random.nextInt(4);
                    for (int c = 0; c < columns; c++) {
                        sql.append(c == 0 ? "" : "," + space()).append(name(pick(COLUMNS))).append(space()).append('=')
                                .append(space()).append(pick(VALUES));
                    }
                    where(sql);
                }
                case 1 -> {
                    sql.append(word("delete")).append(' ').append(word("from")).append(' ').append(table);
                    where(sql);
                }
                default -> {
                    sql.append(word("insert")).append(' ').append(word("into")).append(' ').append(table).append(space())
                            .append('(');
                    int columns = 1 + random.nextInt(4);
                    for (int c = 0; c < columns; c++) {
                        sql.append(c == 0 ? "" : "," + space()).append(name(pick(COLUMNS)));
                    }
                    sql.append(')').append(space()).append(word("values"));
                    int rows = 1 + random.nextInt(3);
                    for (int r = 0; r < rows; r++) {
                        sql.append(r == 0 ? space() : "," + space()).append('(');
                        int values = random.nextInt(8) == 0 ? columns + 1 : columns;
                        for (int v = 0; v < values; v++) {
                            sql.append(v == 0 ? "" : "," + space()).append(pick(VALUES));
                        }
                        sql.append(')');
                    }
                }
            }
            if (random.nextInt(20) == 0) {
                sql.append(pick(new String[] {";", " RETURNING id", " -- done", " LIMIT 1", "; SELECT 1"}));
            }
            return random.nextInt(20) == 0 ? space() + sql + space() : sql.toString();
        }

        private void where(StringBuilder sql) {
            if (random.nextInt(6) == 0) {
                return;
            }
            sql.append(' ').append(word("where")).append(' ');
            int comparisons = 1 + random.nextInt(3);
            for (int c = 0; c < comparisons; c++) {
                sql.append(c == 0 ? "" : " " + word(random.nextInt(10) == 0 ? "or" : "and") + " ")
                        .append(name(pick(COLUMNS))).append(space()).append(pick(OPERATORS)).append(space())
                        .append(pick(VALUES));
            }
        }

        private String name(String name) {
            int quoting = random.nextInt(6);
            if (quoting == 0) {
                return (target == Target.MARIA ? "`" : "\"") + name + (target == Target.MARIA ? "`" : "\"");
            }
            if (quoting == 1 && random.nextInt(4) == 0) {
                return "fx_schema." + name;
            }
            return name;
        }

        private String word(String word) {
            return random.nextBoolean() ? word : word.toUpperCase(java.util.Locale.ROOT);
        }

        private String space() {
            return random.nextInt(3) == 0 ? pick(SPACES) : random.nextBoolean() ? " " : "";
        }

        private String pick(String[] values) {
            return values[random.nextInt(values.length)];
        }
    }

    /** {@code texts}, each followed by a variation of its literals when it has any. */
    private static List<String> withVariations(List<String> texts, Random random) {
        List<String> all = new ArrayList<>(texts.size() * 2);
        for (String sql : texts) {
            all.add(sql);
            String variant = ShapePlanEquivalenceTest.vary(sql, random);
            if (!variant.equals(sql)) {
                all.add(variant);
            }
        }
        return all;
    }
}
