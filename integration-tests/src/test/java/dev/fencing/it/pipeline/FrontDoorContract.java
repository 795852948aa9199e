package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.jdbc.FencingDataSource;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.StaleFenceException;
import dev.fencing.UnfenceableStatementException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The front door on every database (issue 13): zero rows diagnosed as PRIMER.md decides them,
 * foreign-key cascades into fenced tables, and ordinary SQL that must not be refused. Rows are
 * checked in the database after every write; each safety test also shows, through the raw data
 * source, that what it refuses would have written the fenced rows.
 */
abstract class FrontDoorContract extends OrdersFixture {

    @BeforeEach
    void parentsAndScratchTables() throws SQLException {
        sql("DROP TABLE IF EXISTS fd_customers", "DROP TABLE IF EXISTS fd_regions",
                "DROP TABLE IF EXISTS orders_archive", "DROP TABLE IF EXISTS fd_zz",
                "CREATE TABLE fd_regions (id BIGINT PRIMARY KEY, name VARCHAR(20))",
                "CREATE TABLE fd_customers (id BIGINT PRIMARY KEY, rid BIGINT, name VARCHAR(20))",
                "ALTER TABLE orders ADD COLUMN cid BIGINT");
    }

    /** The SQL that makes fd_customers(id) a parent of orders(cid) with {@code actions}. */
    String orderReferencesCustomer(String actions) {
        return "ALTER TABLE orders ADD CONSTRAINT fd_order_customer FOREIGN KEY (cid) REFERENCES fd_customers (id) "
                + actions;
    }

    // ---- zero rows, as PRIMER.md decides them ---------------------------------------------------

    @Test
    void thePrimersScenarioRaisesStaleFenceException() throws SQLException {
        seed(42, "pending", 100, 0);
        String pay = "UPDATE orders SET status = 'paid', amount = ? WHERE id = ? AND status = 'pending'";
        Connection connection = connection();
        try (Fence.Scope b = Fence.enter(34); PreparedStatement update = connection.prepareStatement(pay)) {
            update.setLong(1, 250);
            update.setLong(2, 42);
            assertThat(update.executeUpdate()).isEqualTo(1);
        }
        try (Fence.Scope a = Fence.enter(33); PreparedStatement update = connection.prepareStatement(pay)) {
            update.setLong(1, 999);
            update.setLong(2, 42);
            StaleFenceException stale = catchThrowableOfType(StaleFenceException.class, update::executeUpdate);
            assertThat((Throwable) stale).as("paused A writing with 33 after B paid with 34").isNotNull();
            assertThat(stale.currentFence()).hasValue(34);
            assertThat(stale.attemptedFence()).isEqualTo(33);
        }
        try (Fence.Scope a = Fence.enter(33); Statement plain = connection.createStatement()) {
            StaleFenceException stale = catchThrowableOfType(StaleFenceException.class, () -> plain.executeUpdate(
                    "UPDATE orders SET status = 'paid', amount = 999 WHERE id = 42 AND status = 'pending'"));
            assertThat(stale.currentFence()).hasValue(34);
        }
        assertThat(order(42)).isEqualTo(new Order(42, "paid", 250, 34));
    }

    @Test
    void anOlderFenceWhoseBusinessPredicateNoLongerMatchesReturnsZero() throws SQLException {
        seed(42, "paid", 250, 5);
        try (Fence.Scope a = Fence.enter(33); PreparedStatement update = connection().prepareStatement(
                "UPDATE orders SET status = 'paid', amount = ? WHERE id = ? AND status = 'pending'")) {
            update.setLong(1, 999);
            update.setLong(2, 42);
            assertThat(update.executeUpdate()).isZero();
        }
        assertThat(order(42)).isEqualTo(new Order(42, "paid", 250, 5));
    }

    @Test
    void aPredicateWithoutAWholeKeyIsNotDiagnosedByKey() throws SQLException {
        seed(42, "paid", 250, 34);
        try (Fence.Scope a = Fence.enter(33); Statement plain = connection().createStatement()) {
            // amount is no key: which row the writer meant cannot be told, so the database's count stands
            assertThat(plain.executeUpdate("UPDATE orders SET status = 'x' WHERE amount = 250 AND status = 'pending'"))
                    .isZero();
            assertThat(plain.executeUpdate("UPDATE orders SET status = 'x' WHERE id = 42 AND status = 'pending' OR id = 7"))
                    .isZero();
        }
        assertThat(order(42)).isEqualTo(new Order(42, "paid", 250, 34));
    }

