package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.Fence;
import dev.fencing.UnfenceableStatementException;
import dev.fencing.jdbc.FencingDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A write run twice in a transaction that is rolled back, for the oracles where the server
 * decides: raw, to see whether the fenced rows changed, and through the driver under a fence, to
 * see whether it refused the write.
 */
final class RolledBackWrites {

    /** Reads the fenced rows as one text, so that a change shows as a different text. */
    interface RowsReader {
        String read(Statement statement) throws SQLException;
    }

    private RolledBackWrites() {
    }

    /** Runs {@code write} raw, rolled back: did {@code rows} read something else after it? */
    static boolean changes(DataSource raw, String write, RowsReader rows) throws SQLException {
        try (Connection connection = raw.getConnection()) {
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                String before = rows.read(statement);
                try {
                    statement.execute(write);
                } catch (SQLException refusedByTheServer) {
                    return false; // RESTRICT, no partition for the row ..: nothing changed
                }
                return !before.equals(rows.read(statement));
            } finally {
                connection.rollback();
            }
        }
    }

    /** Runs {@code write} through {@code fenced} under the fence 40, rolled back: was it refused? */
    static boolean refusedByTheDriver(FencingDataSource fenced, String write) throws SQLException {
        try (Connection connection = fenced.getConnection(); Fence.Scope scope = Fence.enter(40)) {
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                statement.execute(write);
                return false;
            } catch (UnfenceableStatementException refused) {
                return true;
            } catch (SQLException refusedByTheServer) {
                return false;
            } finally {
                connection.rollback();
            }
        }
    }
}
