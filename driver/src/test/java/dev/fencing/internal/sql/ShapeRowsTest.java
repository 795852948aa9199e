package dev.fencing.internal.sql;

import dev.fencing.FencingConfig;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 29, build 4: a multi-row literal {@code INSERT .. VALUES} whose rows share one shape is
 * planned from three short templates (one, two and three rows), so a bulk insert is fenced without
 * JSqlParser reading its rows, and its plan is the full analysis's. (The corpus-wide comparison of
 * both paths is {@code ShapePlanEquivalenceTest}; the rows on real servers, {@code FrontDoorContract}.)
 */
class ShapeRowsTest {

    private static final FencingConfig CONFIG = FencingConfig.builder().tables("orders").build();

    /** {@code rows} rows of {@code row}, separated by {@code ", "}, after {@code head}. */
    private static String insert(String head, int rows, IntFunction<String> row) {
        StringBuilder sql = new StringBuilder(head);
        for (int i = 0; i < rows; i++) {
            sql.append(i == 0 ? "" : ", ").append(row.apply(i));
        }
        return sql.toString();
    }

    private static String bulk(int rows) {
        return insert("INSERT INTO orders (id, status, amount) VALUES ", rows,
                i -> "(" + i + ", 'new " + (i % 7) + "', " + i * 3 + ".25)");
    }

    @Test
    void aTenThousandRowInsertIsFencedFromThreeShortTemplates() {
        for (Dialect dialect : Dialect.values()) {
            StatementAnalyzer analyzer = new StatementAnalyzer(CONFIG, dialect);
            String sql = bulk(10_000);

            FencePlan plan = analyzer.plan(sql);

            assertThat(plan.kind()).as(dialect.name()).isEqualTo(FencePlan.Kind.FENCED);
            String expected = insert("INSERT INTO orders (id, status, amount, last_fence) VALUES ", 10_000,
                    i -> "(" + i + ", 'new " + (i % 7) + "', " + i * 3 + ".25, 41)");
            assertThat(plan.renderWithFence(41)).as(dialect.name()).isEqualTo(expected);
            assertThat(plan.fenceIndexes()).as(dialect.name()).hasSize(10_000).startsWith(1, 2).endsWith(10_000);
            assertThat(plan.countIsTheFencedWrite()).isTrue();
            assertThat(analyzer.analyses()).as(dialect + ": templates analysed").isEqualTo(3);
            assertThat(analyzer.parsedCharacters()).as(dialect + ": characters JSqlParser read").isLessThan(1_000);

            // another row count, other values: the same three templates
            FencePlan other = analyzer.plan(bulk(4_321));
            assertThat(other.kind()).isEqualTo(FencePlan.Kind.FENCED);
            assertThat(other.fenceIndexes()).hasSize(4_321);
            assertThat(analyzer.analyses()).as(dialect + ": templates analysed").isEqualTo(3);
        }
    }

