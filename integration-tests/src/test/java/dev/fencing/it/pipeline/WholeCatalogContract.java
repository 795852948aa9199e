package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.Fence;
import dev.fencing.UnfenceableStatementException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The schema facts cover the whole catalog (issue 29, finding 3): {@code fencing.tables=orders}
 * names {@code orders} in every schema (MariaDB: database), so a foreign key that cascades into an
 * {@code orders} of another schema is as much a way around the fence as one in the current schema,
 * and switching the current schema ({@code setSchema}, {@code SET search_path}, {@code USE}) changes
 * nothing the facts say. Each test first shows, through the raw data source, that the refused
 * statement would have written the fenced row.
 */
abstract class WholeCatalogContract extends OrdersFixture {

    /** The second schema (MariaDB: database) of the test: the scratch area's name with a suffix. */
    String other;

    /** Creates {@code name} as an empty schema (MariaDB: database). */
    abstract void createNamespace(String name) throws SQLException;

    /** Drops {@code name} with everything in it. */
    abstract void dropNamespace(String name) throws SQLException;

    /** The text that makes {@code name} the current schema (MariaDB: database) of a session. */
    abstract String switchTo(String name);

    /** Makes {@code name} current through JDBC ({@code setSchema}, MariaDB {@code setCatalog}). */
    abstract void setCurrent(Connection connection, String name) throws SQLException;

    /** The scratch area's own name. */
    abstract String scratch();

    @BeforeEach
    void otherNamespace() throws SQLException {
        other = scratch() + "_oth";
        dropNamespace(other);
        createNamespace(other);
        sql("CREATE TABLE " + other + ".fd_customers (id BIGINT PRIMARY KEY, name VARCHAR(20))",
                "CREATE TABLE " + other + ".orders (id BIGINT PRIMARY KEY, cid BIGINT, status VARCHAR(20), "
                        + "last_fence BIGINT NOT NULL DEFAULT 0, "
                        + "CONSTRAINT fd_oth_order_customer FOREIGN KEY (cid) REFERENCES " + other
                        + ".fd_customers (id) ON DELETE CASCADE)",
                "INSERT INTO " + other + ".fd_customers (id, name) VALUES (1, 'ann'), (2, 'bob')",
                "INSERT INTO " + other + ".orders (id, cid, status, last_fence) VALUES (42, 1, 'pending', 5), "
                        + "(43, 2, 'pending', 5)");
    }

    @AfterEach
    void dropOtherNamespace() throws SQLException {
        dropNamespace(other);
    }

    private long otherOrders() throws SQLException {
        return count(other + ".orders");
    }

    @Test
    void theRawPathShowsTheCascadeWritesTheOtherSchemasFencedRows() throws SQLException {
        sql("DELETE FROM " + other + ".fd_customers WHERE id = 2");
        assertThat(otherOrders()).isEqualTo(1);
    }

    @Test
    void aQualifiedDeleteInAnotherSchemaThatCascadesIntoItsFencedTableIsRefused() throws SQLException {
        try (Fence.Scope scope = Fence.enter(40); Statement statement = connection().createStatement()) {
            assertThatThrownBy(() -> statement.executeUpdate("DELETE FROM " + other + ".fd_customers WHERE id = 1"))
                    .isInstanceOf(UnfenceableStatementException.class)
                    .hasMessageContaining("fd_customers -> orders (ON DELETE CASCADE)");
        }
        assertThat(otherOrders()).isEqualTo(2);
    }

    @Test
    void theSameDeleteAfterSwitchingSchemaByTextIsRefused() throws SQLException {
        Connection connection = connection();
        try (Fence.Scope scope = Fence.enter(40); Statement statement = connection.createStatement()) {
            statement.executeQuery("SELECT COUNT(*) FROM orders").close(); // facts learned in the scratch area
            statement.execute(switchTo(other));
            assertThatThrownBy(() -> statement.executeUpdate("DELETE FROM fd_customers WHERE id = 1"))
                    .isInstanceOf(UnfenceableStatementException.class);
        }
        assertThat(otherOrders()).isEqualTo(2);
    }

    @Test
    void theSameDeleteAfterSwitchingSchemaThroughJdbcIsRefused() throws SQLException {
        Connection connection = connection();
        try (Fence.Scope scope = Fence.enter(40); Statement statement = connection.createStatement()) {
            statement.executeQuery("SELECT COUNT(*) FROM orders").close();
            setCurrent(connection, other);
            assertThatThrownBy(() -> statement.executeUpdate("DELETE FROM fd_customers WHERE id = 1"))
                    .isInstanceOf(UnfenceableStatementException.class);
        }
        assertThat(otherOrders()).isEqualTo(2);
    }

    @Test
    void factsLearnedInAnotherSchemaStillCoverTheScratchAreasCascades() throws SQLException {
        sql("ALTER TABLE orders ADD COLUMN cid BIGINT",
                "CREATE TABLE fd_customers (id BIGINT PRIMARY KEY, name VARCHAR(20))",
                "ALTER TABLE orders ADD CONSTRAINT fd_order_customer FOREIGN KEY (cid) REFERENCES fd_customers (id) "
                        + "ON DELETE CASCADE",
                "INSERT INTO fd_customers (id, name) VALUES (7, 'cy')");
        seed(70, "pending", 100, 5);
        sql("UPDATE orders SET cid = 7 WHERE id = 70");
        Connection connection = connection();
        try (Fence.Scope scope = Fence.enter(40); Statement statement = connection.createStatement()) {
            setCurrent(connection, other);
            statement.executeQuery("SELECT COUNT(*) FROM orders").close(); // facts learned in the other schema
            setCurrent(connection, scratch());
            assertThatThrownBy(() -> statement.executeUpdate("DELETE FROM fd_customers WHERE id = 7"))
                    .isInstanceOf(UnfenceableStatementException.class)
                    .hasMessageContaining("ON DELETE CASCADE");
        }
        assertThat(order(70)).isNotNull();
    }

    @Test
    void aParentThatCascadesNowhereStillPasses() throws SQLException {
        sql("CREATE TABLE " + other + ".fd_tags (id BIGINT PRIMARY KEY, name VARCHAR(20))",
                "INSERT INTO " + other + ".fd_tags (id, name) VALUES (1, 'x')");
        try (Fence.Scope scope = Fence.enter(40); Statement statement = connection().createStatement()) {
            assertThat(statement.executeUpdate("DELETE FROM " + other + ".fd_tags WHERE id = 1")).isEqualTo(1);
        }
        try (Connection connection = raw().getConnection(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM " + other + ".fd_tags")) {
            rows.next();
            assertThat(rows.getLong(1)).isZero();
        }
    }
}