    @Test
    void aUniqueIndexIsAKeyTooAndADeleteIsDiagnosedTheSameWay() throws SQLException {
        sql("ALTER TABLE orders ADD COLUMN code VARCHAR(20)", "CREATE UNIQUE INDEX fd_orders_code ON orders (code)");
        seed(42, "paid", 250, 34);
        sql("UPDATE orders SET code = 'A-42' WHERE id = 42");
        try (Fence.Scope a = Fence.enter(33); PreparedStatement update = connection().prepareStatement(
                "UPDATE orders SET status = 'shipped' WHERE code = ? AND status = 'pending'")) {
            update.setString(1, "A-42");
            assertThat(catchThrowableOfType(StaleFenceException.class, update::executeUpdate).currentFence()).hasValue(34);
        }
        try (Fence.Scope a = Fence.enter(33); Statement plain = connection().createStatement()) {
            assertThat((Throwable) catchThrowableOfType(StaleFenceException.class,
                    () -> plain.executeUpdate("DELETE FROM orders WHERE id = 42 AND status = 'pending'"))).isNotNull();
        }
        assertThat(order(42)).isEqualTo(new Order(42, "paid", 250, 34));
    }

    // ---- foreign-key cascades into fenced tables -------------------------------------------------

    @Test
    void aDeleteThatCascadesIntoAFencedTableIsRefusedAndPointsToTheGuard() throws SQLException {
        sql(orderReferencesCustomer("ON DELETE CASCADE"), "INSERT INTO fd_customers (id, name) VALUES (1, 'ann')");
        seed(42, "pending", 100, 5);
        sql("UPDATE orders SET cid = 1 WHERE id = 42");
        Connection connection = connection();
        try (Fence.Scope scope = Fence.enter(40); Statement statement = connection.createStatement()) {
            assertThatThrownBy(() -> statement.executeUpdate("DELETE FROM fd_customers WHERE id = 1"))
                    .isInstanceOf(UnfenceableStatementException.class)
                    .hasMessageContaining("fd_customers -> orders (ON DELETE CASCADE)")
                    .hasMessageContaining("fencing.database-guard=required");
            // only deletes cascade here: an update of the parent writes no fenced row
            assertThat(statement.executeUpdate("UPDATE fd_customers SET name = 'bob' WHERE id = 1")).isEqualTo(1);
        }
        assertThat(order(42)).isNotNull();
        sql("DELETE FROM fd_customers WHERE id = 1"); // the raw path: the database removes the fenced row
        assertThat(order(42)).isNull();
    }

    @Test
    void cascadesAreFollowedAtAnyDepthAndLearnedAgainAfterSchemaChanges() throws SQLException {
        sql(orderReferencesCustomer("ON DELETE SET NULL"),
                "INSERT INTO fd_regions (id, name) VALUES (1, 'north'), (8, 'unused')",
                "INSERT INTO fd_customers (id, rid, name) VALUES (1, 1, 'ann')");
        seed(42, "pending", 100, 5);
        sql("UPDATE orders SET cid = 1 WHERE id = 42");
        FencingDataSource dataSource = fenced();
        Connection connection = connection(dataSource);
        try (Fence.Scope scope = Fence.enter(40); Statement statement = connection.createStatement()) {
            assertThat(statement.executeUpdate("DELETE FROM fd_regions WHERE id = 8")).isEqualTo(1);
            // a schema change through the driver: regions now cascade into customers, which set orders.cid NULL
            statement.execute("ALTER TABLE fd_customers ADD CONSTRAINT fd_customer_region FOREIGN KEY (rid) "
                    + "REFERENCES fd_regions (id) ON DELETE CASCADE");
            assertThatThrownBy(() -> statement.executeUpdate("DELETE FROM fd_regions WHERE id = 1"))
                    .isInstanceOf(UnfenceableStatementException.class)
                    .hasMessageContaining("fd_regions -> fd_customers -> orders");
        }
        try (Fence.Scope scope = Fence.enter(40); Statement other = connection(dataSource).createStatement()) {
            assertThatThrownBy(() -> other.executeUpdate("DELETE FROM fd_regions WHERE id = 1"))
                    .isInstanceOf(UnfenceableStatementException.class);
        }
        assertThat(orderCustomer(42)).isEqualTo(1L);
        sql("DELETE FROM fd_regions WHERE id = 1"); // the raw path: the fenced row is changed
        assertThat(orderCustomer(42)).isNull();
    }

