package dev.fencing.internal.sql;

import dev.fencing.FencingConfig;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The splice on its own: edits at offsets of the original text, the database's text split at the
 * fences, and the application's parameters mapped around the fences; then the check spliced into
 * each write form, where only fixed text goes in at token boundaries and the fence is a {@code ?}
 * or the digits of a {@code long}.
 */
class SpliceTest {

    private static final char FENCE = Splice.FENCE;

    /** The offsets of the {@code ?} characters of a text without strings or comments. */
    private static int[] questionMarks(String sql) {
        return IntStream.range(0, sql.length()).filter(i -> sql.charAt(i) == '?').toArray();
    }

    @Test
    void fencesSplitTheTextAndShiftTheParametersAfterThem() {
        String sql = "UPDATE t SET a = ? WHERE b = ?";
        Splice splice = new Splice(sql);
        splice.insert(sql.indexOf('?') + 1, ", f = " + FENCE);
        splice.insert(sql.length(), " AND f <= " + FENCE);

        Splice.Result result = splice.apply(questionMarks(sql));

        assertThat(result.pieces()).containsExactly("UPDATE t SET a = ?, f = ", " WHERE b = ? AND f <= ", "");
        assertThat(result.databaseIndexes()).containsExactly(1, 3);
        assertThat(result.fenceIndexes()).containsExactly(2, 4);
    }

    @Test
    void aFenceInsertedAtAParametersOffsetComesBeforeIt() {
        String sql = "VALUES (?)";
        Splice splice = new Splice(sql);
        splice.insert(sql.indexOf('?'), FENCE + ", ");

        Splice.Result result = splice.apply(questionMarks(sql));

        assertThat(String.join("#", result.pieces())).isEqualTo("VALUES (#, ?)");
        assertThat(result.fenceIndexes()).containsExactly(1);
        assertThat(result.databaseIndexes()).containsExactly(2);
    }

    @Test
    void insertionsAtOneOffsetKeepTheirOrderAndEditsApplyInTextOrder() {
        String sql = "a b";
        Splice splice = new Splice(sql);
        splice.insert(3, " z");
        splice.insert(1, " (");
        splice.insert(1, "x)");

        assertThat(splice.apply(new int[0]).pieces()).containsExactly("a (x) b z");
    }

    @Test
    void noParametersAndNoFencesLeaveTheTextAsItIs() {
        Splice.Result result = new Splice("SELECT 1").apply(new int[0]);

        assertThat(result.pieces()).containsExactly("SELECT 1");
        assertThat(result.databaseIndexes()).isEmpty();
        assertThat(result.fenceIndexes()).isEmpty();
    }

    @Test
    void aReplacementSwapsTheCharactersItCovers() {
        String sql = "INSERT INTO t DEFAULT VALUES";
        Splice splice = new Splice(sql);
        splice.replace(sql.indexOf("DEFAULT"), sql.length(), "(f) VALUES (" + FENCE + ")");

        assertThat(splice.apply(new int[0]).pieces()).containsExactly("INSERT INTO t (f) VALUES (", ")");
    }