    /**
     * Every row count from 2 to 9, and each form below: the plan by rows is the full analysis's,
     * and every form the shape path plans at all is planned from the same three templates.
     */
    @Test
    void thePlanByRowsIsTheFullAnalysisPlan() {
        List<IntFunction<String>> forms = new ArrayList<>();
        forms.add(n -> bulk(n));
        forms.add(n -> insert("INSERT INTO orders (id, status) VALUES", n, i -> "\n  (" + i + ",'a b')") + " RETURNING id");
        forms.add(n -> insert("insert into orders(id, status) values ", n, i -> "( " + i + " , /* r */ 'x' )"));
        forms.add(n -> insert("INSERT INTO orders (id, status, amount) VALUES ", n,
                i -> "(" + i + ", 'p', (SELECT 1 + " + i + "))"));
        forms.add(n -> insert("INSERT INTO orders (id, status) VALUES ", n, i -> "(" + i + ", DEFAULT)"));
        forms.add(n -> insert("INSERT INTO orders (id, status) VALUES ", n, i -> "(" + i + ", 'n')")
                + " ON CONFLICT (id) DO UPDATE SET status = 'u'");
        forms.add(n -> insert("INSERT INTO orders (id, status) VALUES ", n, i -> "(" + i + ", 'n')")
                + " ON CONFLICT (id) DO NOTHING");
        forms.add(n -> insert("INSERT INTO orders (id, status) VALUES ", n, i -> "(" + i + ", 'n')")
                + " ON DUPLICATE KEY UPDATE status = 'u'");
        forms.add(n -> insert("INSERT INTO orders VALUES ", n, i -> "(" + i + ", 'n')"));
        forms.add(n -> insert("INSERT INTO orders (id, last_fence) VALUES ", n, i -> "(" + i + ", 5)"));
        forms.add(n -> insert("INSERT INTO notes (id, body) VALUES ", n, i -> "(" + i + ", (SELECT status FROM orders"
                + " WHERE id = " + i + "))"));
        List<FencingConfig> configs = List.of(CONFIG,
                FencingConfig.builder().tables("orders").databaseGuard(FencingConfig.Guard.REQUIRED).build(),
                FencingConfig.builder().tables("orders").mode(FencingConfig.Mode.EPOCH).build(),
                FencingConfig.builder().tables("orders").comparison(FencingConfig.Comparison.STRICTLY_NEWER).build());
        int byRows = 0;
        for (FencingConfig config : configs) {
            for (Dialect dialect : Dialect.values()) {
                StatementAnalyzer analyzer = new StatementAnalyzer(config, dialect);
                for (IntFunction<String> form : forms) {
                    long before = analyzer.analyses();
                    List<FencePlan> byShape = new ArrayList<>();
                    for (int rows = 2; rows <= 9; rows++) {
                        byShape.add(analyzer.shapePlan(form.apply(rows)));
                    }
                    if (byShape.get(7) != null) {
                        assertThat(analyzer.analyses() - before).as(dialect + " " + form.apply(2)
                                + ": templates for 2 to 9 rows").isEqualTo(3);
                    }
                    for (int rows = 2; rows <= 9; rows++) {
                        String sql = form.apply(rows);
                        if (byShape.get(rows - 2) != null) {
                            byRows++;
                            assertThat(describe(byShape.get(rows - 2))).as(dialect + " " + sql)
                                    .isEqualTo(describe(analyzer.fullAnalysis(sql)));
                        }
                    }
                }
            }
        }
        assertThat(byRows).as("texts planned by the shape path").isGreaterThan(500);
    }

    /** Rows that differ outside their literals are not one shape: each such text keeps its own template. */
    @Test
    void rowsThatDifferOutsideTheirLiteralsAreNotRepeated() {
        StatementAnalyzer analyzer = new StatementAnalyzer(CONFIG, Dialect.POSTGRESQL);
        String[] texts = {
                "INSERT INTO orders (id, status) VALUES (1, 'a'), (2, 'b'),(3, 'c')",
                "INSERT INTO orders (id, status) VALUES (1, 'a'), (2,  'b'), (3, 'c')",
                "INSERT INTO orders (id, status) VALUES (1, 'a'), (2, 2), (3, 'c')",
                "INSERT INTO orders (id, status) VALUES (1, 'a'), (2, 'b'), (3, 'c' || 'd')",
                "INSERT INTO orders (id, status) VALUES (1, 'a'), (2, 1.5), (3, 'c')",
                "INSERT INTO orders (id, status) VALUES (1, 'a'), (?, 'b'), (3, 'c')",
        };
        for (String sql : texts) {
            long before = analyzer.analyses();
            FencePlan plan = analyzer.plan(sql);
            assertThat(describe(plan)).as(sql).isEqualTo(describe(analyzer.fullAnalysis(sql)));
            assertThat(analyzer.analyses() - before).as(sql + ": analyses (a template of its own, or none)")
                    .isLessThanOrEqualTo(2);
        }
    }

    private static String describe(FencePlan plan) {
        StringBuilder text = new StringBuilder().append(plan.kind()).append(" | ").append(plan.sql()).append(" | ")
                .append(plan.fencedTable()).append(" | ").append(plan.preparedSql()).append(" | ")
                .append(plan.renderWithFence(9_000_000_001L)).append(" | ")
                .append(java.util.Arrays.toString(plan.fenceIndexes()));
        for (int i = 1; i <= plan.parameterCount(); i++) {
            text.append(' ').append(plan.databaseIndex(i));
        }
        ZeroRowCheck check = plan.zeroRowCheck();
        text.append(" | ").append(check == null ? "no diagnosis" : check + " "
                        + java.util.Arrays.toString(check.queryParameters()))
                .append(" | ").append(plan.countIsTheFencedWrite()).append(plan.writesEpochTable())
                .append(plan.controlsTransaction()).append(plan.changesSchema()).append(plan.checkedByGuard())
                .append(" | ").append(plan.kind() == FencePlan.Kind.REFUSED ? plan.refusalReason() : "");
        return text.toString();
    }
}
