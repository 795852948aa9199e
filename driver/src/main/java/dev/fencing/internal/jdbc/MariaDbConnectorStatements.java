package dev.fencing.internal.jdbc;

import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * What MariaDB Connector/J does with a prepared statement's values, for {@link SessionEncoding}.
 * A class of its own so that Connector/J's types are resolved only where it is the driver (it is
 * an optional dependency).
 */
final class MariaDbConnectorStatements {

    private MariaDbConnectorStatements() {
    }

    /**
     * True unless {@code statement} is prepared on the server ({@code useServerPrepStmts}), whose
     * values travel in the binary protocol: Connector/J's client-side prepared statements write
     * their values, escaped, into the text they send.
     */
    static boolean inlinesValues(PreparedStatement statement) throws SQLException {
        return !statement.isWrapperFor(org.mariadb.jdbc.ServerPreparedStatement.class);
    }
}
