package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.jdbc.FencingDataSource;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An attack on the metadata walk of the whole-catalog facts (issue 29, finding 3) on H2, which has
 * no catalog query of its own: the walk looks fenced tables up by the patterns {@code orders} and
 * {@code ORDERS} only, so a fenced table created with a quoted mixed-case name ({@code "Orders"},
 * which {@code fencing.tables=orders} fences by name) is never found, and nothing that cascades into
 * it is learned. The delete runs through the driver under a stale fence; the rows are read back raw.
 */
class H2CatalogReachAttackTest {

    private final DataSource database = H2.database();

    private void sql(String... statements) throws SQLException {
        try (Connection connection = database.getConnection(); Statement statement = connection.createStatement()) {
            for (String text : statements) {
                statement.execute(text);
            }
        }
    }

    private long fencedRows() throws SQLException {
        try (Connection connection = database.getConnection(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM tenant.\"Orders\"")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    @Test
    void aCascadeIntoAFencedTableWithAQuotedMixedCaseNameIsRefused() throws SQLException {
        sql("CREATE SCHEMA tenant",
                "CREATE TABLE tenant.customers (id BIGINT PRIMARY KEY)",
                "INSERT INTO tenant.customers (id) VALUES (1)",
                "CREATE TABLE tenant.\"Orders\" (id BIGINT PRIMARY KEY, cid BIGINT, status VARCHAR(20), "
                        + "last_fence BIGINT DEFAULT 0 NOT NULL, FOREIGN KEY (cid) REFERENCES tenant.customers (id) "
                        + "ON DELETE CASCADE)",
                "INSERT INTO tenant.\"Orders\" (id, cid, status, last_fence) VALUES (1, 1, 'pending', 100)");
        FencingDataSource fenced = new FencingDataSource(database, FencingConfig.builder().tables("orders").build());
        try (Fence.Scope scope = Fence.enter(40); Connection connection = fenced.getConnection();
             Statement statement = connection.createStatement()) {
            statement.executeQuery("SELECT COUNT(*) FROM tenant.\"Orders\"").close(); // facts learned
            statement.execute("DELETE FROM tenant.customers WHERE id = 1");
        } catch (SQLException refused) {
            // what should happen
        }
        assertThat(fencedRows()).as("fenced \"Orders\" rows read back raw").isEqualTo(1);
    }
}
