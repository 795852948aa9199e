package dev.fencing.internal.sql;

import dev.fencing.FencingConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The front door's decisions for the bypass classes and over-refusals of issue 13, decided on
 * text. Each behaviour is also run against its real database in dev.fencing.jdbc's
 * {@code FrontDoor*Test} classes; this class pins the analyzer's reading and its messages.
 */
class FrontDoorAnalyzerTest {

    private final FencingConfig config = FencingConfig.builder().tables("orders").build();
    private final FencingConfig rejecting = FencingConfig.builder().tables("orders")
            .procedureCalls(FencingConfig.ProcedureCalls.REJECT).build();
    private final StatementAnalyzer postgres = new StatementAnalyzer(config, Dialect.POSTGRESQL);
    private final StatementAnalyzer mariaDb = new StatementAnalyzer(config, Dialect.MARIADB);
    private final StatementAnalyzer h2 = new StatementAnalyzer(config, Dialect.H2);

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT lo_unlink(doc) FROM orders WHERE id = 1",
            "SELECT lo_put(doc, 0, decode('41', 'hex')) FROM orders",
            "SELECT pg_catalog.LO_TRUNCATE(lo_open(o.doc, 131072), 0) FROM orders o",
            "SELECT \"lowrite\"(3, 'x') FROM orders",
            "SELECT lo_unlink /* a comment */ (doc) FROM orders",
            "SELECT lo_unlink\n-- a comment\n(doc) FROM orders",
            "UPDATE pg_largeobject SET data = '' WHERE loid = (SELECT doc FROM orders WHERE id = 1)"})
    void largeObjectWritesAreRefusedWhereTheyNameAFencedTable(String sql) {
        FencePlan plan = postgres.plan(sql);
        assertThat(plan.kind()).as(sql).isEqualTo(FencePlan.Kind.REFUSED);
        assertThat(plan.refusalReason()).as(sql).contains("large-object function").contains("outside every table");
        // MariaDB and H2 have no such functions: there they are ordinary (unknown) calls
        assertThat(mariaDb.plan("SELECT lo_unlink(1)").kind()).isEqualTo(FencePlan.Kind.PASS_THROUGH);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT U&\"lo\\005fput\"(doc, 0, decode('41', 'hex')) FROM orders",
            "SELECT u&\"lo!005funlink\" UESCAPE '!' (doc) FROM orders",
            "SELECT U&\"st\\0061tus\" FROM orders",
            "UPDATE U&\"ord\\0065rs\" SET status = 'x'"})
    void unicodeEscapedNamesAreRefusedAsWhatTheyAre(String sql) {
        for (StatementAnalyzer analyzer : new StatementAnalyzer[] {postgres, h2}) {
            FencePlan plan = analyzer.plan(sql);
            assertThat(plan.kind()).as(sql).isEqualTo(FencePlan.Kind.REFUSED);
            assertThat(plan.refusalReason()).as(sql).contains("Unicode-escaped name").contains("can spell any name")
                    .doesNotContain("changes large objects");
        }
    }

    @Test
    void largeObjectWritesNamingNoFencedTableAreRefusedWithTheGuardOrRejectElseSentLikeAProcedureCall() {
        String sql = "SELECT lo_put(?, 0, ?)";
        FencingConfig guarded = FencingConfig.builder().tables("orders").databaseGuard(FencingConfig.Guard.REQUIRED).build();
        assertThat(new StatementAnalyzer(guarded, Dialect.POSTGRESQL).plan(sql).kind()).isEqualTo(FencePlan.Kind.REFUSED);
        assertThat(new StatementAnalyzer(rejecting, Dialect.POSTGRESQL).plan(sql).kind()).isEqualTo(FencePlan.Kind.REFUSED);
        assertThat(new StatementAnalyzer(guarded, Dialect.POSTGRESQL).plan("SELECT U&\"lo\\005funlink\"(?)").kind())
                .isEqualTo(FencePlan.Kind.REFUSED);
        assertThat(postgres.plan(sql).kind()).isEqualTo(FencePlan.Kind.PASS_THROUGH);
        // an operator or a cast over one, and the catalog a superuser may write, name no fenced table either
        for (String wrapped : new String[] {"CREATE OPERATOR !!!! (RIGHTARG = oid, FUNCTION = lo_unlink)",
                "CREATE OPERATOR !!!! (RIGHTARG = oid, FUNCTION = U&\"lo\\005funlink\")",
                "DELETE FROM pg_catalog.pg_largeobject_metadata"}) {
            assertThat(new StatementAnalyzer(rejecting, Dialect.POSTGRESQL).plan(wrapped).kind()).as(wrapped)
                    .isEqualTo(FencePlan.Kind.REFUSED);
        }
        // a text that ends on a name, or on U& and UESCAPE, is read to its end and no further
        assertThat(new StatementAnalyzer(guarded, Dialect.POSTGRESQL).plan("SELECT hello_world FROM customers").kind())
                .isEqualTo(FencePlan.Kind.PASS_THROUGH);
        // (a U& name may spell any large-object function: with the guard required it is refused wherever it stands)
        assertThat(new StatementAnalyzer(guarded, Dialect.POSTGRESQL).plan("SELECT 1 AS U&\"lo\" UESCAPE '!'").kind())
                .isEqualTo(FencePlan.Kind.REFUSED);
        // making a new one writes nothing a row refers to; a column that merely spells lo_ is no call
        assertThat(new StatementAnalyzer(guarded, Dialect.POSTGRESQL)
                .plan("SELECT lo_from_bytea(0, ?), hello_world FROM customers").kind()).isEqualTo(FencePlan.Kind.PASS_THROUGH);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT 'a\\'; SELECT '; UPDATE orders SET status = 1; --'",
            "SELECT 'a\\' , 'x; UPDATE orders SET status = 1; --'",
            "SELECT 'C:\\'; SELECT 2",
            "SELECT 1 FROM orders WHERE status = 'it\\''s'"})
    void backslashStringsThatEndElsewhereWhenBackslashesEscapeAreRefusedInTextsWithSeveralStatementsOrAFencedName(
            String sql) {
        FencePlan plan = postgres.plan(sql);
        assertThat(plan.kind()).as(sql).isEqualTo(FencePlan.Kind.REFUSED);
        assertThat(plan.refusalReason()).contains("backslash");
        assertThat(mariaDb.plan(sql).kind()).as(sql).isEqualTo(FencePlan.Kind.REFUSED);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT id FROM orders WHERE status = 'it''s \\ fine'",
            "SELECT 1 FROM orders WHERE status = 'a\\b'",
            "SELECT 1 FROM orders WHERE status = 'a\\\\b'",
            "SELECT 'C:\\dir'; SELECT 1 FROM orders",
            "SELECT 1 FROM orders WHERE status = 'a\\\\'"})
    void backslashStringsThatEndAtTheSamePlaceEitherWayAreRead(String sql) {
        for (StatementAnalyzer analyzer : new StatementAnalyzer[] {postgres, mariaDb}) {
            assertThat(analyzer.plan(sql).kind()).as(sql).isEqualTo(FencePlan.Kind.READ);
        }
    }

    @Test
    void backslashesInDollarQuotesAndSingleStatementsNamingNothingFencedPass() {
        assertThat(postgres.plan("SELECT $$a\\$$; SELECT 1").kind()).isEqualTo(FencePlan.Kind.PASS_THROUGH);
        assertThat(postgres.plan("SELECT 'a\\b' FROM customers").kind()).isEqualTo(FencePlan.Kind.PASS_THROUGH);
    }

    @ParameterizedTest
    @ValueSource(strings = {"$٣$", "$é$", "$\u00A0$", "$日本$", "$_1$", "$a٣$"})
    void postgresDollarTagsStartWithAnyCharacterAboveAscii(String tag) throws Exception {
        SqlTokens tokens = SqlTokens.lex("SELECT " + tag + " ' " + tag + "; SELECT 1", Dialect.POSTGRESQL);
        assertThat(tokens.size()).isEqualTo(5);
        assertThat(tokens.kind(1)).isEqualTo(SqlTokens.STRING);
        assertThat(tokens.kind(2)).isEqualTo(SqlTokens.SEMICOLON);
    }

    @Test
    void aDollarFollowedByAnAsciiDigitIsNoTag() {
        assertThat(postgres.plan("SELECT $1$; UPDATE orders SET status = 'x'; $1$").kind())
                .isNotEqualTo(FencePlan.Kind.READ);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "EXECUTE \"S_1\"('paid', 0, 1, 9223372036854775807)",
            "EXPLAIN ANALYZE EXECUTE \"S_1\"('paid', 0, 1, 9223372036854775807)",
            "EXPLAIN (ANALYZE, BUFFERS) EXECUTE s_1(1)",
            "explain analyse execute s_1(1)",
            "CREATE TABLE copy AS EXECUTE s_1(1)",
            "SELECT 1; EXECUTE s_1(1)",
            "EXECUTE IMMEDIATE 'x'"})
    void sqlLevelExecuteIsRefusedUnderBothProcedureCallValues(String sql) {
        for (FencingConfig each : new FencingConfig[] {config, rejecting}) {
            FencePlan plan = new StatementAnalyzer(each, Dialect.POSTGRESQL).plan(sql);
            assertThat(plan.kind()).as(sql).isEqualTo(FencePlan.Kind.REFUSED);
            assertThat(plan.refusalReason()).contains("EXECUTE").contains("database guard");
        }
    }

    @Test
    void executeThatRunsNothingIsNotRefused() {
        assertThat(postgres.plan("GRANT EXECUTE ON FUNCTION f() TO PUBLIC").kind()).isEqualTo(FencePlan.Kind.PASS_THROUGH);
        assertThat(postgres.plan("CREATE TRIGGER t BEFORE UPDATE ON notes FOR EACH ROW EXECUTE FUNCTION f()").kind())
                .isEqualTo(FencePlan.Kind.PASS_THROUGH);
        assertThat(mariaDb.plan("EXECUTE IMMEDIATE 'SELECT 1'").kind()).isEqualTo(FencePlan.Kind.PASS_THROUGH);
        assertThat(new StatementAnalyzer(rejecting, Dialect.MARIADB).plan("EXECUTE IMMEDIATE 'SELECT 1'").kind())
                .isEqualTo(FencePlan.Kind.REFUSED);
    }

    @ParameterizedTest
    @ValueSource(strings = {"EXPLAIN SELECT * FROM orders WHERE id = 1", "EXPLAIN (ANALYZE) SELECT * FROM orders",
            "EXPLAIN ANALYZE SELECT status FROM orders", "EXPLAIN UPDATE orders SET status = 'x'",
            "EXPLAIN (COSTS OFF) DELETE FROM orders"})
    void explainOfAReadOrOfAPlannedWriteIsARead(String sql) {
        assertThat(postgres.plan(sql).kind()).as(sql).isEqualTo(FencePlan.Kind.READ);
    }

    @ParameterizedTest
    @ValueSource(strings = {"EXPLAIN ANALYZE UPDATE orders SET status = 'x'", "EXPLAIN (ANALYZE true) DELETE FROM orders",
            "EXPLAIN (ANALYZE) WITH u AS (UPDATE orders SET status = 'x' RETURNING id) SELECT * FROM u",
            "EXPLAIN ANALYZE INSERT INTO orders (id) VALUES (1)"})
    void explainAnalyzeOfAFencedWriteIsRefused(String sql) {
        FencePlan plan = postgres.plan(sql);
        assertThat(plan.kind()).as(sql).isEqualTo(FencePlan.Kind.REFUSED);
        assertThat(plan.refusalReason()).contains("EXPLAIN ANALYZE");
    }

    @Test
    void mariaDbAnalyzeStatementRunsWhatItExplains() {
        assertThat(mariaDb.plan("ANALYZE UPDATE orders SET status = 'x'").kind()).isEqualTo(FencePlan.Kind.REFUSED);
        assertThat(mariaDb.plan("ANALYZE SELECT * FROM orders").kind()).isEqualTo(FencePlan.Kind.READ);
        assertThat(mariaDb.plan("ANALYZE TABLE orders").kind()).isEqualTo(FencePlan.Kind.READ);
        assertThat(mariaDb.plan("EXPLAIN UPDATE orders SET status = 'x'").kind()).isEqualTo(FencePlan.Kind.READ);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "BEGIN NOT ATOMIC EXECUTE IMMEDIATE CONCAT('UPDATE ord', 'ers SET status = 1'); END",
            "IF 1 = 1 THEN EXECUTE IMMEDIATE CONCAT('UPDATE ord', 'ers SET status = 1'); END IF",
            "CASE WHEN 1 = 1 THEN EXECUTE IMMEDIATE CONCAT('UPDATE ord', 'ers SET status = 1'); END CASE",
            "l: LOOP EXECUTE IMMEDIATE CONCAT('UPDATE ord', 'ers SET status = 1'); LEAVE l; END LOOP l",
            "WHILE 1 = 0 DO EXECUTE IMMEDIATE 'x'; END WHILE",
            "REPEAT EXECUTE IMMEDIATE 'x'; UNTIL 1 END REPEAT",
            "lbl: BEGIN NOT ATOMIC EXECUTE IMMEDIATE 'x'; END lbl",
            "SELECT 1; IF 1 = 1 THEN EXECUTE IMMEDIATE 'x'; END IF"})
    void mariaDbCompoundStatementsAreProcedureCalls(String sql) {
        FencePlan plan = new StatementAnalyzer(rejecting, Dialect.MARIADB).plan(sql);
        assertThat(plan.kind()).as(sql).isEqualTo(FencePlan.Kind.REFUSED);
        assertThat(plan.refusalReason()).contains("compound");
        assertThat(mariaDb.plan(sql).kind()).as(sql).isEqualTo(FencePlan.Kind.PASS_THROUGH);
        String naming = sql.replace("'x'", "'UPDATE orders SET status = 1'").replace("'UPDATE ord', 'ers", "'UPDATE orders");
        assertThat(mariaDb.plan(naming).kind()).as(naming).isEqualTo(FencePlan.Kind.REFUSED);
    }

    @Test
    void mariaDbCompoundWithSqlLevelExecuteIsRefusedUnderAllow() {
        assertThat(mariaDb.plan("BEGIN NOT ATOMIC EXECUTE s; END").kind()).isEqualTo(FencePlan.Kind.REFUSED);
    }

    @ParameterizedTest
    @ValueSource(strings = {"CREATE TABLE orders_archive (id BIGINT)", "CREATE TABLE zz (id int, orders_count int)",
            "COMMENT ON TABLE zz IS 'copied from orders'", "DROP TABLE IF EXISTS orders_old",
            "ALTER TABLE zz ADD COLUMN orders_total BIGINT"})
    void schemaChangesThatOnlyMentionAFencedNamePass(String sql) {
        assertThat(postgres.plan(sql).kind()).as(sql).isNotEqualTo(FencePlan.Kind.REFUSED);
    }

    @ParameterizedTest
    @ValueSource(strings = {"DROP TABLE orders", "ALTER TABLE orders ADD COLUMN x int", "CREATE VIEW v AS SELECT * FROM orders",
            "CREATE FUNCTION f() RETURNS void AS $$ UPDATE orders SET status = 'x' $$ LANGUAGE sql",
            "COMMENT ON TABLE \"orders\" IS 'x'", "CREATE TABLE zz (id int REFERENCES orders (id))"})
    void schemaChangesOfAFencedTableStayRefused(String sql) {
        assertThat(postgres.plan(sql).kind()).as(sql).isEqualTo(FencePlan.Kind.REFUSED);
    }

    @Test
    void postgresNotMaterializedAndTableStarAreFenced() {
        FencePlan cte = postgres.plan("WITH u AS NOT MATERIALIZED (UPDATE orders SET status = 'x' WHERE id = 1 RETURNING id) "
                + "SELECT * FROM u");
        assertThat(cte.kind()).isEqualTo(FencePlan.Kind.FENCED);
        assertThat(cte.preparedSql()).contains("AS NOT MATERIALIZED (UPDATE orders SET status = 'x', last_fence = ?");

        FencePlan update = postgres.plan("UPDATE orders * SET status = 'x' WHERE id = 1");
        assertThat(update.preparedSql())
                .isEqualTo("UPDATE orders * SET status = 'x', last_fence = ? WHERE (id = 1) AND COALESCE(orders.last_fence, 0) <= ?");
        FencePlan delete = postgres.plan("DELETE FROM orders * o WHERE o.id = 1");
        assertThat(delete.preparedSql()).isEqualTo("DELETE FROM orders * o WHERE (o.id = 1) AND COALESCE(o.last_fence, 0) <= ?");
    }

    @Test
    void mariaDbHashCommentsSetStatementAndHibernateDeleteAreFenced() {
        assertThat(mariaDb.plan("UPDATE orders SET status = 'x' # why\n WHERE id = 1").preparedSql())
                .isEqualTo("UPDATE orders SET status = 'x', last_fence = ? # why\n WHERE (id = 1) AND COALESCE(orders.last_fence, 0) <= ?");
        assertThat(mariaDb.plan("SET STATEMENT max_statement_time = 10 FOR UPDATE orders SET status = 'x' WHERE id = 1")
                .preparedSql()).isEqualTo("SET STATEMENT max_statement_time = 10 FOR UPDATE orders SET status = 'x', "
                + "last_fence = ? WHERE (id = 1) AND COALESCE(orders.last_fence, 0) <= ?");
        FencePlan delete = mariaDb.plan("delete o1_0 from orders o1_0 where o1_0.status='none'");
        assertThat(delete.preparedSql())
                .isEqualTo("delete o1_0 from orders o1_0 where (o1_0.status='none') AND COALESCE(o1_0.last_fence, 0) <= ?");
        assertThat(delete.zeroRowCheck()).isNotNull();
        assertThat(mariaDb.plan("delete o1_0 from orders o1_0, customers c where o1_0.cid = c.id").kind())
                .isEqualTo(FencePlan.Kind.REFUSED);
        assertThat(mariaDb.plan("delete c from orders o1_0 join customers c on o1_0.cid = c.id").kind())
                .isEqualTo(FencePlan.Kind.REFUSED);
    }

    @Test
    void h2EscapeStringsAndLoneDollarsAreReadAsH2ReadsThem() {
        assertThat(h2.plan("SELECT E'a\\'; UPDATE orders SET status = 'x'").kind()).isEqualTo(FencePlan.Kind.FENCED);
        assertThat(h2.plan("SELECT $a$; UPDATE orders SET status = 'x'; $a$").kind()).isEqualTo(FencePlan.Kind.REFUSED);
        assertThat(h2.plan("SELECT $$a$$; UPDATE orders SET status = 'x'").kind()).isEqualTo(FencePlan.Kind.FENCED);
    }

    /** The oracle's MariaDB find: the write after {@code /*}{@code /*}{@code /} is code there, never a comment. */
    @Test
    void mariaDbWritesAfterASlashStarSlashStarSlashCommentAreSeen() {
        for (String sql : new String[] {
                "UPDATE customers c /*/*/, orders o SET o.status = 'x' WHERE o.id = c.id -- */",
                "SELECT 1 /*/*/; UPDATE orders SET status = 'x' WHERE id = 1; -- */"}) {
            assertThat(mariaDb.plan(sql).kind()).as(sql).isIn(FencePlan.Kind.FENCED, FencePlan.Kind.REFUSED);
        }
    }

    @Test
    void mariaDbDashDashBeforeAUnicodeSpaceIsNoComment() {
        FencePlan plan = mariaDb.plan("UPDATE orders SET status = 'x' WHERE id = 1 --\u3000 OR id = 2");
        assertThat(plan.kind()).isEqualTo(FencePlan.Kind.REFUSED); // "- - OR" cannot parse: nothing unchecked
        // MariaDB runs the UPDATE; JSqlParser (the second reader) takes a comment: refused, never passed as a read
        assertThat(mariaDb.plan("SELECT 1 --\u2028; UPDATE orders SET status = 'x'").kind()).isEqualTo(FencePlan.Kind.REFUSED);
    }

    @Test
    void schemaChangesAreMarkedSoTheMetadataIsReadAgainButTemporaryTablesAreNot() {
        assertThat(postgres.plan("CREATE TABLE zz (id int REFERENCES customers (id) ON DELETE CASCADE)").changesSchema()).isTrue();
        assertThat(postgres.plan("ALTER TABLE customers ADD CONSTRAINT c FOREIGN KEY (r) REFERENCES regions (id)")
                .changesSchema()).isTrue();
        assertThat(postgres.plan("SELECT 1; DROP TABLE customers").changesSchema()).isTrue();
        assertThat(postgres.plan("ALTER TABLE customers RENAME TO clients").changesSchema()).isTrue();
        assertThat(postgres.plan("CREATE TEMP TABLE scratch (id int)").changesSchema()).isFalse();
        assertThat(postgres.plan("CREATE GLOBAL TEMPORARY TABLE scratch (id int)").changesSchema()).isFalse();
        assertThat(mariaDb.plan("DROP TEMPORARY TABLE scratch").changesSchema()).isFalse();
        assertThat(postgres.plan("SELECT * FROM customers").changesSchema()).isFalse();
    }

    @Test
    void pgjdbcsDoubledQuestionMarksAreOperatorsAndWritesHoldingThemAreSpliced() {
        assertThat(postgres.plan("SELECT id FROM orders WHERE doc ?? ? AND doc ??| array[?] AND doc ??& array['a']").kind())
                .isEqualTo(FencePlan.Kind.READ);
        FencePlan plan = postgres.plan("UPDATE orders SET status = ? WHERE id = ? AND doc ??| array['a', ?]");
        assertThat(plan.kind()).isEqualTo(FencePlan.Kind.FENCED);
        assertThat(plan.preparedSql()).isEqualTo("UPDATE orders SET status = ?, last_fence = ? "
                + "WHERE (id = ? AND doc ??| array['a', ?]) AND COALESCE(orders.last_fence, 0) <= ?");
    }

    @Test
    void showStatementsAreReads() {
        for (String show : new String[] {"SHOW CREATE TABLE orders", "SHOW COLUMNS FROM orders",
                "SHOW FULL COLUMNS FROM orders LIKE 'last%'", "SHOW INDEX FROM orders"}) {
            assertThat(mariaDb.plan(show).kind()).as(show).isEqualTo(FencePlan.Kind.READ);
        }
    }

    @Test
    void h2DeltaTablesAreRefusedByName() {
        FencePlan plan = h2.plan("SELECT * FROM FINAL TABLE (UPDATE orders SET status = 'x' WHERE id = 1)");
        assertThat(plan.kind()).isEqualTo(FencePlan.Kind.REFUSED);
        assertThat(plan.refusalReason()).contains("data-change delta table FINAL TABLE (..)");
        assertThat(h2.plan("SELECT id FROM old table (DELETE FROM orders)").refusalReason()).contains("OLD TABLE (..)");
    }

    @Test
    void statementKindsAreNamedInSqlWords() {
        assertThat(postgres.plan("CREATE TABLE orders (id BIGINT)").refusalReason())
                .startsWith("CREATE TABLE statements that name a fenced table are refused");
        assertThat(mariaDb.plan("CREATE INDEX o_status ON orders (status)").refusalReason())
                .startsWith("CREATE INDEX statements");
    }
}
