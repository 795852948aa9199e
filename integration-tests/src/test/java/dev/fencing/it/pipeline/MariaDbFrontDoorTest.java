package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.jdbc.FencingDataSource;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.FencingException;
import dev.fencing.MissingFenceException;
import dev.fencing.StaleFenceException;
import dev.fencing.UnfenceableStatementException;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.Test;
import org.mariadb.jdbc.MariaDbDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** The front door on MariaDB: compound statements, its comment and wrapper forms, bulk batches. */
@TestDatabase(TestDatabase.Kind.MARIADB)
class MariaDbFrontDoorTest extends FrontDoorContract {

    private final DataSource database;

    MariaDbFrontDoorTest(DataSource database) {
        this.database = database;
    }

    @Override
    DataSource raw() {
        return database;
    }

    private MariaDbDataSource withOptions(String options) throws SQLException {
        return ScratchAreas.mariaDbWithOptions(database, options);
    }

    @Test
    void compoundStatementsAreProcedureCallsSoRejectRefusesThem() throws SQLException {
        seed(42, "pending", 100, 5);
        String[] compounds = {
                "BEGIN NOT ATOMIC EXECUTE IMMEDIATE CONCAT('UPDATE ord', 'ers SET status = ''hacked'''); END",
                "IF 1 = 1 THEN EXECUTE IMMEDIATE CONCAT('UPDATE ord', 'ers SET status = ''hacked'''); END IF",
                "lbl: BEGIN NOT ATOMIC EXECUTE IMMEDIATE CONCAT('UPDATE ord', 'ers SET status = ''hacked'''); END lbl",
                "CASE WHEN 1 = 1 THEN EXECUTE IMMEDIATE CONCAT('UPDATE ord', 'ers SET status = ''hacked'''); END CASE",
                "WHILE (SELECT status FROM notes LIMIT 1) IS NULL DO EXECUTE IMMEDIATE CONCAT('UPDATE ord', "
                        + "'ers SET status = ''hacked'''); INSERT INTO notes (id) VALUES (1); END WHILE"};
        FencingDataSource rejecting = fenced(b -> b.procedureCalls(FencingConfig.ProcedureCalls.REJECT));
        try (Fence.Scope scope = Fence.enter(40); Statement statement = connection(rejecting).createStatement()) {
            for (String compound : compounds) {
                assertThatThrownBy(() -> statement.execute(compound)).as(compound)
                        .isInstanceOf(UnfenceableStatementException.class).hasMessageContaining("compound");
            }
        }
        try (Statement statement = connection().createStatement()) {
            assertThatThrownBy(() -> statement.execute("BEGIN NOT ATOMIC EXECUTE IMMEDIATE 'UPDATE orders SET status = 1'; END"))
                    .isInstanceOf(UnfenceableStatementException.class);
        }
        assertThat(order(42)).isEqualTo(new Order(42, "pending", 100, 5));
        sql(compounds[1]); // the raw path: the built statement writes the fenced row
        assertThat(order(42).status()).isEqualTo("hacked");
    }

    @Test
    void hashCommentsSetStatementAndHibernatesAliasDeleteAreFenced() throws SQLException {
        seed(1, "none", 100, 5);
        seed(2, "pending", 100, 50);
        seed(3, "none", 100, 50);
        Connection connection = connection();
        try (Fence.Scope scope = Fence.enter(20); Statement statement = connection.createStatement()) {
            assertThat(statement.executeUpdate("UPDATE orders SET amount = 7 # why\n WHERE id = 1")).isEqualTo(1);
            assertThat(statement.executeUpdate("SET STATEMENT max_statement_time = 10 FOR UPDATE orders SET amount = 8 "
                    + "WHERE id = 1")).isEqualTo(1);
            assertThat((Throwable) catchThrowableOfType(StaleFenceException.class, () -> statement.executeUpdate(
                    "SET STATEMENT max_statement_time = 10 FOR UPDATE orders SET amount = 8 WHERE id = 2"))).isNotNull();
            // Hibernate 6's bulk HQL delete on MariaDB: row 1 carries an older fence, row 3 a newer one
            assertThat(statement.executeUpdate("delete o1_0 from orders o1_0 where o1_0.id=1 and o1_0.status='none'"))
                    .isEqualTo(1);
            assertThat((Throwable) catchThrowableOfType(StaleFenceException.class, () -> statement.executeUpdate(
                    "delete o1_0 from orders o1_0 where o1_0.id=3 and o1_0.status='none'"))).isNotNull();
        }
        try (Statement statement = connection.createStatement()) {
            assertThatThrownBy(() -> statement.executeUpdate("delete o1_0 from orders o1_0 where o1_0.status='none'"))
                    .isInstanceOf(MissingFenceException.class);
        }
        assertThat(order(1)).isNull();
        assertThat(order(2)).isEqualTo(new Order(2, "pending", 100, 50));
        assertThat(order(3)).isEqualTo(new Order(3, "none", 100, 50));
    }

