package dev.fencing.internal.jdbc;

import org.postgresql.PGConnection;
import org.postgresql.jdbc.PreferQueryMode;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * What pgjdbc reports of its session, for {@link SessionEncoding}. A class of its own so that
 * pgjdbc's types are resolved only where pgjdbc is the driver (it is an optional dependency).
 */
final class PgjdbcSession {

    private final PGConnection connection;

    private PgjdbcSession(PGConnection connection) {
        this.connection = connection;
    }

    /** The session of {@code database} when pgjdbc is its driver, else null. */
    static PgjdbcSession of(Connection database) throws SQLException {
        return database.isWrapperFor(PGConnection.class) ? new PgjdbcSession(database.unwrap(PGConnection.class)) : null;
    }

    /**
     * The {@code client_encoding} the server reported last: PostgreSQL sends it at every change
     * (it is a reported parameter, whatever changed it: SET, RESET, set_config, a function), and
     * pgjdbc encodes what it sends in it when {@code allowEncodingChanges} is on (without it,
     * pgjdbc closes the connection at any change away from UTF8).
     */
    String clientEncoding() {
        return connection.getParameterStatus("client_encoding");
    }

    /** True in simple query mode, where pgjdbc writes a prepared statement's values into the text. */
    boolean inlinesValues() {
        return connection.getPreferQueryMode() == PreferQueryMode.SIMPLE;
    }
}
