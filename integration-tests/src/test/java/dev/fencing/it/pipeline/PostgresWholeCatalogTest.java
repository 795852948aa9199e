package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.UnfenceableStatementException;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The whole catalog on PostgreSQL, and its table inheritance and partitions (issue 29, finding 4):
 * a table whose rows are, or include, rows of a fenced table is fenced or refused, whichever name
 * the statement uses.
 */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
class PostgresWholeCatalogTest extends WholeCatalogContract {

    private final DataSource database;

    PostgresWholeCatalogTest(DataSource database) {
        this.database = database;
    }

    @Override
    DataSource raw() {
        return database;
    }

    @Override
    String scratch() {
        return ScratchAreas.name(database);
    }

    @Override
    void createNamespace(String name) throws SQLException {
        sql("CREATE SCHEMA " + name);
    }

    @Override
    void dropNamespace(String name) throws SQLException {
        sql("DROP SCHEMA IF EXISTS " + name + " CASCADE");
    }

    @Override
    String switchTo(String name) {
        return "SET search_path TO " + name;
    }

    @Override
    void setCurrent(Connection connection, String name) throws SQLException {
        connection.setSchema(name);
    }

    private FencingDataSource fencing(String table) {
        return new FencingDataSource(database, FencingConfig.builder().tables(table).build());
    }

    /** Runs {@code write} through a fenced connection under a fence; it must be refused. */
    private void refused(FencingDataSource dataSource, String write, String because) throws SQLException {
        try (Fence.Scope scope = Fence.enter(40); Statement statement = connection(dataSource).createStatement()) {
            assertThatThrownBy(() -> statement.execute(write))
                    .as(write)
                    .isInstanceOf(UnfenceableStatementException.class)
                    .hasMessageContaining(because);
        }
    }

    private long amountOf(String table, long id) throws SQLException {
        try (Connection connection = raw().getConnection(); Statement statement = connection.createStatement();
             var rows = statement.executeQuery("SELECT amount FROM " + table + " WHERE id = " + id)) {
            return rows.next() ? rows.getLong(1) : -1;
        }
    }

    private void ledgerTables(String... statements) throws SQLException {
        sql("DROP TABLE IF EXISTS fd_ledger_base, fd_ledger, fd_ledger_extra CASCADE");
        sql(statements);
    }

    @Test
    void writesOfTheInheritanceParentOfAFencedTableAreRefused() throws SQLException {
        ledgerTables("CREATE TABLE fd_ledger_base (id BIGINT PRIMARY KEY, amount BIGINT, last_fence BIGINT NOT NULL DEFAULT 0)",
                "CREATE TABLE fd_ledger () INHERITS (fd_ledger_base)",
                "INSERT INTO fd_ledger (id, amount) VALUES (1, 100)");
        FencingDataSource fenced = fencing("fd_ledger");
        for (String write : new String[] {"UPDATE fd_ledger_base SET amount = 0", "DELETE FROM fd_ledger_base",
                "TRUNCATE fd_ledger_base"}) {
            refused(fenced, write, "fd_ledger_base");
        }
        assertThat(amountOf("fd_ledger", 1)).isEqualTo(100);
        sql("UPDATE fd_ledger_base SET amount = 0"); // the raw path: the fenced table's rows change
        assertThat(amountOf("fd_ledger", 1)).isZero();
    }

    @Test
    void writesOfAnInheritanceChildOfAFencedTableAreRefused() throws SQLException {
        ledgerTables("CREATE TABLE fd_ledger (id BIGINT PRIMARY KEY, amount BIGINT, last_fence BIGINT NOT NULL DEFAULT 0)",
                "CREATE TABLE fd_ledger_extra (note TEXT) INHERITS (fd_ledger)",
                "INSERT INTO fd_ledger_extra (id, amount) VALUES (1, 100)");
        FencingDataSource fenced = fencing("fd_ledger");
        refused(fenced, "UPDATE fd_ledger_extra SET amount = 0", "fd_ledger_extra");
        refused(fenced, "INSERT INTO fd_ledger_extra (id, amount) VALUES (2, 5)", "fd_ledger_extra");
        assertThat(amountOf("fd_ledger", 1)).isEqualTo(100);
        assertThat(amountOf("fd_ledger", 2)).isEqualTo(-1);
    }

    @Test
    void writesOfAPartitionOfAFencedTableByItsOwnNameAreRefusedAtAnyDepth() throws SQLException {
        ledgerTables("CREATE TABLE fd_ledger (id BIGINT, amount BIGINT, last_fence BIGINT NOT NULL DEFAULT 0) "
                        + "PARTITION BY RANGE (id)",
                "CREATE TABLE fd_ledger_p1 PARTITION OF fd_ledger FOR VALUES FROM (0) TO (1000) PARTITION BY RANGE (id)",
                "CREATE TABLE fd_ledger_p1a PARTITION OF fd_ledger_p1 FOR VALUES FROM (0) TO (500)",
                "INSERT INTO fd_ledger (id, amount) VALUES (1, 100)");
        FencingDataSource fenced = fencing("fd_ledger");
        refused(fenced, "UPDATE fd_ledger_p1 SET amount = 0", "fd_ledger_p1");
        refused(fenced, "UPDATE fd_ledger_p1a SET amount = 0", "fd_ledger_p1a");
        refused(fenced, "DELETE FROM fd_ledger_p1a", "fd_ledger_p1a");
        refused(fenced, "INSERT INTO fd_ledger_p1a (id, amount) VALUES (2, 5)", "fd_ledger_p1a");
        assertThat(amountOf("fd_ledger", 1)).isEqualTo(100);
        assertThat(amountOf("fd_ledger", 2)).isEqualTo(-1);
    }

    @Test
    void writesOfThePartitionedParentOfAFencedPartitionAreRefusedAndItsSiblingsPass() throws SQLException {
        ledgerTables("CREATE TABLE fd_ledger (id BIGINT, amount BIGINT, last_fence BIGINT NOT NULL DEFAULT 0) "
                        + "PARTITION BY RANGE (id)",
                "CREATE TABLE fd_ledger_p1 PARTITION OF fd_ledger FOR VALUES FROM (0) TO (1000)",
                "CREATE TABLE fd_ledger_p2 PARTITION OF fd_ledger FOR VALUES FROM (1000) TO (2000)",
                "INSERT INTO fd_ledger (id, amount) VALUES (1, 100), (1001, 100)");
        FencingDataSource fenced = fencing("fd_ledger_p1");
        refused(fenced, "UPDATE fd_ledger SET amount = 0", "fd_ledger");
        refused(fenced, "INSERT INTO fd_ledger (id, amount) VALUES (2, 5)", "fd_ledger");
        try (Fence.Scope scope = Fence.enter(40); Statement statement = connection(fenced).createStatement()) {
            assertThat(statement.executeUpdate("UPDATE fd_ledger_p2 SET amount = 7")).isEqualTo(1);
        }
        assertThat(amountOf("fd_ledger_p1", 1)).isEqualTo(100);
        assertThat(amountOf("fd_ledger_p2", 1001)).isEqualTo(7);
    }
}