    @Test
    void anUpdateOfAReferencedKeyThatCascadesIsRefused() throws SQLException {
        sql(orderReferencesCustomer("ON UPDATE CASCADE"), "INSERT INTO fd_customers (id, name) VALUES (1, 'ann')");
        seed(42, "pending", 100, 5);
        sql("UPDATE orders SET cid = 1 WHERE id = 42");
        try (Fence.Scope scope = Fence.enter(40); Statement statement = connection().createStatement()) {
            assertThatThrownBy(() -> statement.executeUpdate("UPDATE fd_customers SET id = 5 WHERE id = 1"))
                    .isInstanceOf(UnfenceableStatementException.class)
                    .hasMessageContaining("ON UPDATE CASCADE");
        }
        assertThat(orderCustomer(42)).isEqualTo(1L);
        sql("UPDATE fd_customers SET id = 5 WHERE id = 1");
        assertThat(orderCustomer(42)).isEqualTo(5L);
    }

    // ---- ordinary SQL that must pass -------------------------------------------------------------

    @Test
    void schemaChangesThatOnlyMentionAFencedTablesNamePass() throws SQLException {
        try (Statement statement = connection().createStatement()) {
            statement.execute("CREATE TABLE orders_archive (id BIGINT)");
            statement.execute("CREATE TABLE fd_zz (id INT, orders_count INT)");
            assertThat(statement.executeUpdate("INSERT INTO fd_zz (id, orders_count) VALUES (1, 2)")).isEqualTo(1);
            assertThatThrownBy(() -> statement.execute("DROP TABLE orders"))
                    .isInstanceOf(UnfenceableStatementException.class);
        }
        assertThat(count("orders_archive")).isZero();
        assertThat(count("fd_zz")).isEqualTo(1);
        assertThat(count("orders")).isZero();
    }

    @Test
    void schemaChangesOnAFencedTableAreRefusedInSqlWords() throws SQLException {
        try (Statement statement = connection().createStatement()) {
            assertThatThrownBy(() -> statement.execute("CREATE INDEX fd_status ON orders (status)"))
                    .isInstanceOf(UnfenceableStatementException.class)
                    .hasMessageContaining("CREATE INDEX statements that name a fenced table are refused");
        }
    }

    @Test
    void explainOfAReadReturnsThePlan() throws SQLException {
        seed(42, "pending", 100, 5);
        try (Statement statement = connection().createStatement();
             ResultSet plan = statement.executeQuery("EXPLAIN SELECT * FROM orders WHERE id = 42")) {
            assertThat(plan.next()).isTrue();
        }
    }

    @Test
    void sqlLevelExecuteIsRefusedUnderBothProcedureCallValues() throws SQLException {
        seed(42, "pending", 100, 5);
        for (FencingConfig.ProcedureCalls calls : FencingConfig.ProcedureCalls.values()) {
            try (Statement statement = connection(fenced(b -> b.procedureCalls(calls))).createStatement()) {
                assertThatThrownBy(() -> statement.execute("EXECUTE fd_write"))
                        .isInstanceOf(UnfenceableStatementException.class)
                        .hasMessageContaining("EXECUTE");
            }
        }
        assertThat(order(42)).isEqualTo(new Order(42, "pending", 100, 5));
    }

