package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.jdbc.FencingDataSource;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.MissingFenceException;
import dev.fencing.UnfenceableStatementException;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The front door on H2: its E'..' strings and dollar rules. */
class H2FrontDoorTest extends FrontDoorContract {

    private static final DataSource DATABASE = H2.database();

    @Override
    DataSource raw() {
        return DATABASE;
    }

    @Test
    void escapeStringsEndWhereH2EndsThem() throws SQLException {
        seed(42, "pending", 100, 5);
        // to H2, E'\' is a one-character string: the EXECUTE IMMEDIATE after it is live
        String sql = "SELECT E'\\'; EXECUTE IMMEDIATE 'UPDATE ord' || 'ers SET status = ''hacked'''; SELECT '1'";
        FencingDataSource rejecting = fenced(b -> b.procedureCalls(FencingConfig.ProcedureCalls.REJECT));
        try (Fence.Scope scope = Fence.enter(40); Statement statement = connection(rejecting).createStatement()) {
            assertThatThrownBy(() -> statement.execute(sql)).isInstanceOf(UnfenceableStatementException.class)
                    .hasMessageContaining("procedure calls");
        }
        try (Statement statement = connection().createStatement()) {
            assertThatThrownBy(() -> statement.execute("SELECT E'\\'; UPDATE orders SET status = 'hacked'; SELECT '1'"))
                    .isInstanceOf(MissingFenceException.class);
        }
        assertThat(order(42)).isEqualTo(new Order(42, "pending", 100, 5));
        sql(sql); // the raw path
        assertThat(order(42).status()).isEqualTo("hacked");
    }

    @Test
    void aLoneDollarIsNoQuoteToH2() throws SQLException {
        seed(42, "pending", 100, 5);
        try (Fence.Scope scope = Fence.enter(40); Statement statement = connection().createStatement()) {
            assertThatThrownBy(() -> statement.execute("SELECT $a$; UPDATE orders SET status = 'hacked'; $a$"))
                    .isInstanceOf(UnfenceableStatementException.class).hasMessageContaining("lone '$'");
            statement.execute("SELECT $$a$$; UPDATE orders SET status = 'paid' WHERE id = 42");
        }
        assertThat(order(42)).isEqualTo(new Order(42, "paid", 100, 40));
    }

    @Test
    void commentsThatOnlyMentionAFencedTablePass() throws SQLException {
        try (Statement statement = connection().createStatement()) {
            statement.execute("COMMENT ON TABLE fd_regions IS 'copied from orders'");
            assertThatThrownBy(() -> statement.execute("COMMENT ON TABLE orders IS 'x'"))
                    .isInstanceOf(UnfenceableStatementException.class);
        }
    }

    @Test
    void dataChangeDeltaTablesAreRefusedByName() throws SQLException {
        sql(orderReferencesCustomer("ON DELETE CASCADE"), "INSERT INTO fd_customers (id, name) VALUES (1, 'ann')");
        seed(42, "pending", 100, 5);
        sql("UPDATE orders SET cid = 1 WHERE id = 42");
        String[] deltas = {"SELECT * FROM FINAL TABLE (UPDATE orders SET status = 'hacked' WHERE id = 42)",
                "SELECT id FROM NEW TABLE (INSERT INTO orders (id, status, amount) VALUES (7, 'hacked', 1))",
                "SELECT id FROM OLD TABLE (DELETE FROM orders WHERE id = 42)",
                // the cascade: deleting the customer deletes the fenced order
                "SELECT id FROM OLD TABLE (DELETE FROM fd_customers WHERE id = 1)"};
        try (Fence.Scope scope = Fence.enter(40); Statement statement = connection().createStatement()) {
            for (String delta : deltas) {
                assertThatThrownBy(() -> statement.executeQuery(delta)).as(delta)
                        .isInstanceOf(UnfenceableStatementException.class).hasMessageContaining("data-change delta table")
                        .hasMessageContaining(delta.substring(delta.indexOf("FROM ") + 5, delta.indexOf(" TABLE")) + " TABLE");
            }
        }
        assertThat(order(42)).isEqualTo(new Order(42, "pending", 100, 5));
        assertThat(count("orders")).isEqualTo(1);
        try (Connection connection = raw().getConnection(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(deltas[3])) {
            assertThat(rows.next()).isTrue(); // the raw path: the customer is deleted, and with it the fenced order
        }
        assertThat(order(42)).isNull();
    }
}
