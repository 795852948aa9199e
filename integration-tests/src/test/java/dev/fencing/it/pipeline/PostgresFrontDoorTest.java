package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.jdbc.FencingDataSource;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.MissingFenceException;
import dev.fencing.StaleFenceException;
import dev.fencing.UnfenceableStatementException;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** The front door on PostgreSQL: its bypass classes and the forms only it has. */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
class PostgresFrontDoorTest extends FrontDoorContract {

    private final DataSource database;

    PostgresFrontDoorTest(DataSource database) {
        this.database = database;
    }

    /** standard_conforming_strings=off from the URL's options, as an application may configure it. */
    private static final String NON_CONFORMING = "&options=-c%20standard_conforming_strings%3Doff";

    /** The attack: with standard_conforming_strings off the server reads one string where a reader with it on reads two. */
    private static final String HIDDEN_UPDATE =
            "SELECT 'a\\'; SELECT '; UPDATE orders SET status = $$hacked$$ WHERE id = 42; --'";

    @Override
    DataSource raw() {
        return database;
    }

    private PGSimpleDataSource withUrlSuffix(String suffix) {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(ScratchAreas.url(database) + suffix);
        return dataSource;
    }

    @Test
    void backslashStringsCannotHideAStatementWhenStringsAreNotStandardConforming() throws SQLException {
        seed(42, "pending", 100, 5);
        PGSimpleDataSource nonConforming = withUrlSuffix(NON_CONFORMING);
        FencingDataSource fencedNonConforming = new FencingDataSource(nonConforming,
                FencingConfig.builder().tables("orders").build());
        try (Statement statement = connection(fencedNonConforming).createStatement()) {
            assertThatThrownBy(() -> statement.execute(HIDDEN_UPDATE))
                    .isInstanceOf(UnfenceableStatementException.class).hasMessageContaining("backslash");
        }
        try (Statement statement = connection().createStatement()) {
            // the setting changed by the session itself, inside or before the text
            statement.execute("SET standard_conforming_strings = off");
            assertThatThrownBy(() -> statement.execute(HIDDEN_UPDATE)).isInstanceOf(UnfenceableStatementException.class);
            assertThatThrownBy(() -> statement.execute("SELECT set_config('standard_conforming_strings', 'off', false); "
                    + HIDDEN_UPDATE)).isInstanceOf(UnfenceableStatementException.class);
        }
        assertThat(order(42)).isEqualTo(new Order(42, "pending", 100, 5));
        try (Connection rawConnection = nonConforming.getConnection(); Statement statement = rawConnection.createStatement()) {
            statement.execute(HIDDEN_UPDATE); // the raw path: the hidden UPDATE runs
        }
        assertThat(order(42).status()).isEqualTo("hacked");
    }

    @Test
    void dollarTagsStartingWithAnyNonAsciiCharacterAreReadAsTheServerReadsThem() throws SQLException {
        seed(42, "pending", 100, 5);
        // simple query mode: the whole text reaches the server's lexer (pgjdbc's own splits it otherwise)
        FencingDataSource simple = new FencingDataSource(withUrlSuffix("&preferQueryMode=simple"),
                FencingConfig.builder().tables("orders").build());
        for (String tag : new String[] {"$٣$", "$é$", "$日本$", "$a٣$"}) {
            String sql = "SELECT " + tag + "; SELECT 1 FROM orders; " + tag;
            try (Statement statement = connection(simple).createStatement(); ResultSet rows = statement.executeQuery(sql)) {
                // read as one string, as the server reads it: a read, and the server returns the quoted text
                assertThat(rows.next()).isTrue();
                assertThat(rows.getString(1)).isEqualTo("; SELECT 1 FROM orders; ");
            }
            String attack = "SELECT " + tag + " ' " + tag + "; UPDATE orders SET status = 'hacked' WHERE id = 42; --'";
            try (Statement statement = connection(simple).createStatement()) {
                // the server runs the UPDATE; it needs a fence (or is refused), never runs unchecked
                assertThatThrownBy(() -> statement.execute(attack)).isInstanceOfAny(MissingFenceException.class,
                        UnfenceableStatementException.class);
            }
        }
        // a procedure call the server runs after the quote, where a reader that took "$٣$" for no quote
        // sees one SELECT whose string holds it: refused under procedure-calls=reject, as any call is
        sql("CREATE OR REPLACE PROCEDURE fd_touch() LANGUAGE sql AS $$ UPDATE orders SET status = 'hacked' $$");
        FencingDataSource rejecting = new FencingDataSource(withUrlSuffix("&preferQueryMode=simple"),
                FencingConfig.builder().tables("orders").procedureCalls(FencingConfig.ProcedureCalls.REJECT).build());
        String hiddenCall = "SELECT $٣$ ' $٣$; CALL fd_touch(); --'";
        try (Statement statement = connection(rejecting).createStatement()) {
            assertThatThrownBy(() -> statement.execute(hiddenCall)).isInstanceOf(UnfenceableStatementException.class)
                    .hasMessageContaining("reject");
        }
        assertThat(order(42)).isEqualTo(new Order(42, "pending", 100, 5));
        try (Connection rawConnection = withUrlSuffix("&preferQueryMode=simple").getConnection();
             Statement statement = rawConnection.createStatement()) {
            statement.execute(hiddenCall); // the raw path: the server calls the procedure
        }
        assertThat(order(42).status()).isEqualTo("hacked");
    }

