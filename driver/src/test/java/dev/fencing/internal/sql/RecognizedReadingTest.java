package dev.fencing.internal.sql;

import dev.fencing.FencingConfig;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The recognizer of common shapes takes the ORM shapes and nothing unusual; what it takes is
 * planned as JSqlParser's reading is (the whole-corpus proof: RecognizerEquivalenceTest).
 */
class RecognizedReadingTest {

    private static final FencingConfig CONFIG = FencingConfig.builder().tables("orders").build();

    private static final List<String> RECOGNIZED = List.of(
            "update orders set amount=?,status=?,version=? where id=? and version=?",
            "delete from orders where id=? and version=?",
            "DELETE FROM orders",
            "UPDATE orders SET status = NULL",
            "insert into orders (amount,status,id) values (?,?,?)",
            "INSERT INTO orders (id, status) VALUES (1, 'a'), (2, 'b'), (?, ?)",
            "UPDATE orders SET status = 'paid', amount = 10.25 WHERE id = 7 AND amount <= 3 AND status != 'x'",
            "  UPDATE orders\tSET status = ?\r\n WHERE id <> ?  ",
            "UPDATE orders SET last_fence = ? WHERE id = ?");

    private static final List<String> NOT_RECOGNIZED = List.of(
            "UPDATE orders SET status = ? WHERE id = ? -- note",
            "/* c */ UPDATE orders SET status = ? WHERE id = ?",
            "UPDATE orders SET status = ? /*+ hint */ WHERE id = ?",
            "UPDATE orders SET status = lower(?) WHERE id = ?",
            "UPDATE orders SET amount = amount + 1 WHERE id = ?",
            "UPDATE orders SET status = ? WHERE id = (SELECT max(id) FROM orders)",
            "UPDATE orders SET status = ? WHERE id IN (1, 2)",
            "UPDATE orders SET status = ? WHERE id = ? OR id = ?",
            "UPDATE orders SET status = ? WHERE status IS NULL",
            "UPDATE orders SET status = ? WHERE id = ? RETURNING id",
            "INSERT INTO orders (id) VALUES (?) ON CONFLICT (id) DO NOTHING",
            "INSERT INTO orders (id, status) VALUES (?)",
            "INSERT INTO orders VALUES (?, ?)",
            "INSERT INTO orders (id) SELECT id FROM staged",
            "UPDATE public.orders SET status = ? WHERE id = ?",
            "UPDATE orders o SET status = ? WHERE o.id = ?",
            "UPDATE orders SET name = ? WHERE id = ?",
            "UPDATE orders SET status = ? WHERE date = ?",
            "UPDATE orders SET value = ? WHERE id = ?",
            "UPDATE orders SET status = 'caf\u00e9' WHERE id = ?",
            "UPDATE orders SET st\u00e4tus = ? WHERE id = ?",
            "UPDATE orders SET status = ? WHERE id = ?;",
            "UPDATE orders SET status = ? WHERE id = ?; DELETE FROM orders WHERE id = ?",
            "UPDATE orders SET status = 'it''s' WHERE id = ?",
            "UPDATE orders SET status = 'a\\b' WHERE id = ?",
            "UPDATE orders SET amount = -1 WHERE id = ?",
            "UPDATE orders SET amount = 1e3 WHERE id = ?",
            "UPDATE orders SET amount = 1234567890123456789 WHERE id = ?",
            "UPDATE orders SET status = ? WHERE id < = ?",
            "UPDATE orders SET status = ? WHERE id <=> ?",
            "UPDATE orders SET status = ?WHERE id = ?",
            "UPDATE orders SET status = ? WHERE id = ??",
            "UPDATE orders SET status = ?\f WHERE id = ?",
            "UPDATE orders SET status = ?\u00a0WHERE id = ?",
            "UPDATE \"a\"\"b\" SET status = ? WHERE id = ?",
            "UPDATE U&\"orders\" SET status = ? WHERE id = ?",
            "UPDATE orders SET status = {fn lcase(?)} WHERE id = ?",
            "update orders set status = ? where id = ? and version = ? and 1 = 1",
            "EXPLAIN UPDATE orders SET status = ? WHERE id = ?",
            "WITH x AS (SELECT 1) UPDATE orders SET status = ? WHERE id = ?");

