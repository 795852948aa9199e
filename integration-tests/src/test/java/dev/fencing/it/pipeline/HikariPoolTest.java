package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.jdbc.FencingDataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.StaleFenceException;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * HikariCP above the {@code jdbc:fencing:} driver and below {@link FencingDataSource}: a fencing
 * rejection must neither evict the pooled connection nor spoil its transaction.
 */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
class HikariPoolTest extends OrdersFixture {

    private final DataSource database;

    HikariPoolTest(DataSource database) {
        this.database = database;
    }

    @Override
    DataSource raw() {
        return database;
    }

    private HikariDataSource pool(String jdbcUrl, String... dataSourceProperties) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        for (int i = 0; i < dataSourceProperties.length; i += 2) {
            config.addDataSourceProperty(dataSourceProperties[i], dataSourceProperties[i + 1]);
        }
        config.setMaximumPoolSize(1);
        config.setMinimumIdle(1);
        config.setPoolName("fencing-test");
        return track(new HikariDataSource(config));
    }

    private static long backendPid(DataSource dataSource) throws SQLException {
        try (Connection connection = dataSource.getConnection();
             ResultSet rows = connection.createStatement().executeQuery("SELECT pg_backend_pid()")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    @Test
    void hikariAboveTheFencingDriverKeepsTheConnectionAfterAStaleWrite() throws SQLException {
        seed(1, "pending", 100, 9);
        HikariDataSource pool = pool(ScratchAreas.url(database).replaceFirst("^jdbc:", "jdbc:fencing:") + "&fencing.tables=orders");
        staleWritesKeepThePooledConnection(pool, pool);
    }

    @Test
    void hikariPassesFencingKeysAsDataSourceProperties() throws SQLException {
        seed(1, "pending", 100, 9);
        HikariDataSource pool = pool(ScratchAreas.url(database).replaceFirst("^jdbc:", "jdbc:fencing:"),
                "fencing.tables", "orders", "fencing.comparison", "strictly-newer");
        staleWritesKeepThePooledConnection(pool, pool);
    }

    @Test
    void hikariBelowTheFencingDataSourceKeepsTheConnectionAfterAStaleWrite() throws SQLException {
        seed(1, "pending", 100, 9);
        HikariDataSource pool = pool(ScratchAreas.url(database));
        FencingDataSource fenced = new FencingDataSource(pool,
                FencingConfig.builder().tables("orders").build());
        staleWritesKeepThePooledConnection(pool, fenced);
        fenced.close();
        assertThat(pool.isClosed()).isTrue();
    }

    private void staleWritesKeepThePooledConnection(HikariDataSource pool, DataSource fenced) throws SQLException {
        long pid = backendPid(fenced);
        try (Connection connection = fenced.getConnection()) {
            assertThatThrownBy(() -> connection.unwrap(org.postgresql.PGConnection.class))
                    .isInstanceOf(SQLException.class);
            assertThat(connection.isWrapperFor(org.postgresql.PGConnection.class)).isFalse();
        }
        try (Connection connection = fenced.getConnection();
             Fence.Scope scope = Fence.enter(7)) {
            PreparedStatement update = connection.prepareStatement("UPDATE orders SET status = ? WHERE id = ?");
            update.setString(1, "paid");
            update.setLong(2, 1);
            StaleFenceException stale = catchThrowableOfType(StaleFenceException.class, update::executeUpdate);
            assertThat(stale.currentFence()).hasValue(9);
            assertThatThrownBy(() -> connection.createStatement()
                    .executeUpdate("UPDATE orders SET status = 'paid' WHERE id = 1"))
                    .isInstanceOf(StaleFenceException.class);
        }
        assertThat(backendPid(fenced)).isEqualTo(pid);
        assertThat(pool.getHikariPoolMXBean().getTotalConnections()).isEqualTo(1);
        assertThat(order(1)).isEqualTo(new Order(1, "pending", 100, 9));

        // inside a transaction: the rejected UPDATE changed no row and the diagnosis was a plain
        // SELECT, so the transaction goes on and commits
        seed(2, "pending", 100, 5);
        try (Connection connection = fenced.getConnection();
             Fence.Scope scope = Fence.enter(7)) {
            connection.setAutoCommit(false);
            Statement statement = connection.createStatement();
            assertThatThrownBy(() -> statement.executeUpdate("UPDATE orders SET status = 'paid' WHERE id = 1"))
                    .isInstanceOf(StaleFenceException.class);
            assertThat(statement.executeUpdate("UPDATE orders SET status = 'paid' WHERE id = 2")).isEqualTo(1);
            connection.commit();
            connection.setAutoCommit(true);
        }
        assertThat(backendPid(fenced)).isEqualTo(pid);
        assertThat(order(1)).isEqualTo(new Order(1, "pending", 100, 9));
        assertThat(order(2)).isEqualTo(new Order(2, "paid", 100, 7));

        // a refusal before sending (no fence) does not evict either
        try (Connection connection = fenced.getConnection()) {
            assertThatThrownBy(() -> connection.createStatement()
                    .executeUpdate("UPDATE orders SET status = 'x' WHERE id = 2"))
                    .isInstanceOf(dev.fencing.MissingFenceException.class);
        }
        assertThat(backendPid(fenced)).isEqualTo(pid);
        assertThat(order(2)).isEqualTo(new Order(2, "paid", 100, 7));
    }
}
