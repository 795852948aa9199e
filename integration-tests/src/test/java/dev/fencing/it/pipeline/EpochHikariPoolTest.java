package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.jdbc.EpochTable;
import dev.fencing.jdbc.FencingDataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.FencingConfig;
import dev.fencing.StaleFenceException;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

import static dev.fencing.it.pipeline.EpochModeContract.as;
import static dev.fencing.it.pipeline.EpochModeContract.query;
import static dev.fencing.it.pipeline.EpochModeContract.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Epoch mode with HikariCP, on both sides of the fencing layer: a pooled connection goes back to
 * the pool with no transaction state of epoch mode (no check it may skip next time, no epoch row
 * lock, auto-commit as the pool set it), and a stale write does not cost the connection.
 */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
class EpochHikariPoolTest extends OrdersFixture {

    private final DataSource database;

    EpochHikariPoolTest(DataSource database) {
        this.database = database;
    }
    private final String lock = "acct:" + dev.fencing.it.UniqueNames.next("t_");

    @Override
    DataSource raw() {
        return database;
    }

    @BeforeEach
    void createEpochTables() throws SQLException {
        sql("DROP TABLE IF EXISTS accounts", "CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL)",
                "INSERT INTO accounts (id, balance) VALUES (1, 100)");
        EpochTable.createTable(raw(), EpochModeContract.config());
    }