    @Test
    void theOrmShapesAreReadWithoutJSqlParserAndPlannedAsItWouldHaveThem() {
        for (Dialect dialect : Dialect.values()) {
            StatementAnalyzer analyzer = new StatementAnalyzer(CONFIG, dialect);
            StatementAnalyzer parsing = new StatementAnalyzer(CONFIG, dialect, AnalyzerOptions.CHECKED.withoutRecognizer());
            for (String sql : RECOGNIZED) {
                long before = analyzer.recognizedStatements();
                FencePlan plan = analyzer.fullAnalysis(sql);
                assertThat(analyzer.recognizedStatements()).as(dialect + ": " + sql).isEqualTo(before + 1);
                assertSamePlan(plan, parsing.fullAnalysis(sql), dialect + ": " + sql);
            }
            assertThat(analyzer.parsedCharacters()).as(dialect + ": characters JSqlParser parsed").isZero();
            assertThat(parsing.recognizedStatements()).isZero();
        }
    }

    @Test
    void anythingUnusualTakesTheFullAnalysis() {
        for (Dialect dialect : Dialect.values()) {
            StatementAnalyzer analyzer = new StatementAnalyzer(CONFIG, dialect);
            StatementAnalyzer parsing = new StatementAnalyzer(CONFIG, dialect, AnalyzerOptions.CHECKED.withoutRecognizer());
            for (String sql : NOT_RECOGNIZED) {
                FencePlan plan = analyzer.fullAnalysis(sql);
                assertThat(analyzer.recognizedStatements()).as(dialect + " recognized: " + sql).isZero();
                assertSamePlan(plan, parsing.fullAnalysis(sql), dialect + ": " + sql);
            }
        }
    }

    @Test
    void epochModeAndTheDatabaseGuardTakeTheFullAnalysis() {
        List<FencingConfig> configs = List.of(
                FencingConfig.builder().tables("orders").mode(FencingConfig.Mode.EPOCH).build(),
                FencingConfig.builder().tables("orders").databaseGuard(FencingConfig.Guard.REQUIRED).build());
        for (FencingConfig config : configs) {
            for (Dialect dialect : Dialect.values()) {
                StatementAnalyzer analyzer = new StatementAnalyzer(config, dialect);
                StatementAnalyzer parsing = new StatementAnalyzer(config, dialect, AnalyzerOptions.CHECKED.withoutRecognizer());
                for (String sql : RECOGNIZED) {
                    assertSamePlan(analyzer.fullAnalysis(sql), parsing.fullAnalysis(sql), dialect + ": " + sql);
                }
                assertThat(analyzer.recognizedStatements()).as(dialect + " " + config).isZero();
            }
        }
    }

    @Test
    void jsqlParsersKeywordsAndPatternWordsAreNoPlainNames() {
        for (String word : List.of("name", "DATE", "timestamp", "value", "key", "type", "current",
                "next", "zone", "user", "order", "set", "where", "select")) {
            assertThat(ParserWords.isPlainIdentifier(word)).as(word).isFalse();
        }
        for (String word : List.of("orders", "status", "amount", "customer_id", "version", "id", "last_fence", "_x1")) {
            assertThat(ParserWords.isPlainIdentifier(word)).as(word).isTrue();
        }
    }

    private static void assertSamePlan(FencePlan actual, FencePlan expected, String what) {
        assertThat(actual.kind()).as(what).isEqualTo(expected.kind());
        assertThat(actual.fencedTable()).as(what).isEqualTo(expected.fencedTable());
        assertThat(actual.preparedSql()).as(what).isEqualTo(expected.preparedSql());
        assertThat(actual.renderWithFence(77)).as(what).isEqualTo(expected.renderWithFence(77));
        assertThat(actual.fenceIndexes()).as(what).isEqualTo(expected.fenceIndexes());
        assertThat(String.valueOf(actual.zeroRowCheck())).as(what).isEqualTo(String.valueOf(expected.zeroRowCheck()));
        assertThat(actual.countIsTheFencedWrite()).as(what).isEqualTo(expected.countIsTheFencedWrite());
        if (expected.kind() == FencePlan.Kind.REFUSED) {
            assertThat(actual.refusalReason()).as(what).isEqualTo(expected.refusalReason());
        }
    }
}
