package dev.fencing.internal.sql;

import dev.fencing.internal.config.TableName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The write-site finder on its own: for each write form, the parts it finds, shown as the text
 * they cover, so that a part that starts or ends one token off fails.
 */
class WriteSitesTest {

    private SqlTokens tokens;
    private String sql;

    private List<WriteSite> sites(String text, Dialect dialect) throws Exception {
        sql = text;
        tokens = SqlTokens.lex(text, dialect);
        return WriteSites.find(tokens, dialect, 0, tokens.size());
    }

    private WriteSite onlySite(String text, Dialect dialect) throws Exception {
        List<WriteSite> found = sites(text, dialect);
        assertThat(found).hasSize(1);
        return found.get(0);
    }

    /** The text of tokens {@code [first, last]}. */
    private String text(int first, int last) {
        return sql.substring(tokens.start(first), tokens.end(last));
    }

    private String text(WriteSite.Clause clause) {
        return clause == null ? null : text(clause.keyword(), clause.last());
    }

    private String text(WriteSite.Span span) {
        return span == null ? null : text(span.first(), span.last());
    }

    @Test
    void anUpdateWithWhere() throws Exception {
        WriteSite site = onlySite("UPDATE orders SET a = ?, b = 2 WHERE id = ? RETURNING id", Dialect.POSTGRESQL);

        assertThat(site.kind()).isEqualTo(ParsedWrites.Kind.UPDATE);
        assertThat(site.unsupported()).isNull();
        assertThat(site.topLevel()).isTrue();
        assertThat(text(site.target().first(), site.target().last())).isEqualTo("orders");
        assertThat(site.target().aliased()).isFalse();
        assertThat(tokens.text(site.target().qualifier())).isEqualTo("orders");
        assertThat(text(site.head(), site.rowChange().set().last())).isEqualTo("UPDATE orders SET a = ?, b = 2");
        assertThat(site.rowChange().from()).isNull();
        assertThat(text(site.rowChange().condition().where())).isEqualTo("WHERE id = ?");
        assertThat(text(site.head(), site.rowChange().condition().bodyLast()))
                .isEqualTo("UPDATE orders SET a = ?, b = 2 WHERE id = ?");
        assertThat(site.insert()).isNull();
        assertThat(site.with()).isNull();
    }

    @Test
    void anUpdateWithAnAliasAFromClauseAndNoWhere() throws Exception {
        WriteSite site = onlySite("UPDATE s.orders AS o SET a = p.a FROM payments p ORDER BY 1", Dialect.POSTGRESQL);

        assertThat(text(site.target().first(), site.target().last())).isEqualTo("s.orders");
        assertThat(site.targetName(tokens)).isEqualTo(TableName.of("s", "orders"));
        assertThat(site.target().aliased()).isTrue();
        assertThat(tokens.text(site.target().qualifier())).isEqualTo("o");
        assertThat(text(site.rowChange().from())).isEqualTo("FROM payments p");
        assertThat(site.rowChange().condition().where()).isNull();
        assertThat(tokens.text(site.rowChange().condition().bodyLast())).isEqualTo("p");
    }

    @Test
    void aDeleteWithUsingAndWhere() throws Exception {
        WriteSite site = onlySite("DELETE FROM orders o USING payments p WHERE p.id = o.id LIMIT 3", Dialect.POSTGRESQL);

        assertThat(site.kind()).isEqualTo(ParsedWrites.Kind.DELETE);
        assertThat(tokens.text(site.target().qualifier())).isEqualTo("o");
        assertThat(site.rowChange().set()).isNull();
        assertThat(text(site.rowChange().from())).isEqualTo("USING payments p");
        assertThat(text(site.rowChange().condition().where())).isEqualTo("WHERE p.id = o.id");
    }

    @Test
    void aDeleteWithoutWhereEndsBeforeReturning() throws Exception {
        WriteSite site = onlySite("DELETE FROM orders RETURNING id", Dialect.POSTGRESQL);

        assertThat(site.rowChange().condition().where()).isNull();
        assertThat(tokens.text(site.rowChange().condition().bodyLast())).isEqualTo("orders");
    }

    @Test
    void mariaDbsSingleTableDeleteWithAnAliasAsHibernateWritesIt() throws Exception {
        WriteSite site = onlySite("DELETE o1_0 FROM orders o1_0 WHERE o1_0.id = ?", Dialect.MARIADB);

        assertThat(site.unsupported()).isNull();
        assertThat(site.multiTable()).isFalse();
        assertThat(text(site.target().first(), site.target().last())).isEqualTo("orders");
        assertThat(tokens.text(site.target().qualifier())).isEqualTo("o1_0");
        assertThat(text(site.rowChange().condition().where())).isEqualTo("WHERE o1_0.id = ?");
    }