    private HikariDataSource pool(String jdbcUrl, String... dataSourceProperties) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        for (int i = 0; i < dataSourceProperties.length; i += 2) {
            config.addDataSourceProperty(dataSourceProperties[i], dataSourceProperties[i + 1]);
        }
        config.setMaximumPoolSize(1);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(250);   // a second connection asked for while the only one is out fails fast
        config.setPoolName("fencing-epoch-test");
        return track(new HikariDataSource(config));
    }

    @Test
    void hikariAboveTheFencingDriver() throws Exception {
        HikariDataSource pool = pool(ScratchAreas.url(database).replaceFirst("^jdbc:", "jdbc:fencing:"),
                "fencing.tables", "orders", "fencing.table.accounts.mode", "epoch");
        returnedConnectionsCarryNoTransactionState(pool, pool);
    }

    @Test
    void hikariBelowTheFencingDataSource() throws Exception {
        HikariDataSource pool = pool(ScratchAreas.url(database));
        FencingDataSource fenced = new FencingDataSource(pool, EpochModeContract.config());
        returnedConnectionsCarryNoTransactionState(pool, fenced);
    }

    @Test
    void inAPoolOfOneWithItsConnectionOutAClaimIsCommittedWithoutASecondConnection() throws Exception {
        HikariDataSource above = pool(ScratchAreas.url(database).replaceFirst("^jdbc:", "jdbc:fencing:"),
                "fencing.tables", "orders", "fencing.table.accounts.mode", "epoch");
        HikariDataSource below = pool(ScratchAreas.url(database));
        long fence = 50;
        for (DataSource fenced : java.util.List.of(above, new FencingDataSource(below, EpochModeContract.config()))) {
            fence++;
            long tenure = fence;
            try (Connection connection = fenced.getConnection()) {
                connection.setAutoCommit(false);
                // the pool is saturated: the claim at the start of this transaction must use this connection
                assertThat((long) as(lock, tenure, () -> query(connection, "SELECT balance FROM accounts WHERE id = 1")))
                        .isEqualTo(100);
                connection.rollback();
            }
            assertThat(epochRow()).as("the claim outlived the rollback").isEqualTo(tenure);
            assertEpochRowNotLocked();
        }
        assertThat(above.getHikariPoolMXBean().getTotalConnections()).isEqualTo(1);
        assertThat(below.getHikariPoolMXBean().getTotalConnections()).isEqualTo(1);
    }

    @Test
    void anEagerClaimThroughThePoolOfTheFencingDriverServesItsConnectionsTransactions() throws Exception {
        HikariDataSource above = pool(ScratchAreas.url(database).replaceFirst("^jdbc:", "jdbc:fencing:"),
                "fencing.tables", "orders", "fencing.table.accounts.mode", "epoch");
        EpochTable.claim(above, lock, 60);
        assertThat(epochRow()).isEqualTo(60);
        try (Connection connection = above.getConnection()) {
            connection.setAutoCommit(false);
            query(connection, "SELECT COUNT(*) FROM orders");   // the transaction has sent something
            // the eager claim was recorded where the driver's connections look: no late claim to refuse
            assertThat((long) as(lock, 60, () -> query(connection, "SELECT balance FROM accounts WHERE id = 1")))
                    .isEqualTo(100);
            connection.rollback();
        }
    }

    private void returnedConnectionsCarryNoTransactionState(HikariDataSource pool, DataSource fenced) throws Exception {
        long pid = backendPid(fenced);

        // a transaction that checked the epoch row goes back to the pool without commit: the pool rolls it back
        try (Connection connection = fenced.getConnection()) {
            connection.setAutoCommit(false);
            as(lock, 40, () -> { update(connection, "UPDATE accounts SET balance = 140 WHERE id = 1"); return null; });
        }
        assertThat(balance()).isEqualTo(100);
        assertEpochRowNotLocked();

        // a newer tenure claims through another process
        try (Connection other = new FencingDataSource(raw(), EpochModeContract.config()).getConnection()) {
            as(lock, 41, () -> query(other, "SELECT balance FROM accounts WHERE id = 1"));
        }
        assertThat(epochRow()).isEqualTo(41);

        // the same pooled connection, the old tenure, a new transaction: checked again, so rejected
        try (Connection connection = fenced.getConnection()) {
            assertThat(connection.getAutoCommit()).as("auto-commit as the pool hands it out").isTrue();
            connection.setAutoCommit(false);
            assertThatThrownBy(() -> as(lock, 40, () -> {
                update(connection, "UPDATE accounts SET balance = 140 WHERE id = 1");
                return null;
            })).isInstanceOf(StaleFenceException.class);
            connection.rollback();
        }
        // and in auto-commit: rejected, short transaction ended, connection kept
        try (Connection connection = fenced.getConnection()) {
            assertThatThrownBy(() -> as(lock, 40, () -> {
                update(connection, "UPDATE accounts SET balance = 140 WHERE id = 1");
                return null;
            })).isInstanceOf(StaleFenceException.class);
            assertThat(connection.getAutoCommit()).isTrue();
        }
        assertThat(balance()).isEqualTo(100);
        assertEpochRowNotLocked();

        // the new tenure writes through the same pooled connection
        try (Connection connection = fenced.getConnection()) {
            as(lock, 41, () -> { update(connection, "UPDATE accounts SET balance = 141 WHERE id = 1"); return null; });
            assertThat(connection.getAutoCommit()).isTrue();
        }
        assertThat(balance()).isEqualTo(141);
        assertEpochRowNotLocked();
        assertThat(backendPid(fenced)).isEqualTo(pid);
        assertThat(pool.getHikariPoolMXBean().getTotalConnections()).isEqualTo(1);
    }

    private static long backendPid(DataSource dataSource) throws SQLException {
        try (Connection connection = dataSource.getConnection();
             ResultSet rows = connection.createStatement().executeQuery("SELECT pg_backend_pid()")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private long balance() throws SQLException {
        try (Connection connection = raw().getConnection()) {
            return query(connection, "SELECT balance FROM accounts WHERE id = 1");
        }
    }

    private Long epochRow() throws SQLException {
        try (Connection connection = raw().getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT fence FROM fencing_epochs WHERE lock_name = ?")) {
            select.setString(1, lock);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? rows.getLong(1) : null;
            }
        }
    }

    private void assertEpochRowNotLocked() throws SQLException {
        try (Connection connection = raw().getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement select = connection.prepareStatement(
                    "SELECT fence FROM fencing_epochs WHERE lock_name = ? FOR UPDATE NOWAIT")) {
                select.setString(1, lock);
                select.executeQuery().close();
            } finally {
                connection.rollback();
            }
        }
    }
}