    @Test
    void dashDashBeforeAUnicodeSpaceIsNoCommentToMariaDb() throws SQLException {
        seed(42, "pending", 100, 5);
        MariaDbDataSource multi = withOptions("allowMultiQueries=true");
        FencingDataSource fencedMulti = new FencingDataSource(multi, FencingConfig.builder().tables("orders").build());
        // to MariaDB: 2 - (-`<U+2028>`), a column of the derived table; then a live UPDATE
        String sql = "SELECT 2 --\u2028 FROM (SELECT 1 AS `\u2028`) t; UPDATE orders SET status = 'hacked' WHERE id = 42";
        try (Statement statement = connection(fencedMulti).createStatement()) {
            assertThatThrownBy(() -> statement.execute(sql)).isInstanceOfAny(MissingFenceException.class,
                    UnfenceableStatementException.class);
        }
        assertThat(order(42)).isEqualTo(new Order(42, "pending", 100, 5));
        try (Connection rawConnection = multi.getConnection(); Statement statement = rawConnection.createStatement()) {
            statement.execute(sql); // the raw path: the UPDATE runs
        }
        assertThat(order(42).status()).isEqualTo("hacked");
    }

    @Test
    void bulkBatchesWithoutCountsAreDiagnosedAfterTheyRan() throws SQLException {
        seed(1, "pending", 100, 5);
        seed(2, "pending", 100, 50);
        MariaDbDataSource bulk = withOptions("useBulkStmts=true");
        String pay = "UPDATE orders SET status = ? WHERE id = ?";
        try (Connection rawConnection = bulk.getConnection(); PreparedStatement update = rawConnection.prepareStatement(
                "UPDATE orders SET amount = amount WHERE id = ?")) {
            update.setLong(1, 1);
            update.addBatch();
            update.setLong(1, 2);
            update.addBatch();
            // the premise: this driver reports no counts for such a batch
            assertThat(update.executeBatch()).containsExactly(Statement.SUCCESS_NO_INFO, Statement.SUCCESS_NO_INFO);
        }
        FencingDataSource fencedBulk = new FencingDataSource(bulk, FencingConfig.builder().tables("orders").build());
        Connection connection = connection(fencedBulk);
        try (Fence.Scope scope = Fence.enter(20); PreparedStatement update = connection.prepareStatement(pay)) {
            update.setString(1, "paid");
            update.setLong(2, 1);
            update.addBatch();
            update.setString(1, "paid");
            update.setLong(2, 2);
            update.addBatch();
            StaleFenceException stale = catchThrowableOfType(StaleFenceException.class, update::executeBatch);
            assertThat((Throwable) stale).isNotNull();
            assertThat(stale.staleBatchEntries()).containsExactly(1);
            assertThat(stale.currentFence()).hasValue(50);
        }
        try (Fence.Scope scope = Fence.enter(60); PreparedStatement update = connection.prepareStatement(pay)) {
            update.setString(1, "shipped");
            update.setLong(2, 1);
            update.addBatch();
            update.setString(1, "shipped");
            update.setLong(2, 2);
            update.addBatch();
            update.executeBatch(); // both current: no exception
        }
        assertThat(order(1)).isEqualTo(new Order(1, "shipped", 100, 60));
        assertThat(order(2)).isEqualTo(new Order(2, "shipped", 100, 60));
        FencingDataSource strict = new FencingDataSource(bulk, FencingConfig.builder().tables("orders")
                .comparison(FencingConfig.Comparison.STRICTLY_NEWER).build());
        try (Fence.Scope scope = Fence.enter(70); PreparedStatement update = connection(strict).prepareStatement(pay)) {
            update.setString(1, "done");
            update.setLong(2, 1);
            update.addBatch();
            update.setString(1, "done");
            update.setLong(2, 1);
            update.addBatch();
            // the second entry meets the fence the first just wrote: rejected or not, the row cannot tell
            assertThatThrownBy(update::executeBatch).isInstanceOf(FencingException.class)
                    .hasMessageContaining("useBulkStmts=false");
        }
    }

    // ---- over-refusals (issue 29): forms a raw connection runs that the driver must not refuse --

    @Test
    void aBackslashThatStandsBeforeNoQuoteReadsTheSameInEverySqlModeAndPasses() throws SQLException {
        // the refused form: a backslash before a quote ends the string where sql_mode decides (NO_BACKSLASH_ESCAPES)
        backslashesBeforeNoQuotePass("'a\\\\b'", "a\\b", "'c\\\\d'", "c\\d", "'it\\'s'");
    }

    @Test
    void showStatementsOnAFencedTableAreReads() throws SQLException {
        try (Statement statement = connection().createStatement()) {
            try (ResultSet rows = statement.executeQuery("SHOW CREATE TABLE orders")) {
                assertThat(rows.next()).isTrue();
                assertThat(rows.getString(2)).contains("last_fence");
            }
            for (String show : new String[] {"SHOW COLUMNS FROM orders", "SHOW FULL COLUMNS FROM orders LIKE 'last%'",
                    "SHOW INDEX FROM orders"}) {
                try (ResultSet rows = statement.executeQuery(show)) {
                    assertThat(rows.next()).as(show).isTrue();
                }
            }
        }
    }
}