    @Test
    void mariaDbsMultiTableWritesAreMarked() throws Exception {
        WriteSite update = onlySite("UPDATE orders, payments SET orders.a = 1", Dialect.MARIADB);
        assertThat(update.multiTable()).isTrue();
        assertThat(update.unsupported()).contains("several tables");

        WriteSite delete = onlySite("DELETE o FROM orders o JOIN payments p ON p.id = o.id", Dialect.MARIADB);
        assertThat(delete.multiTable()).isTrue();
    }

    @Test
    void anInsertOfSeveralRows() throws Exception {
        WriteSite site = onlySite("INSERT INTO orders (id, a) VALUES (?, 'x'), (2, (SELECT 1)) RETURNING id",
                Dialect.POSTGRESQL);

        assertThat(site.kind()).isEqualTo(ParsedWrites.Kind.INSERT);
        assertThat(site.unsupported()).isNull();
        assertThat(site.rowChange()).isNull();
        assertThat(text(site.insert().columns())).isEqualTo("(id, a)");
        assertThat(site.insert().rows()).extracting(this::text).containsExactly("(?, 'x')", "(2, (SELECT 1))");
        assertThat(site.insert().query()).isNull();
        assertThat(site.insert().defaultValues()).isNull();
        assertThat(site.insert().conflictUpdate()).isNull();
    }

    @Test
    void anInsertOfAPlainSelectHasASelectListToAppendTo() throws Exception {
        WriteSite site = onlySite("INSERT INTO orders (id) SELECT DISTINCT id FROM payments WHERE a = ?",
                Dialect.POSTGRESQL);

        assertThat(text(site.insert().query().first(), site.insert().query().last()))
                .isEqualTo("SELECT DISTINCT id FROM payments WHERE a = ?");
        assertThat(text(site.insert().query().selectList())).isEqualTo("DISTINCT id");
    }

    @Test
    void anInsertOfASetOperationIsWrapped() throws Exception {
        WriteSite site = onlySite("INSERT INTO orders (id) SELECT 1 UNION SELECT 2 ON CONFLICT DO NOTHING",
                Dialect.POSTGRESQL);

        assertThat(text(site.insert().query().first(), site.insert().query().last())).isEqualTo("SELECT 1 UNION SELECT 2");
        assertThat(site.insert().query().selectList()).isNull();
        assertThat(site.insert().conflictUpdate()).isNull();
        assertThat(site.unsupported()).isNull();
    }

    @Test
    void anInsertOfDefaultValues() throws Exception {
        WriteSite site = onlySite("INSERT INTO orders DEFAULT VALUES", Dialect.POSTGRESQL);

        assertThat(site.insert().columns()).isNull();
        assertThat(text(site.insert().defaultValues())).isEqualTo("DEFAULT VALUES");
        assertThat(site.insert().rows()).isEmpty();
    }

    @Test
    void anUpsertWithItsOwnAssignmentsAndCondition() throws Exception {
        WriteSite site = onlySite("INSERT INTO orders AS o (id, a) VALUES (1, 2) ON CONFLICT (id) DO UPDATE SET a = "
                + "excluded.a WHERE o.a <> excluded.a RETURNING o.id", Dialect.POSTGRESQL);

        assertThat(tokens.text(site.target().qualifier())).isEqualTo("o");
        assertThat(site.hasConflictUpdate()).isTrue();
        WriteSite.ConflictUpdate conflict = site.insert().conflictUpdate();
        assertThat(text(site.head(), conflict.set().last())).endsWith("DO UPDATE SET a = excluded.a");
        assertThat(text(conflict.condition().where())).isEqualTo("WHERE o.a <> excluded.a");
        assertThat(tokens.text(conflict.condition().bodyLast())).isEqualTo("a");
        assertThat(text(site.head(), conflict.condition().bodyLast())).endsWith("WHERE o.a <> excluded.a");
        assertThat(text(conflict.target())).isEqualTo("(id)");
    }

    @Test
    void theConflictTargetIsKeptOnlyWhenItIsAPlainColumnList() throws Exception {
        String upsert = "INSERT INTO orders (id, a) VALUES (1, 2) ON CONFLICT %s DO UPDATE SET a = excluded.a";
        assertThat(text(onlySite(upsert.formatted("(id, \"a\")"), Dialect.POSTGRESQL).insert().conflictUpdate()
                .target())).isEqualTo("(id, \"a\")");
        for (String target : new String[] {"ON CONSTRAINT orders_pkey", "(lower(a))", "(id) WHERE a > 0", "(id a)"}) {
            assertThat(onlySite(upsert.formatted(target), Dialect.POSTGRESQL).insert().conflictUpdate().target())
                    .as(target).isNull();
        }
    }

