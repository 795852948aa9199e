package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.FencingException;
import dev.fencing.UnfenceableStatementException;
import dev.fencing.jdbc.FencingDataSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

import org.junit.jupiter.api.Test;

/**
 * A {@code FencingDataSource} whose delegate hands out connections fenced already (a routing data
 * source over fenced targets, issue 33): fenced with the same configuration, they are handed on as
 * they are, so no plan sees a text the driver spliced; fenced with another, they are refused.
 * Before, the outer layer spliced the write and the inner one refused the spliced text as a
 * statement that sets the fence column itself.
 */
class FencingDataSourceOverFencedTest {

    private static final FencingConfig CONFIG = FencingConfig.builder().tables("orders").build();

    @Test
    void aConnectionFencedWithTheSameConfigurationIsFencedOnce() throws SQLException {
        DataSource raw = H2.database();
        try (Connection setup = raw.getConnection(); Statement statement = setup.createStatement()) {
            statement.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(20), last_fence BIGINT NOT NULL DEFAULT 0)");
            statement.execute("INSERT INTO orders (id, status) VALUES (1, 'pending')");
        }
        FencingDataSource inner = new FencingDataSource(raw, CONFIG);
        FencingDataSource outer = new FencingDataSource(inner, FencingConfig.builder().tables("orders").build());
        try (Fence.Scope scope = Fence.enter(5); Connection connection = outer.getConnection();
             Statement statement = connection.createStatement()) {
            assertThat(statement.executeUpdate("UPDATE orders SET status = 'paid' WHERE id = 1")).isEqualTo(1);
            assertThatThrownBy(() -> statement.executeUpdate("UPDATE orders SET last_fence = 9 WHERE id = 1"))
                    .isInstanceOf(UnfenceableStatementException.class)
                    .hasMessageContaining("sets the fence column last_fence of orders itself");
        }
        try (Connection check = raw.getConnection(); Statement statement = check.createStatement();
             ResultSet row = statement.executeQuery("SELECT status, last_fence FROM orders WHERE id = 1")) {
            assertThat(row.next()).isTrue();
            assertThat(row.getString(1)).isEqualTo("paid");
            assertThat(row.getLong(2)).isEqualTo(5);
        }
    }

    @Test
    void aConnectionFencedWithAnotherConfigurationIsRefused() {
        FencingDataSource inner = new FencingDataSource(H2.database(), CONFIG);
        FencingDataSource outer = new FencingDataSource(inner, FencingConfig.builder().tables("orders", "invoices").build());
        assertThatThrownBy(outer::getConnection)
                .isInstanceOf(FencingException.class)
                .hasMessageContaining("another fencing layer fences with a different configuration");
    }
}
