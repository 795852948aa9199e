package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.FencingException;
import dev.fencing.jdbc.EpochTable;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.testing.TestDatabase;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;

import org.junit.jupiter.api.Test;

/**
 * The fence column of a row-mode table is checked the first time a fenced write names it: a
 * missing column or one that holds no integers is refused with the table and the column named,
 * nothing sent; a table created after the data source was first used is checked when it is first
 * written; an epoch-mode table needs no column. On PostgreSQL, MariaDB and H2.
 */
class FenceColumnCheckTest {

    @Test
    void aMissingColumnIsRefusedNamingTheTableAndTheColumn(@TestDatabase(TestDatabase.Kind.POSTGRESQL) DataSource pg,
                                                           @TestDatabase(TestDatabase.Kind.MARIADB) DataSource maria)
            throws SQLException {
        for (DataSource raw : List.of(pg, maria, H2.database())) {
            execute(raw, "CREATE TABLE payments (id BIGINT PRIMARY KEY, status VARCHAR(20))",
                    "INSERT INTO payments VALUES (1, 'pending')");
            FencingDataSource fenced = new FencingDataSource(raw, FencingConfig.builder().tables("payments")
                    .column("fence_no").build());
            try (Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
                 Fence.Scope scope = Fence.enter(7)) {
                assertThatThrownBy(() -> statement.executeUpdate("UPDATE payments SET status = 'paid' WHERE id = 1"))
                        .isInstanceOf(FencingException.class)
                        .hasMessageContaining("fenced table payments has no fence column fence_no (fencing.column)")
                        .hasMessageContaining("nothing was sent");
            }
            assertThat(status(raw, "payments")).isEqualTo("pending");
            assertThat(fenced.fenceColumnsChecked()).isEmpty();
        }
    }

    @Test
    void aColumnThatHoldsNoIntegersIsRefused(@TestDatabase(TestDatabase.Kind.POSTGRESQL) DataSource pg,
                                             @TestDatabase(TestDatabase.Kind.MARIADB) DataSource maria)
            throws SQLException {
        for (DataSource raw : List.of(pg, maria, H2.database())) {
            execute(raw, "CREATE TABLE invoices (id BIGINT PRIMARY KEY, status VARCHAR(20), last_fence VARCHAR(20))",
                    "INSERT INTO invoices VALUES (1, 'pending', '0')");
            FencingDataSource fenced = new FencingDataSource(raw, FencingConfig.builder().tables("invoices").build());
            try (Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
                 Fence.Scope scope = Fence.enter(7)) {
                assertThatThrownBy(() -> statement.executeUpdate("UPDATE invoices SET status = 'paid' WHERE id = 1"))
                        .isInstanceOf(FencingException.class)
                        .hasMessageContaining("the fence column last_fence of fenced table invoices is of type ")
                        .hasMessageContaining("it must hold integers");
            }
            assertThat(status(raw, "invoices")).isEqualTo("pending");
        }
    }

    @Test
    void aTableCreatedAfterTheFirstUseIsCheckedWhenItIsFirstWritten(
            @TestDatabase(TestDatabase.Kind.POSTGRESQL) DataSource pg, @TestDatabase(TestDatabase.Kind.MARIADB) DataSource maria)
            throws SQLException {
        for (DataSource raw : List.of(pg, maria, H2.database())) {
            execute(raw, "CREATE TABLE refunds (id BIGINT PRIMARY KEY, status VARCHAR(20), last_fence BIGINT NOT NULL DEFAULT 0)",
                    "INSERT INTO refunds VALUES (1, 'pending', 0)");
            FencingDataSource fenced = new FencingDataSource(raw, FencingConfig.builder().tables("refunds", "ledger")
                    .build());
            try (Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
                 Fence.Scope scope = Fence.enter(7)) {
                assertThat(statement.executeUpdate("UPDATE refunds SET status = 'paid' WHERE id = 1")).isEqualTo(1);
                assertThat(fenced.fenceColumnsChecked()).containsExactly("refunds");
                // a table that does not exist yet is no fencing error: the database says so
                try (Connection other = new FencingDataSource(raw, fenced.config()).getConnection();
                     Statement early = other.createStatement()) {
                    assertThatThrownBy(() -> early.executeUpdate("UPDATE ledger SET status = 'paid' WHERE id = 1"))
                            .isInstanceOf(SQLException.class).isNotInstanceOf(FencingException.class);
                }
                // a migration creates it later, without the column: the first write that names it is refused
                execute(raw, "CREATE TABLE ledger (id BIGINT PRIMARY KEY, status VARCHAR(20))",
                        "INSERT INTO ledger VALUES (1, 'pending')");
                assertThatThrownBy(() -> statement.executeUpdate("UPDATE ledger SET status = 'paid' WHERE id = 1"))
                        .isInstanceOf(FencingException.class)
                        .hasMessageContaining("fenced table ledger has no fence column last_fence");
                // the column added: the next write passes, and the table is listed as checked
                execute(raw, "ALTER TABLE ledger ADD last_fence BIGINT NOT NULL DEFAULT 0");
                assertThat(statement.executeUpdate("UPDATE ledger SET status = 'paid' WHERE id = 1")).isEqualTo(1);
            }
            assertThat(status(raw, "ledger")).isEqualTo("paid");
            assertThat(fenced.fenceColumnsChecked()).containsExactly("ledger", "refunds");
        }
    }

    @Test
    void anEpochModeTableNeedsNoColumn() throws SQLException {
        DataSource raw = H2.database();
        execute(raw, "CREATE TABLE accounts (id BIGINT PRIMARY KEY, status VARCHAR(20))",
                "INSERT INTO accounts VALUES (1, 'pending')");
        FencingConfig config = FencingConfig.builder().tableMode("accounts", FencingConfig.Mode.EPOCH).build();
        EpochTable.createTable(raw, config);
        FencingDataSource fenced = new FencingDataSource(raw, config);
        try (Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
             Fence.Scope scope = Fence.enter("account:1", 7)) {
            assertThat(statement.executeUpdate("UPDATE accounts SET status = 'paid' WHERE id = 1")).isEqualTo(1);
        }
        assertThat(status(raw, "accounts")).isEqualTo("paid");
        assertThat(fenced.fenceColumnsChecked()).isEmpty();
    }

    private static void execute(DataSource raw, String... statements) throws SQLException {
        try (Connection connection = raw.getConnection(); Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }

    private static String status(DataSource raw, String table) throws SQLException {
        try (Connection connection = raw.getConnection(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT status FROM " + table + " WHERE id = 1")) {
            rows.next();
            return rows.getString(1);
        }
    }
}