    @Test
    void theDriversOwnNamedServerStatementsCannotBeExecutedBySql() throws SQLException {
        seed(42, "pending", 100, 50);
        for (FencingConfig.ProcedureCalls calls : FencingConfig.ProcedureCalls.values()) {
            FencingDataSource dataSource = new FencingDataSource(withUrlSuffix("&prepareThreshold=1"),
                    FencingConfig.builder().tables("orders").procedureCalls(calls).build());
            Connection connection = connection(dataSource);
            try (Fence.Scope scope = Fence.enter(60); PreparedStatement update = connection.prepareStatement(
                    "UPDATE orders SET status = ? WHERE id = ?")) {
                for (int i = 0; i < 3; i++) {
                    update.setString(1, "paid");
                    update.setLong(2, 42);
                    update.executeUpdate();
                }
                String name = null;
                try (Statement read = connection.createStatement(); ResultSet rows = read.executeQuery(
                        "SELECT name FROM pg_prepared_statements WHERE statement LIKE '%last_fence%' AND NOT from_sql")) {
                    if (rows.next()) {
                        name = rows.getString(1);
                    }
                }
                assertThat(name).as("pgjdbc keeps the fenced UPDATE as a named server statement").isNotNull();
                // status = $1, last_fence = $2, id = $3, the check's fence = $4
                String run = "\"" + name + "\"('hacked', 0, 42, 9223372036854775807)";
                try (Statement attack = connection.createStatement()) {
                    for (String sql : new String[] {"EXECUTE " + run, "EXPLAIN ANALYZE EXECUTE " + run,
                            "EXPLAIN (ANALYZE, COSTS OFF) EXECUTE " + run, "CREATE TABLE fd_copy AS EXECUTE " + run}) {
                        assertThatThrownBy(() -> attack.execute(sql)).as(calls + ": " + sql)
                                .isInstanceOf(UnfenceableStatementException.class);
                    }
                }
            }
        }
        assertThat(order(42)).isEqualTo(new Order(42, "paid", 100, 60));
    }

    @Test
    void explainIsClassifiedByWhatItExplains() throws SQLException {
        seed(42, "pending", 100, 5);
        try (Statement statement = connection().createStatement()) {
            try (ResultSet plan = statement.executeQuery("EXPLAIN (ANALYZE, COSTS OFF) SELECT * FROM orders")) {
                assertThat(plan.next()).isTrue();
            }
            try (ResultSet plan = statement.executeQuery("EXPLAIN UPDATE orders SET status = 'hacked'")) {
                assertThat(plan.next()).isTrue(); // planned, not run
            }
            assertThatThrownBy(() -> statement.executeQuery("EXPLAIN ANALYZE UPDATE orders SET status = 'hacked'"))
                    .isInstanceOf(UnfenceableStatementException.class).hasMessageContaining("EXPLAIN ANALYZE");
        }
        assertThat(order(42)).isEqualTo(new Order(42, "pending", 100, 5));
    }

    @Test
    void tableStarAndNotMaterializedWritesAreFenced() throws SQLException {
        seed(1, "pending", 100, 5);
        seed(2, "pending", 100, 50);
        Connection connection = connection();
        try (Fence.Scope scope = Fence.enter(20); Statement statement = connection.createStatement()) {
            assertThat(statement.executeUpdate("UPDATE orders * SET status = 'paid' WHERE id = 1")).isEqualTo(1);
            assertThat((Throwable) catchThrowableOfType(StaleFenceException.class,
                    () -> statement.executeUpdate("UPDATE orders * SET status = 'paid' WHERE id = 2"))).isNotNull();
            try (ResultSet rows = statement.executeQuery("WITH u AS NOT MATERIALIZED (UPDATE orders SET amount = 7 "
                    + "WHERE id IN (1, 2) RETURNING id) SELECT count(*) FROM u")) {
                rows.next();
                assertThat(rows.getLong(1)).isEqualTo(1);
            }
            assertThat((Throwable) catchThrowableOfType(StaleFenceException.class,
                    () -> statement.executeUpdate("DELETE FROM orders * WHERE id = 2"))).isNotNull();
        }
        try (Statement statement = connection.createStatement()) {
            assertThatThrownBy(() -> statement.executeUpdate("DELETE FROM orders * WHERE id = 1"))
                    .isInstanceOf(MissingFenceException.class);
        }
        assertThat(order(1)).isEqualTo(new Order(1, "paid", 7, 20));
        assertThat(order(2)).isEqualTo(new Order(2, "pending", 100, 50));
        try (Fence.Scope scope = Fence.enter(20); Statement statement = connection.createStatement()) {
            assertThat(statement.executeUpdate("DELETE FROM orders * o WHERE o.id = 1")).isEqualTo(1);
        }
        assertThat(order(1)).isNull();
    }