    /**
     * Strings whose backslashes stand before no quote end at the same place in every session: a
     * read with {@code selected} (holding {@code selectedValue}) finds its row, an UPDATE setting
     * {@code written} is fenced (a stale fence is refused), and the rows read back raw show it;
     * {@code endsElsewhere}, whose backslash stands before a quote, stays refused.
     */
    void backslashesBeforeNoQuotePass(String selected, String selectedValue, String written, String writtenValue,
                                      String endsElsewhere) throws SQLException {
        seed(42, selectedValue, 100, 5);
        seed(43, "pending", 100, 50);
        Connection connection = connection();
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT id FROM orders WHERE status = " + selected)) {
            assertThat(rows.next()).isTrue();
            assertThat(rows.getLong(1)).isEqualTo(42);
        }
        try (Fence.Scope scope = Fence.enter(20); Statement statement = connection.createStatement()) {
            assertThat(statement.executeUpdate("UPDATE orders SET status = " + written + " WHERE id = 42")).isEqualTo(1);
            assertThat((Throwable) catchThrowableOfType(StaleFenceException.class,
                    () -> statement.executeUpdate("UPDATE orders SET status = " + written + " WHERE id = 43"))).isNotNull();
            assertThatThrownBy(() -> statement.executeQuery("SELECT id FROM orders WHERE status = " + endsElsewhere))
                    .isInstanceOf(UnfenceableStatementException.class).hasMessageContaining("backslash");
        }
        assertThat(order(42)).isEqualTo(new Order(42, writtenValue, 100, 20));
        assertThat(order(43)).isEqualTo(new Order(43, "pending", 100, 50));
    }

    /**
     * Issue 29: a bulk insert of 10,000 literal rows (what loaders and ORMs send) is fenced, not
     * refused for the analysis's time: its rows share one shape, planned from templates of one to
     * three rows without JSqlParser reading the rows. Through a Statement and a PreparedStatement,
     * every row lands with its writer's fence, read back raw.
     */
    @Test
    void aTenThousandRowLiteralInsertIsFencedNotRefused() throws SQLException {
        Connection connection = connection();
        try (Fence.Scope scope = Fence.enter(77); Statement statement = connection.createStatement()) {
            assertThat(statement.executeUpdate(bulkInsert(0, 10_000))).isEqualTo(10_000);
        }
        try (Fence.Scope scope = Fence.enter(78);
             PreparedStatement insert = connection.prepareStatement(bulkInsert(10_000, 10_000))) {
            assertThat(insert.executeUpdate()).isEqualTo(10_000);
        }
        try (Connection raw = raw().getConnection(); Statement statement = raw.createStatement();
             ResultSet rows = statement.executeQuery("SELECT last_fence, COUNT(*), MIN(id), MAX(id), SUM(amount),"
                     + " COUNT(DISTINCT status) FROM orders GROUP BY last_fence ORDER BY last_fence")) {
            assertThat(rows.next()).isTrue();
            assertThat(new long[] {rows.getLong(1), rows.getLong(2), rows.getLong(3), rows.getLong(4), rows.getLong(5),
                    rows.getLong(6)}).containsExactly(77, 10_000, 0, 9_999, 2L * 9_999 * 10_000 / 2, 7);
            assertThat(rows.next()).isTrue();
            assertThat(new long[] {rows.getLong(1), rows.getLong(2), rows.getLong(3), rows.getLong(4), rows.getLong(5),
                    rows.getLong(6)}).containsExactly(78, 10_000, 10_000, 19_999, 2L * (10_000 + 19_999) * 10_000 / 2, 7);
            assertThat(rows.next()).isFalse();
        }
        assertThat(order(4_242)).isEqualTo(new Order(4_242, "bulk " + 4_242 % 7, 8_484, 77));
        assertThat(order(19_999)).isEqualTo(new Order(19_999, "bulk " + 19_999 % 7, 39_998, 78));
    }

    /** {@code INSERT INTO orders (id, status, amount) VALUES (id, 'bulk id % 7', 2 * id), ..} for {@code rows} ids from {@code first}. */
    static String bulkInsert(long first, int rows) {
        StringBuilder sql = new StringBuilder("INSERT INTO orders (id, status, amount) VALUES ");
        for (long id = first; id < first + rows; id++) {
            sql.append(id == first ? "" : ", ").append('(').append(id).append(", 'bulk ").append(id % 7).append("', ")
                    .append(2 * id).append(')');
        }
        return sql.toString();
    }

    Long orderCustomer(long id) throws SQLException {
        try (Connection connection = raw().getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT cid FROM orders WHERE id = ?")) {
            select.setLong(1, id);
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                long cid = rows.getLong(1);
                return rows.wasNull() ? null : cid;
            }
        }
    }
}
