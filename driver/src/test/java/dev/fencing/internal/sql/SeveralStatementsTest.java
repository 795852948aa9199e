package dev.fencing.internal.sql;

import dev.fencing.FencingConfig;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whether a plan's text may hold a statement after its first, as the analysis reads it from the
 * text's tokens once: a semicolon outside strings, names, comments and parentheses with a token
 * after it. The prepared-statement path reads it from the plan (values the JDBC driver writes
 * into a later statement may follow an encoding switch in an earlier one).
 */
class SeveralStatementsTest {

    private final FencingConfig config = FencingConfig.builder().tables("orders").build();
    private final StatementAnalyzer postgres = new StatementAnalyzer(config, Dialect.POSTGRESQL);
    private final StatementAnalyzer mariadb = new StatementAnalyzer(config, Dialect.MARIADB);

    @Test
    void aSecondStatementAfterATopLevelSemicolonIsSeen() {
        assertThat(postgres.plan("SELECT 1; SELECT 2").mayHoldSeveralStatements()).isTrue();
        assertThat(postgres.plan("SELECT * FROM orders; UPDATE accounts SET a = ?").mayHoldSeveralStatements()).isTrue();
        assertThat(mariadb.plan("SET NAMES gbk; INSERT INTO notes VALUES (?)").mayHoldSeveralStatements()).isTrue();
    }

    @Test
    void aSemicolonInAStringACommentOrParenthesesOrAtTheEndIsNoSecondStatement() {
        assertThat(postgres.plan("SELECT 1;").mayHoldSeveralStatements()).isFalse();
        assertThat(postgres.plan("SELECT ';' FROM notes WHERE a = ?").mayHoldSeveralStatements()).isFalse();
        assertThat(postgres.plan("SELECT 1 /* ; SELECT 2 */ FROM notes").mayHoldSeveralStatements()).isFalse();
        assertThat(postgres.plan("SELECT * FROM orders WHERE note = ';'").mayHoldSeveralStatements()).isFalse();
        assertThat(mariadb.plan("SELECT 1 # ; SELECT 2\n FROM notes").mayHoldSeveralStatements()).isFalse();
        assertThat(postgres.plan("UPDATE orders SET a = ? WHERE id = ?").mayHoldSeveralStatements()).isFalse();
    }

    @Test
    void aTextThePreFilterClearsHoldsOneStatement() {
        FencePlan plan = postgres.plan("SELECT a FROM notes WHERE id = ?");
        assertThat(plan.kind()).isEqualTo(FencePlan.Kind.PASS_THROUGH);
        assertThat(plan.mayHoldSeveralStatements()).isFalse();
    }

    @Test
    void aTextOfTheSameShapeAsAnAnalysedOneAnswersForItsOwnTokens() {
        assertThat(postgres.plan("INSERT INTO orders (id, a) VALUES (1, 'x')").mayHoldSeveralStatements()).isFalse();
        assertThat(postgres.plan("INSERT INTO orders (id, a) VALUES (2, 'y')").mayHoldSeveralStatements()).isFalse();
        assertThat(postgres.plan("INSERT INTO orders (id, a) VALUES (3, ';')").mayHoldSeveralStatements()).isFalse();
    }

    @Test
    void anUnreadableTextMayHoldSeveral() {
        assertThat(postgres.plan("SELECT 'unterminated; SELECT 2").mayHoldSeveralStatements()).isTrue();
    }
}
