package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.jdbc.EpochTable;
import dev.fencing.jdbc.FencingDataSource;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.StaleFenceException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Epoch mode on a MariaDB server with {@code innodb_rollback_on_timeout=ON} (a private server):
 * error 1205 rolls back the whole transaction and releases the epoch row it had checked, so the
 * stale holder's next write must be checked again, and refused once a newer tenure has claimed.
 */
class MariaDbRollbackOnTimeoutEpochTest {

    private static MariaDbServerProcess server;
    private static DataSource database;

    @BeforeAll
    static void startServer() throws Exception {
        server = MariaDbServerProcess.start("--innodb-rollback-on-timeout=ON", "--innodb-lock-wait-timeout=1");
        database = server.dataSource("test");
        try (Connection connection = database.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL)");
            statement.execute("INSERT INTO accounts VALUES (1, 100), (2, 100)");
        }
        EpochTable.createTable(database, config());
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    static FencingConfig config() {
        return FencingConfig.builder().tables("accounts").mode(FencingConfig.Mode.EPOCH).build();
    }

    @Test
    void aStaleHoldersWriteAfterATimeoutThatRolledBackIsCheckedAgain() throws Exception {
        String lock = "acct:timeout";
        try (Connection stale = new FencingDataSource(database, config()).getConnection();
             Connection blocker = database.getConnection()) {
            stale.setAutoCommit(false);
            try (Fence.Scope scope = Fence.enter(lock, 5); Statement statement = stale.createStatement()) {
                statement.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = 1");   // checks the lock's epoch row
                blocker.setAutoCommit(false);
                blocker.createStatement().executeUpdate("UPDATE accounts SET balance = 0 WHERE id = 2");
                SQLException timeout = org.assertj.core.api.Assertions.catchThrowableOfType(
                        () -> statement.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = 2"),
                        SQLException.class);
                assertThat(timeout.getErrorCode()).isEqualTo(1205);
                blocker.rollback();
            }
            // the server rolled back the stale holder's transaction: its epoch row lock is gone, a newer tenure claims
            try (Fence.Scope scope = Fence.enter(lock, 6);
                 Connection newer = new FencingDataSource(database, config()).getConnection();
                 Statement statement = newer.createStatement()) {
                statement.executeUpdate("UPDATE accounts SET balance = balance + 10 WHERE id = 1");
            }
            try (Fence.Scope scope = Fence.enter(lock, 5); Statement statement = stale.createStatement()) {
                assertThatThrownBy(() -> statement.executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = 1"))
                        .isInstanceOf(StaleFenceException.class);
            }
            stale.commit();
        }
        try (Connection connection = database.getConnection(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT balance FROM accounts WHERE id = 1")) {
            rows.next();
            assertThat(rows.getLong(1)).isEqualTo(110);
        }
    }
}
