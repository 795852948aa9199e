package dev.fencing.internal.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * What MariaDB Connector/J reports of its session, for {@link SessionEncoding}: the
 * {@code character_set_client} the server reported last. Connector/J asks the server at connect
 * to report that variable's changes (session tracking), and {@code SessionTexts} refuses texts
 * that would stop the reports. A class of its own so that Connector/J's types are resolved only
 * where it is the driver (it is an optional dependency).
 */
final class MariaDbConnectorSession implements SessionEncoding.Reader {

    private final org.mariadb.jdbc.Connection connection;

    private MariaDbConnectorSession(org.mariadb.jdbc.Connection connection) {
        this.connection = connection;
    }

    /** The session of {@code database} when MariaDB Connector/J is its driver, else null. */
    static MariaDbConnectorSession of(Connection database) throws SQLException {
        return database.isWrapperFor(org.mariadb.jdbc.Connection.class)
                ? new MariaDbConnectorSession(database.unwrap(org.mariadb.jdbc.Connection.class)) : null;
    }

    @Override
    public String encoding() {
        // the context is read each time: a failover replaces it
        return connection.getContext().getCharset();
    }
}