    @Test
    void unsupportedInsertFormsSayWhy() throws Exception {
        assertThat(onlySite("INSERT INTO orders VALUES (1)", Dialect.POSTGRESQL).unsupported())
                .contains("without a column list");
        assertThat(onlySite("INSERT INTO orders (id) VALUES (1) ON DUPLICATE KEY UPDATE id = 2", Dialect.MARIADB)
                .unsupported()).startsWith("ON DUPLICATE KEY UPDATE");
        assertThat(onlySite("INSERT INTO orders SET id = 1", Dialect.MARIADB).unsupported())
                .contains("INSERT .. SET");
        assertThat(onlySite("INSERT INTO orders (id) DEFAULT VALUES", Dialect.POSTGRESQL).unsupported())
                .isEqualTo("DEFAULT VALUES after a column list");
    }

    @Test
    void unsupportedUpdateAndDeleteFormsSayWhy() throws Exception {
        assertThat(onlySite("UPDATE ONLY orders SET a = 1", Dialect.POSTGRESQL).unsupported()).startsWith("ONLY");
        assertThat(onlySite("DELETE FROM orders WHERE CURRENT OF c", Dialect.POSTGRESQL).unsupported())
                .isEqualTo("WHERE CURRENT OF a cursor");
        assertThat(onlySite("UPDATE orders SET a = 1 WHERE", Dialect.POSTGRESQL).unsupported())
                .isEqualTo("an empty WHERE clause");
        WriteSite merge = onlySite("MERGE INTO orders USING p ON true WHEN MATCHED THEN DELETE", Dialect.POSTGRESQL);
        assertThat(merge.kind()).isEqualTo(ParsedWrites.Kind.OTHER);
        assertThat(merge.unsupported()).isEqualTo("MERGE cannot carry a per-row fence check");
    }

    @Test
    void theWritesOfDataModifyingCtesComeFirstAndTheMainWriteKnowsItsWithClause() throws Exception {
        List<WriteSite> found = sites("WITH d AS (DELETE FROM payments WHERE id = ? RETURNING id) "
                + "UPDATE orders SET a = 1 WHERE id IN (SELECT id FROM d)", Dialect.POSTGRESQL);

        assertThat(found).extracting(WriteSite::kind).containsExactly(ParsedWrites.Kind.DELETE, ParsedWrites.Kind.UPDATE);
        assertThat(found.get(0).topLevel()).isFalse();
        assertThat(found.get(0).targetName(tokens)).isEqualTo(TableName.of(null, "payments"));
        WriteSite main = found.get(1);
        assertThat(main.topLevel()).isTrue();
        assertThat(text(main.with().first(), main.with().last()))
                .isEqualTo("WITH d AS (DELETE FROM payments WHERE id = ? RETURNING id)");
        assertThat(main.with().writes()).isTrue();
    }

    @Test
    void aReadOnlyWithClauseIsNotAWrite() throws Exception {
        WriteSite site = onlySite("WITH k AS (SELECT 1 AS id) DELETE FROM orders WHERE id IN (SELECT id FROM k)",
                Dialect.POSTGRESQL);

        assertThat(site.with().writes()).isFalse();
        assertThat(text(site.with().first(), site.with().last())).isEqualTo("WITH k AS (SELECT 1 AS id)");
    }

    @Test
    void whatTheParserCannotReadIsHandedOutForBlanking() throws Exception {
        sql = "WITH k AS NOT MATERIALIZED (SELECT 1) UPDATE orders * SET a = 1";
        tokens = SqlTokens.lex(sql, Dialect.POSTGRESQL);
        List<String> blanked = new ArrayList<>();
        List<WriteSite> found = WriteSites.find(tokens, Dialect.POSTGRESQL, 0, tokens.size(),
                token -> blanked.add(tokens.text(token)));

        assertThat(blanked).containsExactly("NOT", "*");
        assertThat(found).hasSize(1);
        assertThat(found.get(0).unsupported()).isNull();
    }

    @Test
    void aSelectWritesNothing() throws Exception {
        assertThat(sites("SELECT * FROM orders WHERE a = 'UPDATE orders SET a = 1'", Dialect.POSTGRESQL)).isEmpty();
    }

    @Test
    void statementHeadsAreCountedWhereAStatementCanStart() throws Exception {
        SqlTokens lexed = SqlTokens.lex("WITH d AS (DELETE FROM a) INSERT INTO b (x) SELECT replace(y, 'a', 'b') "
                + "FROM d; UPDATE c SET x = 1", Dialect.POSTGRESQL);

        // DELETE after "(", INSERT after ")", UPDATE after ";"; not the function replace(..)
        assertThat(WriteSites.countStatementHeads(lexed, 0, lexed.size())).isEqualTo(3);
    }
}