    @Test
    void truncateCascadeOfATableAFencedTableReferencesIsRefused() throws SQLException {
        sql(orderReferencesCustomer(""), "INSERT INTO fd_customers (id, name) VALUES (1, 'ann')");
        seed(42, "pending", 100, 5);
        sql("UPDATE orders SET cid = 1 WHERE id = 42");
        try (Fence.Scope scope = Fence.enter(40); Statement statement = connection().createStatement()) {
            assertThatThrownBy(() -> statement.execute("TRUNCATE fd_customers CASCADE"))
                    .isInstanceOf(UnfenceableStatementException.class).hasMessageContaining("TRUNCATE");
            statement.execute("TRUNCATE fd_regions CASCADE"); // referenced by no fenced table
        }
        assertThat(order(42)).isNotNull();
        sql("TRUNCATE fd_customers CASCADE");
        assertThat(order(42)).isNull();
    }

    @Test
    void commentsThatOnlyMentionAFencedTablePass() throws SQLException {
        try (Statement statement = connection().createStatement()) {
            statement.execute("COMMENT ON TABLE fd_regions IS 'copied from orders'");
            assertThatThrownBy(() -> statement.execute("COMMENT ON TABLE orders IS 'x'"))
                    .isInstanceOf(UnfenceableStatementException.class);
        }
        try (Connection connection = raw().getConnection(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT obj_description('fd_regions'::regclass)")) {
            rows.next();
            assertThat(rows.getString(1)).isEqualTo("copied from orders");
        }
    }

    // ---- over-refusals (issue 29): forms a raw connection runs that the driver must not refuse --

    @Test
    void aBackslashThatStandsBeforeNoQuoteReadsTheSameInEverySessionAndPasses() throws SQLException {
        // the refused form: a backslash before a quote ends the string where standard_conforming_strings decides
        backslashesBeforeNoQuotePass("'it''s \\ fine'", "it's \\ fine", "'C:\\dir'", "C:\\dir", "'a\\'");
    }

    @Test
    void pgjdbcsQuestionMarkEscapesAreJsonbOperatorsNotParameters() throws SQLException {
        sql("ALTER TABLE orders ADD COLUMN doc JSONB");
        seed(42, "pending", 100, 5);
        seed(43, "pending", 100, 50);
        sql("UPDATE orders SET doc = '{\"a\": 1, \"b\": 2}'");
        Connection connection = connection();
        for (String read : new String[] {"SELECT id FROM orders WHERE doc ?? ? AND id = ?",
                "SELECT id FROM orders WHERE doc ??| array[?] AND id = ?",
                "SELECT id FROM orders WHERE doc ??& array[?, 'b'] AND id = ?"}) {
            try (PreparedStatement select = connection.prepareStatement(read)) {
                select.setString(1, "a");
                select.setLong(2, 42);
                try (ResultSet rows = select.executeQuery()) {
                    assertThat(rows.next()).as(read).isTrue();
                    assertThat(rows.getLong(1)).isEqualTo(42);
                }
            }
        }
        String pay = "UPDATE orders SET status = ? WHERE id = ? AND doc ??| array['a', ?]";
        try (Fence.Scope scope = Fence.enter(20); PreparedStatement update = connection.prepareStatement(pay)) {
            update.setString(1, "paid");
            update.setLong(2, 42);
            update.setString(3, "z");
            assertThat(update.executeUpdate()).isEqualTo(1);
            update.setLong(2, 43);
            assertThat((Throwable) catchThrowableOfType(StaleFenceException.class, update::executeUpdate)).isNotNull();
        }
        try (PreparedStatement update = connection.prepareStatement(pay)) {
            update.setString(1, "hacked");
            update.setLong(2, 42);
            update.setString(3, "z");
            assertThatThrownBy(update::executeUpdate).isInstanceOf(MissingFenceException.class);
        }
        assertThat(order(42)).isEqualTo(new Order(42, "paid", 100, 20));
        assertThat(order(43)).isEqualTo(new Order(43, "pending", 100, 50));
    }

    @Test
    void aUnicodeEscapedNameIsRefusedForWhatItIs() throws SQLException {
        seed(42, "pending", 100, 5);
        try (Fence.Scope scope = Fence.enter(20); Statement statement = connection().createStatement()) {
            assertThatThrownBy(() -> statement.executeUpdate("UPDATE U&\"ord\\0065rs\" SET status = 'hacked'"))
                    .isInstanceOf(UnfenceableStatementException.class).hasMessageContaining("Unicode-escaped name")
                    .hasMessageNotContaining("large object");
        }
        assertThat(order(42)).isEqualTo(new Order(42, "pending", 100, 5));
        sql("UPDATE U&\"ord\\0065rs\" SET status = 'hacked'"); // the raw path: the name is orders
        assertThat(order(42)).isEqualTo(new Order(42, "hacked", 100, 5));
    }
}
