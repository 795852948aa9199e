package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.Fence;
import dev.fencing.jdbc.FencingDataSource;

import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the attacks on the whole-catalog facts share: order 1 (fence 100, 'pending') in the
 * scratch area's {@code orders}; a write shown on the raw path (rolled back) to change it; the same
 * write through the driver under the stale fence 40; and order 1 read back raw, unchanged.
 */
abstract class CatalogReachAttackFixture extends OrdersFixture {

    /** The scratch area's schema (MariaDB: database), which holds the fenced {@code orders}. */
    abstract String scratch();

    /** Runs {@code write} raw in a transaction that is rolled back; true when it removed or changed order 1. */
    boolean rawWriteChangesOrder(String write) throws SQLException {
        try (var connection = raw().getConnection(); Statement statement = connection.createStatement()) {
            connection.setAutoCommit(false);
            statement.execute(write);
            try (var rows = statement.executeQuery("SELECT COUNT(*) FROM " + scratch()
                    + ".orders WHERE id = 1 AND status = 'pending'")) {
                rows.next();
                boolean changed = rows.getLong(1) == 0;
                connection.rollback();
                return changed;
            }
        }
    }

    /** Runs {@code write} through {@code fenced} under the stale fence 40; a refusal is what should happen. */
    void throughTheDriver(FencingDataSource fenced, String write) throws SQLException {
        try (Fence.Scope scope = Fence.enter(40); Statement statement = connection(fenced).createStatement()) {
            statement.executeQuery("SELECT COUNT(*) FROM " + scratch() + ".orders").close(); // facts learned
            statement.execute(write);
        } catch (SQLException refused) {
            // refused (or failed): the fenced row must be unchanged, which the caller checks
        }
    }

    void orderOneIsUnchanged() throws SQLException {
        Order order = order(1);
        assertThat(order).as("order 1 read back raw").isNotNull();
        assertThat(order.status()).isEqualTo("pending");
        assertThat(order.lastFence()).isEqualTo(100);
    }
}
