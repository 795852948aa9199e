package dev.fencing.internal.jdbc;

import dev.fencing.UnfenceableStatementException;
import dev.fencing.internal.sql.Dialect;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Which bytes the server reads. The analysis reads a text as Java characters; the server reads
 * the bytes the JDBC driver made of them, decoded in the session's client encoding. Unless that
 * encoding is one the analysis reads byte-exactly ({@link Dialect#readsClientEncodingExactly}),
 * a character can become a quote, a backslash or a backtick on the way (pgjdbc encodes U+00A5 as
 * 0x5C in EUC_JP), or a multi-byte character's last byte can swallow the quote or backslash after
 * it (GBK, SJIS, BIG5): a string or a name then ends elsewhere on the server, and what the
 * analysis saw inside it runs, the spliced fence check included.
 *
 * <p>Only text the analysis could misread is checked: a text with a non-ASCII character, and a
 * prepared statement whose values the JDBC driver may write into the text it sends (pgjdbc's
 * simple query mode, MariaDB Connector/J's client-side prepare). For those, the encoding is
 * asked for at each execution from what the server reported last (pgjdbc's copy of the
 * {@code client_encoding} parameter the server sends at every change; MariaDB Connector/J's
 * session-tracked {@code character_set_client}), or from the server itself when the driver is
 * another: no copy of the session's state is kept here. ASCII-only text reads the same in every
 * encoding both servers accept from a client, so {@code SET NAMES utf8mb4} can always switch back.
 *
 * <p>One per connection, used by one thread at a time, like the connection.
 */
final class SessionEncoding {

    /** Reads the session's client encoding as the server reported it; null when it cannot be read. */
    @FunctionalInterface
    interface Reader {
        String encoding() throws SQLException;
    }

    private final Dialect dialect;
    private final Connection database;
    /** How the encoding is read: resolved at the first check. */
    private Reader reader;
    /** Whether the driver may write a prepared statement's values into its text; resolved with {@link #reader}. */
    private boolean inlinesValues;

    SessionEncoding(Dialect dialect, Connection database) {
        this.dialect = dialect;
        this.database = database;
    }

    /** True when this connection's texts are checked at all (only the dialects whose encodings are known). */
    boolean checks() {
        return dialect.checksClientEncoding();
    }

    /** True when {@code text} holds a character outside ASCII. */
    static boolean hasNonAscii(String text) {
        for (int i = 0, n = text.length(); i < n; i++) {
            if (text.charAt(i) >= 0x80) {
                return true;
            }
        }
        return false;
    }

    /**
     * Refuses an execution whose bytes the server may read otherwise than the analysis read its
     * characters.
     *
     * @param nonAsciiText true when the text (plain, or prepared) holds a non-ASCII character
     * @param prepared     true for a prepared statement, whose values the driver may write into the text
     * @throws SQLException {@link UnfenceableStatementException} when the session's encoding is not
     *         read exactly, or cannot be read; nothing was sent
     */
    void admit(boolean nonAsciiText, boolean prepared) throws SQLException {
        if (!nonAsciiText && !prepared) {
            return;
        }
        if (reader == null) {
            resolveReader();
        }
        if (!nonAsciiText && !inlinesValues) {
            return;
        }
        String encoding;
        try {
            encoding = reader.encoding();
        } catch (SQLException e) {
            throw new UnfenceableStatementException(null, "the session's client encoding could not be read ("
                    + e.getMessage() + "), and this statement's bytes depend on it; nothing was sent", e);
        }
        if (encoding == null || !dialect.readsClientEncodingExactly(encoding)) {
            throw new UnfenceableStatementException(null, "the session's client encoding is " + encoding
                    + " (as the server reports it): the driver reads SQL as Unicode text and cannot tell where the"
                    + " server, reading " + (nonAsciiText ? "this text's non-ASCII characters" : "values written into"
                    + " the text") + " in " + encoding + ", ends a string or a name, so the statement is refused."
                    + " Use " + dialect.exactClientEncodings() + " (the JDBC driver's default: remove the SET, set_config,"
                    + " allowEncodingChanges or sessionVariables that changed it), or send ASCII-only text with"
                    + " values bound as parameters of a server-side prepared statement; nothing was sent");
        }
    }

    private void resolveReader() {
        Reader driverReport = null;
        boolean inlines = true;
        try {
            if (dialect == Dialect.POSTGRESQL) {
                PgjdbcSession session = PgjdbcSession.of(database);
                if (session != null) {
                    driverReport = session::clientEncoding;
                    inlines = session.inlinesValues();
                }
            } else if (dialect == Dialect.MARIADB) {
                driverReport = MariaDbConnectorSession.of(database);
            }
        } catch (LinkageError | SQLException | RuntimeException notThatDriver) {
            // the driver's classes are not visible here, or it is another driver: ask the server
            driverReport = null;
            inlines = true;
        }
        this.reader = driverReport != null ? driverReport : this::queried;
        this.inlinesValues = inlines;
    }

    /** The encoding as the server answers it now (for JDBC drivers that do not report it). */
    private String queried() throws SQLException {
        try (Statement query = database.createStatement(); ResultSet row = query.executeQuery(dialect.clientEncodingQuery())) {
            return row.next() ? row.getString(1) : null;
        }
    }
}