    @Test
    void aReplacementMustNotSwallowAnApplicationParameter() {
        String sql = "SELECT ? FROM t";
        Splice splice = new Splice(sql);
        splice.replace(0, 10, "SELECT 1 ");

        assertThatThrownBy(() -> splice.apply(questionMarks(sql))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("replaces an application parameter at offset 7");
    }

    @Test
    void overlappingEditsAreRejected() {
        Splice splice = new Splice("abcdef");
        splice.replace(1, 4, "x");
        splice.insert(2, "y");

        assertThatThrownBy(() -> splice.apply(new int[0])).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("overlapping edits at offset 2");
    }

    @Test
    void anInsertionThatWouldJoinItsNeighbourIsReported() {
        Splice joinsAWord = new Splice("WHERE b");
        joinsAWord.insert(7, "AND x");
        assertThat(joinsAWord.fusedEdge()).contains("offset 7");

        Splice joinsANumber = new Splice("x = 1");
        joinsANumber.insert(5, String.valueOf(FENCE));
        assertThat(joinsANumber.fusedEdge()).contains("offset 5");

        Splice fenceBeforeAPoint = new Splice("x = .5");
        fenceBeforeAPoint.insert(4, String.valueOf(FENCE));
        assertThat(fenceBeforeAPoint.fusedEdge()).contains("offset 4");

        Splice apart = new Splice("WHERE b");
        apart.insert(7, " AND x = " + FENCE);
        apart.insert(6, "(");
        assertThat(apart.fusedEdge()).isNull();
    }

    @Test
    void theSameEditsApplyToABlankedCopyOfTheSameLength() {
        String sql = "UPDATE t * SET a = ?";
        Splice splice = new Splice(sql);
        splice.insert(sql.length(), ", f = " + FENCE);

        Splice.Result blanked = splice.apply(questionMarks(sql), "UPDATE t   SET a = ?");
        assertThat(blanked.pieces()).containsExactly("UPDATE t   SET a = ?, f = ", "");
        assertThatThrownBy(() -> splice.apply(questionMarks(sql), "UPDATE t SET a = ?"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    // The check spliced into each write form by SiteSplicer, read back through the plan.

    private static FencePlan plan(String sql, Dialect dialect) {
        return new StatementAnalyzer(FencingConfig.builder().tables("orders").column("f").build(), dialect).plan(sql);
    }

    @Test
    void anUpdateGetsTheAssignmentAndTheCheckAroundItsWhere() {
        FencePlan plan = plan("UPDATE orders SET a = ? WHERE id = ? RETURNING id", Dialect.POSTGRESQL);

        assertThat(plan.kind()).isEqualTo(FencePlan.Kind.FENCED);
        assertThat(plan.preparedSql()).isEqualTo(
                "UPDATE orders SET a = ?, f = ? WHERE (id = ?) AND COALESCE(orders.f, 0) <= ? RETURNING id");
        assertThat(new int[] {plan.databaseIndex(1), plan.databaseIndex(2)}).containsExactly(1, 3);
        assertThat(plan.fenceIndexes()).containsExactly(2, 4);
        assertThat(plan.parameterCount()).isEqualTo(2);
        assertThat(plan.databaseIndex(3)).isEqualTo(-1);
        assertThat(plan.renderWithFence(9_000_000_001L)).isEqualTo("UPDATE orders SET a = ?, f = 9000000001 WHERE "
                + "(id = ?) AND COALESCE(orders.f, 0) <= 9000000001 RETURNING id");
    }

    @Test
    void aDeleteWithoutWhereGetsOneAfterItsBody() {
        FencePlan plan = plan("DELETE FROM orders o/*c*/RETURNING o.id", Dialect.POSTGRESQL);

        assertThat(plan.preparedSql()).isEqualTo("DELETE FROM orders o WHERE COALESCE(o.f, 0) <= ?/*c*/RETURNING o.id");
        assertThat(plan.fenceIndexes()).containsExactly(1);
    }

    @Test
    void insertsGetTheColumnAndTheFenceInEveryRowOrSelectList() {
        assertThat(plan("INSERT INTO orders (id) VALUES (?), (2)", Dialect.POSTGRESQL).preparedSql())
                .isEqualTo("INSERT INTO orders (id, f) VALUES (?, ?), (2, ?)");
        assertThat(plan("INSERT INTO orders (id) SELECT id FROM orders WHERE id = ?", Dialect.POSTGRESQL).preparedSql())
                .isEqualTo("INSERT INTO orders (id, f) SELECT id, CAST(? AS BIGINT) FROM orders WHERE id = ?");
        assertThat(plan("INSERT INTO orders (id) SELECT 1 UNION SELECT ?", Dialect.MARIADB).preparedSql())
                .isEqualTo("INSERT INTO orders (id, f) SELECT fencing_src.*, CAST(? AS SIGNED) FROM (SELECT 1 UNION "
                        + "SELECT ?) fencing_src");
        assertThat(plan("INSERT INTO orders DEFAULT VALUES", Dialect.POSTGRESQL).preparedSql())
                .isEqualTo("INSERT INTO orders (f) VALUES (?)");
    }

    @Test
    void anUpsertGetsTheCheckInItsOwnUpdate() {
        FencePlan plan = plan("INSERT INTO orders (id) VALUES (?) ON CONFLICT (id) DO UPDATE SET a = 1 WHERE a > ?",
                Dialect.POSTGRESQL);

        assertThat(plan.preparedSql()).isEqualTo("INSERT INTO orders (id, f) VALUES (?, ?) ON CONFLICT (id) DO UPDATE "
                + "SET a = 1, f = ? WHERE (a > ?) AND COALESCE(orders.f, 0) <= ?");
        assertThat(new int[] {plan.databaseIndex(1), plan.databaseIndex(2)}).containsExactly(1, 4);
        assertThat(plan.fenceIndexes()).containsExactly(2, 3, 5);
    }

    @Test
    void onlyQuestionMarksOrDigitsTakeTheFencesPlace() {
        for (String sql : List.of("UPDATE orders SET a = '?' WHERE id = ? -- ?\n", "DELETE FROM orders WHERE b = $$?$$",
                "INSERT INTO orders (id) VALUES (\"?\")")) {
            FencePlan plan = plan(sql, Dialect.POSTGRESQL);
            String marked = plan.renderWithFence(Long.MAX_VALUE);
            String prepared = plan.preparedSql();
            // the two texts differ only where a fence stands: '?' in one, the long's digits in the other
            assertThat(marked.replace(Long.toString(Long.MAX_VALUE), "?")).as(sql).isEqualTo(prepared);
            assertThat(count(marked, Long.toString(Long.MAX_VALUE))).as(sql).isEqualTo(plan.fenceIndexes().length);
            // and the original's characters all survive, in order
            assertThat(isSubsequence(sql, prepared)).as(sql).isTrue();
        }
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }

    private static boolean isSubsequence(String part, String whole) {
        int j = 0;
        for (int i = 0; i < whole.length() && j < part.length(); i++) {
            if (whole.charAt(i) == part.charAt(j)) {
                j++;
            }
        }
        return j == part.length();
    }
}
