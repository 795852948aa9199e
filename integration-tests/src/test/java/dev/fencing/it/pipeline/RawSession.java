package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The database's session behind a fenced connection, for tests that must act on that session as a
 * raw script or a pool would. The driver hands it to nobody outside its own code
 * ({@link FencedConnection#databaseBehind} refuses other callers); these tests share the wrappers'
 * package and read it as the driver itself does.
 */
final class RawSession {

    private RawSession() {
    }

    /** The driver's connection behind {@code connection} when it is fenced, else {@code connection} itself. */
    static Connection behind(Connection connection) throws SQLException {
        FencedConnection fenced = FencedConnection.fencedBehind(connection);
        return fenced == null ? connection : JdbcInternals.database(fenced);
    }
}
