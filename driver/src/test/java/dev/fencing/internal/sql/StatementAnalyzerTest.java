package dev.fencing.internal.sql;

import dev.fencing.FencingConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class StatementAnalyzerTest {

    /**
     * An analysis that runs out of time refuses the statement (fail closed), but the verdict depends
     * on the machine's load at that moment: it is not cached, so the next execution analyses again.
     */
    @Test
    void aRefusalBecauseTheParseRanOutOfTimeIsNotCached() {
        StatementAnalyzer analyzer = new StatementAnalyzer(
                FencingConfig.builder().tables("orders").parseTimeoutMillis(1).build(), Dialect.POSTGRESQL);
        StringBuilder sql = new StringBuilder("UPDATE orders SET status = 'x' WHERE id IN (0");
        for (int i = 1; i < 50_000; i++) {
            sql.append(", ").append(i);
        }
        String text = sql.append(')').toString();

        FencePlan first = analyzer.plan(text);
        assertThat(first.kind()).isEqualTo(FencePlan.Kind.REFUSED);
        assertThat(first.refusalReason()).contains("took longer than 1 ms");
        assertThat(analyzer.cachedPlans()).isZero();
        FencePlan second = analyzer.plan(text);
        assertThat(second.kind()).isEqualTo(FencePlan.Kind.REFUSED);
        assertThat(second).isNotSameAs(first);
        assertThat(analyzer.cachedPlans()).isZero();
    }

    private final FencingConfig config = FencingConfig.builder().tables("orders", "billing.payments").build();
    private final StatementAnalyzer postgres = new StatementAnalyzer(config, Dialect.POSTGRESQL);

    @Test
    void statementsThatNameNoFencedTableAreNeitherParsedNorCached() {
        FencePlan plan = postgres.plan("UPDATE customers SET name = ? WHERE id = ?");

        assertThat(plan.kind()).isEqualTo(FencePlan.Kind.PASS_THROUGH);
        assertThat(plan.preparedSql()).isEqualTo("UPDATE customers SET name = ? WHERE id = ?");
        assertThat(postgres.cachedPlans()).isZero();
    }

    @Test
    void aFencedUpdateCarriesTheCheckAndKeepsCommentsAndParameterMeaning() {
        FencePlan plan = postgres.plan("/* pay */ UPDATE orders o SET status = ? -- note\n WHERE id = ? RETURNING id, ?");

        assertThat(plan.kind()).isEqualTo(FencePlan.Kind.FENCED);
        assertThat(plan.preparedSql()).isEqualTo("/* pay */ UPDATE orders o SET status = ?, last_fence = ? -- note\n"
                + " WHERE (id = ?) AND COALESCE(o.last_fence, 0) <= ? RETURNING id, ?");
        assertThat(plan.databaseIndex(1)).isEqualTo(1);
        assertThat(plan.databaseIndex(2)).isEqualTo(3);
        assertThat(plan.databaseIndex(3)).isEqualTo(5);
        assertThat(plan.databaseIndex(4)).isEqualTo(-1);
        assertThat(plan.databaseIndex(0)).isEqualTo(-1);
        assertThat(plan.fenceIndexes()).containsExactly(2, 4);
        assertThat(plan.zeroRowCheck().query())
                .isEqualTo("SELECT MAX(COALESCE(o.last_fence, 0)) FROM orders o WHERE id = ?");
        assertThat(plan.zeroRowCheck().queryParameters()).containsExactly(2);
    }

    @Test
    void theTokenIsRenderedFromTheLongOnly() {
        FencePlan plan = postgres.plan("DELETE FROM orders WHERE id = 7");

        assertThat(plan.renderWithFence(33))
                .isEqualTo("DELETE FROM orders WHERE (id = 7) AND COALESCE(orders.last_fence, 0) <= 33");
    }

    @Test
    void strictlyNewerComparesWithLessThan() {
        FencingConfig strict = FencingConfig.builder().tables("orders")
                .comparison(FencingConfig.Comparison.STRICTLY_NEWER).build();
        FencePlan plan = new StatementAnalyzer(strict, Dialect.H2).plan("UPDATE orders SET status = 'x'");

        assertThat(plan.preparedSql())
                .isEqualTo("UPDATE orders SET status = 'x', last_fence = ? WHERE COALESCE(orders.last_fence, 0) < ?");
    }

    @Test
    void schemaQualifiedConfigurationMatchesUnqualifiedAndSameSchemaButNotOtherSchemas() {
        assertThat(postgres.plan("UPDATE payments SET x = 1").kind()).isEqualTo(FencePlan.Kind.FENCED);
        assertThat(postgres.plan("UPDATE billing.payments SET x = 1").kind()).isEqualTo(FencePlan.Kind.FENCED);
        assertThat(postgres.plan("UPDATE \"BILLING\".\"Payments\" SET x = 1").kind()).isEqualTo(FencePlan.Kind.FENCED);
        assertThat(postgres.plan("UPDATE archive.payments SET x = 1").kind()).isEqualTo(FencePlan.Kind.READ);
    }

    @Test
    void insertsGetTheFenceOnEveryRow() {
        FencePlan plan = postgres.plan("INSERT INTO orders (id, status) VALUES (?, ?), (?, 'x')");

        assertThat(plan.preparedSql()).isEqualTo("INSERT INTO orders (id, status, last_fence) VALUES (?, ?, ?), (?, 'x', ?)");
        assertThat(plan.databaseIndex(3)).isEqualTo(4);
        assertThat(plan.fenceIndexes()).containsExactly(3, 5);
    }

    @Test
    void upsertsUpdateOnlyRowsThatPassTheComparison() {
        FencePlan plan = postgres.plan("INSERT INTO orders AS o (id, status) VALUES (?, ?) "
                + "ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status WHERE o.status <> 'paid'");

        assertThat(plan.preparedSql()).isEqualTo("INSERT INTO orders AS o (id, status, last_fence) VALUES (?, ?, ?) "
                + "ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, last_fence = ? "
                + "WHERE (o.status <> 'paid') AND COALESCE(o.last_fence, 0) <= ?");
        // its own WHERE may leave a row unchanged: when fewer rows changed than proposed, the
        // conflicting rows are read by key (the VALUES' conflict column)
        ZeroRowCheck check = plan.zeroRowCheck();
        assertThat(check.method()).isEqualTo(ZeroRowCheck.Method.KEYS_AFTER_STATEMENT);
        assertThat(check.expectedRows()).isEqualTo(1);
        assertThat(check.query()).isEqualTo("SELECT MAX(COALESCE(o.last_fence, 0)) FROM orders AS o WHERE (o.id = ?)");
        assertThat(check.queryParameters()).containsExactly(1);
        assertThat(check.table(1)).isEqualTo("orders");
    }

    @Test
    void dataModifyingCtesAreFoundUnderASelect() {
        FencePlan plan = postgres.plan("WITH u AS (UPDATE orders SET status = 'x' WHERE id = ? RETURNING id) SELECT * FROM u");

        assertThat(plan.kind()).isEqualTo(FencePlan.Kind.FENCED);
        assertThat(plan.preparedSql()).contains("COALESCE(orders.last_fence, 0) <= ?");
    }

    @Test
    void everyStatementOfAMultiStatementStringIsFenced() {
        FencePlan plan = postgres.plan("SELECT 1; DELETE FROM orders WHERE id = 1; UPDATE orders SET status = 'b'");

        assertThat(plan.renderWithFence(5)).isEqualTo("SELECT 1; DELETE FROM orders WHERE (id = 1) AND "
                + "COALESCE(orders.last_fence, 0) <= 5; UPDATE orders SET status = 'b', last_fence = 5 "
                + "WHERE COALESCE(orders.last_fence, 0) <= 5");
        // no keys learned here: no write names its rows by key, so nothing is read after the text ran
        assertThat(plan.zeroRowCheck()).isNull();
    }

    @Test
    void readsOfFencedTablesNeedNoFence() {
        assertThat(postgres.plan("SELECT * FROM orders WHERE id = ? FOR UPDATE").kind()).isEqualTo(FencePlan.Kind.READ);
        assertThat(postgres.plan("INSERT INTO audit (id) SELECT id FROM orders").kind()).isEqualTo(FencePlan.Kind.READ);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "TRUNCATE orders",
            "TRUNCATE TABLE billing.payments",
            "MERGE INTO orders o USING src s ON o.id = s.id WHEN MATCHED THEN UPDATE SET status = s.status",
            "UPDATE orders SET last_fence = 5",
            "UPDATE orders SET (status, LAST_FENCE) = ('a', 1)",
            "INSERT INTO orders (id, last_fence) VALUES (1, 2)",
            "INSERT INTO orders (id) VALUES (1) ON CONFLICT (id) DO UPDATE SET last_fence = 3",
            "INSERT INTO orders VALUES (1, 'x', 0)",
            "UPDATE ONLY orders SET status = 'x'",
            "DELETE FROM orders WHERE CURRENT OF c",
            "EXPLAIN ANALYZE UPDATE orders SET status = 'x'",
            "PREPARE p AS UPDATE orders SET status = 'x'",
            "DO $$ BEGIN UPDATE orders SET status = 'x'; END $$",
            "COPY orders FROM STDIN",
            "SELECT * FROM FINAL TABLE (UPDATE orders SET status = 'x')",
            "UPDATE orders SET status = {fn ucase('x')}",
            "DROP TABLE orders",
            "ALTER TABLE orders ADD COLUMN note text",
            "UPDATE orders SET status = 'unterminated",
            "UPDATE orders SET status = E'it\\'s'",
            "SELECT 1; TRUNCATE orders",
            "UPDATE U&\"\\006frders\" SET status = 'x'",
    })
    void formsThatCannotCarryTheCheckAreRefused(String sql) {
        FencePlan plan = postgres.plan(sql);

        assertThat(plan.kind()).as(plan.toString()).isEqualTo(FencePlan.Kind.REFUSED);
        assertThat(plan.refusal().getSQLState()).isEqualTo("ZF003");
        assertThat(plan.refusal().getMessage()).contains("nothing was sent");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "UPDATE orders o JOIN items i ON i.order_id = o.id SET o.status = 'x'",
            "DELETE o FROM orders o JOIN items i ON i.order_id = o.id",
            "REPLACE INTO orders (id, status) VALUES (1, 'x')",
            "INSERT INTO orders (id, status) VALUES (1, 'x') ON DUPLICATE KEY UPDATE status = 'y'",
            "UPDATE orders SET status = 'x' /*! , amount = 0 */",
            "INSERT INTO orders SET id = 1",
    })
    void mariaDbFormsThatCannotCarryTheCheckAreRefused(String sql) {
        FencePlan plan = new StatementAnalyzer(config, Dialect.MARIADB).plan(sql);

        assertThat(plan.kind()).as(plan.toString()).isEqualTo(FencePlan.Kind.REFUSED);
    }

    @Test
    void procedureCallsFollowTheConfiguredPolicy() {
        assertThat(postgres.plan("CALL settle(?)").kind()).isEqualTo(FencePlan.Kind.PASS_THROUGH);
        assertThat(postgres.plan("{call settle(?)}").kind()).isEqualTo(FencePlan.Kind.PASS_THROUGH);

        FencingConfig strict = FencingConfig.builder().tables("orders")
                .procedureCalls(FencingConfig.ProcedureCalls.REJECT).build();
        StatementAnalyzer rejecting = new StatementAnalyzer(strict, Dialect.POSTGRESQL);
        assertThat(rejecting.plan("CALL settle(?)").kind()).isEqualTo(FencePlan.Kind.REFUSED);
        assertThat(rejecting.plan(" /* x */ {? = call settle(?)}").kind()).isEqualTo(FencePlan.Kind.REFUSED);
        assertThat(rejecting.plan("SELECT 1; EXECUTE p").kind()).isEqualTo(FencePlan.Kind.REFUSED);
        assertThat(rejecting.plan("SELECT settle(1)").kind()).isEqualTo(FencePlan.Kind.PASS_THROUGH);
    }

    @Test
    void questionMarksInLiteralsAndCommentsAreNotParameters() {
        FencePlan plan = postgres.plan("UPDATE orders SET note = '?', x = ? /* ? */ WHERE id = ? -- ?\n");

        assertThat(plan.parameterCount()).isEqualTo(2);
        assertThat(plan.databaseIndex(1)).isEqualTo(1);
        assertThat(plan.databaseIndex(2)).isEqualTo(3);
    }

    @Test
    void theSamePlanIsReturnedForTheSameText() {
        String sql = "UPDATE orders SET status = ? WHERE id = ?";
        assertThat(postgres.plan(sql)).isSameAs(postgres.plan(new String(sql.toCharArray())));
        assertThat(postgres.cachedPlans()).isEqualTo(1);
    }

    @Test
    void theCacheStaysWithinItsBound() {
        FencingConfig small = FencingConfig.builder().tables("orders").planCacheSize(16).build();
        StatementAnalyzer analyzer = new StatementAnalyzer(small, Dialect.POSTGRESQL);
        for (int i = 0; i < 500; i++) {
            analyzer.plan("UPDATE orders SET status = 'x' WHERE id = " + i);
        }
        assertThat(analyzer.cachedPlans()).isLessThanOrEqualTo(16);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            // a lone carriage return ends a line comment in PostgreSQL
            "SELECT 1 -- note\r; UPDATE orders SET status = 'x'; -- \n",
            // backslashes: where the string ends depends on standard_conforming_strings
            "SELECT '\\' , ' ; UPDATE orders SET status = $$x$$; -- '",
            "UPDATE orders SET status = 'a\\', amount = 5 WHERE id = 1 -- '",
            // identifiers with characters above U+007F against dollar quotes
            "SELECT 1 AS x\u20ac$a$; UPDATE orders SET status = $$x$$; SELECT 1 AS y\u20ac$a$",
            "SELECT $\u20ac$'$\u20ac$; UPDATE orders SET amount = 777; SELECT $\u20ac$'$\u20ac$",
    })
    void textWhoseCommentsOrQuotesTheDatabaseMayReadDifferentlyIsNeverPassedUnchecked(String escaped) {
        String sql = unescape(escaped);
        FencePlan plan = postgres.plan(sql);

        assertThat(plan.kind()).as(plan.toString()).isIn(FencePlan.Kind.REFUSED, FencePlan.Kind.FENCED);
        if (plan.kind() == FencePlan.Kind.FENCED) {
            assertThat(plan.renderWithFence(42)).contains("last_fence = 42");
        }
    }

    @Test
    void aCarriageReturnEndsTheCommentSoThePredicateStaysInsideTheCheck() {
        FencePlan plan = postgres.plan("UPDATE orders SET status = 'x' WHERE id = 1 -- one row\r OR id = 2\n");

        assertThat(plan.preparedSql()).isEqualTo("UPDATE orders SET status = 'x', last_fence = ? "
                + "WHERE (id = 1 -- one row\r OR id = 2) AND COALESCE(orders.last_fence, 0) <= ?\n");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "UPDATE orders SET status = 'x' /* /* */ || ' */ WHERE id = 1 -- '",
            "SELECT 1 /* /* */ ' */ ; UPDATE orders SET amount = 555; -- '",
            "SELECT 1 AS `x'`; UPDATE orders SET amount = 5; SELECT 1 AS `'`",
    })
    void h2NestedCommentsAndBackticksAreReadAsH2ReadsThem(String sql) {
        FencePlan plan = new StatementAnalyzer(config, Dialect.H2).plan(sql);

        assertThat(plan.kind()).as(plan.toString()).isIn(FencePlan.Kind.REFUSED, FencePlan.Kind.FENCED);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "UPDATE orders SET status = 'x' --\u0001 '\n WHERE id = 1 -- '",
            "/*!UPDATE orders SET status = 'x' */",
            "/*M!UPDATE orders SET amount = 99 */",
            "UPDATE \"orders\" SET status = 'x'",
            "UPDATE orders SET status = 'c\\', amount = 5 WHERE id = 2 -- '",
    })
    void mariaDbCommentsAndSqlModesCannotHideAWrite(String escaped) {
        FencePlan plan = new StatementAnalyzer(config, Dialect.MARIADB).plan(unescape(escaped));

        assertThat(plan.kind()).as(plan.toString()).isIn(FencePlan.Kind.REFUSED, FencePlan.Kind.FENCED);
        if (plan.kind() == FencePlan.Kind.FENCED) {
            assertThat(plan.preparedSql()).containsSubsequence("last_fence = ?", "WHERE (id = 1) AND COALESCE");
        }
    }

    /**
     * Found by the oracle (docs/oracle.md): under NO_BACKSLASH_ESCAPES the first string ends at
     * its backslash, so the server reads the UPDATE as part of a string while the lexer reads it
     * as a statement, and the other way round for a text shaped the other way. The backslash sits
     * in a neighbouring statement that names no fenced table.
     */
    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT '\\''; UPDATE orders SET status = 'x' WHERE id = 1 -- '",
            "SELECT \"\\\"\"; UPDATE orders SET status = 'x' WHERE id = 1 -- \"",
    })
    void mariaDbBackslashStringInANeighbouringStatementRefusesTheText(String sql) {
        FencePlan plan = new StatementAnalyzer(config, Dialect.MARIADB).plan(sql);

        assertThat(plan.kind()).as(plan.toString()).isEqualTo(FencePlan.Kind.REFUSED);
        assertThat(plan.refusalReason()).contains("NO_BACKSLASH_ESCAPES");
    }

    @ParameterizedTest
    @ValueSource(strings = {"# c\nCALL p()", "-- c\rCALL p()", "/*!CALL p() */", "\u00a0CALL p()", "// c\nCALL p()"})
    void procedureCallsBehindCommentsOrOddSpacesAreStillSeenUnderReject(String escaped) {
        FencingConfig strict = FencingConfig.builder().tables("orders")
                .procedureCalls(FencingConfig.ProcedureCalls.REJECT).build();
        Dialect dialect = escaped.startsWith("#") || escaped.startsWith("/*!") ? Dialect.MARIADB
                : escaped.startsWith("//") || escaped.charAt(0) == 0xA0 ? Dialect.H2 : Dialect.POSTGRESQL;

        FencePlan plan = new StatementAnalyzer(strict, dialect).plan(unescape(escaped));

        assertThat(plan.kind()).as(dialect + " " + plan).isEqualTo(FencePlan.Kind.REFUSED);
    }

    @Test
    void insertSelectAppendsTheFenceToTheSelectListSoLiteralTypesResolveAsWritten() {
        assertThat(postgres.plan("INSERT INTO orders (id, status) SELECT '30', 'x'").preparedSql())
                .isEqualTo("INSERT INTO orders (id, status, last_fence) SELECT '30', 'x', CAST(? AS BIGINT)");
        assertThat(new StatementAnalyzer(config, Dialect.MARIADB)
                .plan("INSERT INTO orders (id, status) SELECT id + 100, status FROM orders").preparedSql())
                .isEqualTo("INSERT INTO orders (id, status, last_fence) SELECT id + 100, status, CAST(? AS SIGNED) FROM orders");
        assertThat(postgres.plan("INSERT INTO orders (id) SELECT 1 UNION SELECT 2").preparedSql())
                .isEqualTo("INSERT INTO orders (id, last_fence) SELECT fencing_src.*, CAST(? AS BIGINT) FROM "
                        + "(SELECT 1 UNION SELECT 2) fencing_src");
    }

    @Test
    void theDiagnosisKeepsTheStatementsOwnCtesAndSkipsCtesThatWrite() {
        FencePlan plan = postgres.plan("WITH s AS (SELECT ? AS id) UPDATE orders SET status = 'x' FROM s WHERE s.id = orders.id");
        assertThat(plan.zeroRowCheck().query()).isEqualTo(
                "WITH s AS (SELECT ? AS id) SELECT MAX(COALESCE(orders.last_fence, 0)) FROM orders, s WHERE s.id = orders.id");
        assertThat(plan.zeroRowCheck().queryParameters()).containsExactly(1);

        FencePlan writing = postgres.plan("WITH a AS (INSERT INTO audit (id) VALUES (1)) UPDATE orders SET status = 'x'");
        assertThat(writing.zeroRowCheck()).isNull();
        assertThat(writing.countIsTheFencedWrite()).isTrue();
    }

    @Test
    void mariaDbColumnsNamedLikePostgresClauseWordsStayAssignments() {
        FencePlan plan = new StatementAnalyzer(config, Dialect.MARIADB).plan("UPDATE orders SET status = 'x', offset = 5 WHERE id = 1");

        assertThat(plan.preparedSql()).isEqualTo(
                "UPDATE orders SET status = 'x', offset = 5, last_fence = ? WHERE (id = 1) AND COALESCE(orders.last_fence, 0) <= ?");
    }

    private static String unescape(String text) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\' && i + 1 < text.length()) {
                char next = text.charAt(i + 1);
                if (next == 'r') {
                    out.append('\r');
                    i++;
                    continue;
                }
                if (next == 'n') {
                    out.append('\n');
                    i++;
                    continue;
                }
                if (next == 'u' && i + 5 < text.length()) {
                    out.append((char) Integer.parseInt(text.substring(i + 2, i + 6), 16));
                    i += 5;
                    continue;
                }
            }
            out.append(c);
        }
        return out.toString();
    }

    @Test
    void epochTablesAreWrittenAsTheApplicationWroteThemButMarkedForTheGuard() {
        FencingConfig epoch = FencingConfig.builder().tables("orders", "ledger")
                .tableMode("ledger", FencingConfig.Mode.EPOCH).build();
        StatementAnalyzer analyzer = new StatementAnalyzer(epoch, Dialect.POSTGRESQL);

        FencePlan insert = analyzer.plan("INSERT INTO ledger VALUES (?, ?)");
        assertThat(insert.kind()).isEqualTo(FencePlan.Kind.FENCED);
        assertThat(insert.writesEpochTable()).isTrue();
        assertThat(insert.preparedSql()).isEqualTo("INSERT INTO ledger VALUES (?, ?)");
        assertThat(insert.fenceIndexes()).isEmpty();
        assertThat(insert.databaseIndex(2)).isEqualTo(2);
        assertThat(insert.countIsTheFencedWrite()).isFalse();

        assertThat(analyzer.plan("MERGE INTO ledger l USING src s ON l.id = s.id WHEN MATCHED THEN DELETE").writesEpochTable()).isTrue();
        assertThat(analyzer.plan("TRUNCATE ledger").kind()).isEqualTo(FencePlan.Kind.REFUSED);

        FencePlan mixed = analyzer.plan("WITH l AS (INSERT INTO ledger (id) VALUES (1)) UPDATE orders SET status = 'x'");
        assertThat(mixed.writesEpochTable()).isTrue();
        assertThat(mixed.fenceIndexes()).hasSize(2);

        FencePlan rowOnly = analyzer.plan("UPDATE orders SET status = 'x'");
        assertThat(rowOnly.writesEpochTable()).isFalse();
    }

    @Test
    void transactionControlIsReportedOnlyWhenEpochTablesExist() {
        FencingConfig epoch = FencingConfig.builder().tables("ledger").mode(FencingConfig.Mode.EPOCH).build();
        StatementAnalyzer analyzer = new StatementAnalyzer(epoch, Dialect.POSTGRESQL);

        assertThat(analyzer.plan("COMMIT").controlsTransaction()).isTrue();
        assertThat(analyzer.plan("rollback to savepoint s1").controlsTransaction()).isTrue();
        assertThat(analyzer.plan("SELECT 1; BEGIN").controlsTransaction()).isTrue();
        assertThat(analyzer.plan("SELECT 1").controlsTransaction()).isFalse();
        assertThat(postgres.plan("COMMIT").controlsTransaction()).isFalse();
    }
}
