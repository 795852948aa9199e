package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.jdbc.EpochTable;
import dev.fencing.jdbc.FencingDataSource;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.StaleFenceException;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the README promises: one configuration line switches a table to epoch mode. */
class EpochOneConfigLineTest {

    @Test
    void oneLineSwitchesATableToEpochMode() throws Exception {
        DataSource raw = H2.database();
        try (Connection connection = raw.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL)");
            statement.execute("INSERT INTO accounts VALUES (1, 100)");
        }
        Properties properties = new Properties();
        properties.setProperty("fencing.table.accounts.mode", "epoch");
        FencingConfig config = FencingConfig.fromProperties(properties);
        assertThat(config.hasEpochTables()).isTrue();
        EpochTable.createTable(raw, config);
        FencingDataSource fenced = new FencingDataSource(raw, config);

        try (Connection a = fenced.getConnection(); Connection b = new FencingDataSource(raw, config).getConnection()) {
            long read;
            try (Fence.Scope scope = Fence.enter("account:1", 7)) {
                read = EpochModeContract.query(a, "SELECT balance FROM accounts WHERE id = 1");
            }
            try (Fence.Scope scope = Fence.enter("account:1", 8)) {
                EpochModeContract.query(b, "SELECT balance FROM accounts WHERE id = 1");
            }
            // the read-modify-write of the holder whose tenure ended: rejected although B never wrote the row
            try (Fence.Scope scope = Fence.enter("account:1", 7)) {
                assertThatThrownBy(() -> EpochModeContract.update(a, "UPDATE accounts SET balance = " + (read + 1)
                        + " WHERE id = 1")).isInstanceOf(StaleFenceException.class);
            }
        }
        try (Connection connection = raw.getConnection()) {
            assertThat(EpochModeContract.query(connection, "SELECT balance FROM accounts WHERE id = 1")).isEqualTo(100);
        }
    }
}
