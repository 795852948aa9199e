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
 * <p>ASCII reads the same in every encoding both servers accept from a client, so only what the
 * analysis could misread is checked: a text with a non-ASCII character, and values that may hold
 * non-ASCII bytes when the JDBC driver writes a prepared statement's values into the text it
 * sends (pgjdbc's simple query mode, MariaDB Connector/J's prepared statements). For
 * those, the encoding is read at each execution from the server's own report: pgjdbc's copy of
 * {@code client_encoding}, which PostgreSQL sends at every change whatever made it (SET, RESET,
 * set_config, a function); on MariaDB, and with other drivers, a query. MariaDB Connector/J's own
 * session-tracked character set is not used: after {@code SET @@character_set_client = gbk} it
 * still said utf8mb3. No copy of the session's state is kept here, and ASCII-only text, such as
 * {@code SET NAMES utf8mb4}, is never stopped.
 *
 * <p>One per connection, used by one thread at a time, like the connection.
 */
final class SessionEncoding {

    /** Reads the session's client encoding as the server reports it; null when it cannot be read. */
    @FunctionalInterface
    interface Reader {
        String encoding() throws SQLException;
    }

    private final Dialect dialect;
    private final Connection database;
    /** How the encoding is read: resolved at the first check. */
    private Reader reader;
    /**
     * Whether the JDBC driver writes prepared statements' values into their texts: pgjdbc says so
     * (simple query mode), any other driver is taken to; resolved with {@link #reader}.
     */
    private boolean driverInlinesValues;

    SessionEncoding(Dialect dialect, Connection database) {
        this.dialect = dialect;
        this.database = database;
    }

    /** True when this connection's texts are checked at all (only the dialects whose encodings are known). */
    boolean checks() {
        return dialect.checksClientEncoding();
    }

    /** True when {@code text} holds a character outside ASCII. */
    static boolean hasNonAscii(CharSequence text) {
        for (int i = 0, n = text.length(); i < n; i++) {
            if (text.charAt(i) >= 0x80) {
                return true;
            }
        }
        return false;
    }

    /** True when {@code bytes} holds a byte outside ASCII. */
    static boolean hasNonAscii(byte[] bytes) {
        for (byte b : bytes) {
            if (b < 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * True when the JDBC driver may write prepared statements' values into the text it sends, so
     * that their bytes are read in the session's encoding like the text's (an updatable result
     * set's statements included).
     */
    boolean inlinesValues() {
        if (!checks()) {
            return false;
        }
        if (reader == null) {
            resolveReader();
        }
        // MariaDB Connector/J writes them into the text client-side, and a statement prepared on
        // the server (useServerPrepStmts) runs client-side too when the server will not prepare it
        // (a text of several statements, a failed prepare, more than 66,560 parameters): which one
        // is known only once it was sent
        return driverInlinesValues;
    }

    /**
     * Refuses an execution whose bytes the server may read otherwise than the analysis read its
     * characters.
     *
     * @param nonAsciiText   true when the text (plain, or prepared) holds a non-ASCII character
     * @param nonAsciiValues true when values the driver writes into the text may hold non-ASCII bytes
     * @throws SQLException {@link UnfenceableStatementException} when the session's encoding is not
     *         read exactly, or cannot be read; nothing was sent
     */
    void admit(boolean nonAsciiText, boolean nonAsciiValues) throws SQLException {
        if (!nonAsciiText && !nonAsciiValues) {
            return;
        }
        if (reader == null) {
            resolveReader();
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
                    + " server, reading " + (nonAsciiText ? "this text's non-ASCII characters" : "the non-ASCII values"
                    + " the JDBC driver writes into the text") + " in " + encoding + ", ends a string or a name, so the"
                    + " statement is refused. Use " + dialect.exactClientEncodings() + " (the JDBC driver's default:"
                    + " remove the SET, set_config, allowEncodingChanges or sessionVariables that changed it), or send"
                    + " ASCII-only text (with pgjdbc's extended query mode, values bound apart from it); nothing"
                    + " was sent");
        }
    }

    /**
     * The byte check of one execution of plain text {@code sql} on {@code statement} ({@code adding}:
     * of an entry added to its batch), for the pipeline's admission step.
     *
     * @throws UnfenceableStatementException when it is refused; nothing was sent (or added)
     */
    void admitText(StatementCore statement, String sql, boolean adding) throws SQLException {
        admitBytes(statement, checks() && hasNonAscii(sql), false, adding);
    }

    /** {@link #admitText} for an execution (or batch entry) of {@code statement}'s prepared text with the values bound now. */
    void admitPrepared(StatementCore statement, boolean adding) throws SQLException {
        boolean nonAsciiValues = statement.boundNonAsciiValues();
        if (nonAsciiValues && statement.valuesMayFollowASwitch) {
            throw new UnfenceableStatementException(null, "a prepared text of several statements whose"
                    + " values the JDBC driver writes into the text, with a value that may hold non-ASCII characters:"
                    + " an earlier statement may change the session's client encoding (SET NAMES, SET client_encoding,"
                    + " set_config) before the server reads the values written into a later one, and then where they"
                    + " end cannot be known. Prepare the statements one at a time (with pgjdbc, its extended query mode"
                    + " sends values apart from the text); nothing was sent");
        }
        admitBytes(statement, statement.preparedTextNonAscii, nonAsciiValues, adding);
    }

    /**
     * A batch is sent in one go, so an entry can run after an earlier one changed the session's
     * encoding: entries after the first with non-ASCII text are refused, and the batch is checked
     * again when it is executed ({@link #admitBatch}).
     */
    private void admitBytes(StatementCore statement, boolean nonAsciiText, boolean nonAsciiValues, boolean adding)
            throws SQLException {
        if (adding && nonAsciiText && statement.pendingBatchEntries() > 0) {
            throw new UnfenceableStatementException(null, "a batch entry after the first holds non-ASCII"
                    + " characters: the entries are sent together, an earlier one may change the session's client"
                    + " encoding (SET NAMES, SET client_encoding, set_config) before the server reads this one, and"
                    + " then where its strings and names end cannot be known. Execute it on its own, or bind its"
                    + " values as parameters; it was not added");
        }
        admit(nonAsciiText, nonAsciiValues);
        if (adding) {
            statement.addingBytes(BatchBytes.of(nonAsciiText, nonAsciiValues));
        }
    }

    /** A pending batch about to be sent: the session's encoding may have changed since its entries were added. */
    void admitBatch(BatchBytes bytes) throws SQLException {
        admit(bytes.nonAsciiText(), bytes.nonAsciiValues());
    }

    /** A row an updatable result set writes back: the JDBC driver writes its values into a statement of its own. */
    void admitWriteBack() throws SQLException {
        admit(false, inlinesValues());
    }

    /** What the entries of a pending batch need of the session's encoding ({@link #admit}). */
    record BatchBytes(boolean nonAsciiText, boolean nonAsciiValues) {

        private static final BatchBytes[] ALL = {new BatchBytes(false, false), new BatchBytes(false, true),
                new BatchBytes(true, false), new BatchBytes(true, true)};
        static final BatchBytes NONE = ALL[0];

        static BatchBytes of(boolean nonAsciiText, boolean nonAsciiValues) {
            return ALL[(nonAsciiText ? 2 : 0) + (nonAsciiValues ? 1 : 0)];
        }

        /** What this batch needs with {@code entry} added. */
        BatchBytes and(BatchBytes entry) {
            return of(nonAsciiText || entry.nonAsciiText, nonAsciiValues || entry.nonAsciiValues);
        }
    }

    private void resolveReader() {
        Reader driverReport = null;
        boolean inlines = true;
        if (dialect.driverMayReportItsSession()) {
            try {
                PgjdbcSession session = PgjdbcSession.of(database);
                if (session != null) {
                    driverReport = session::clientEncoding;
                    inlines = session.inlinesValues();
                }
            } catch (LinkageError | SQLException | RuntimeException anotherDriver) {
                // pgjdbc's classes are not visible here, or it is another driver: ask the server
                driverReport = null;
                inlines = true;
            }
        }
        this.reader = driverReport != null ? driverReport : this::queried;
        this.driverInlinesValues = inlines;
    }

    /** The encoding as the server answers it now. */
    private String queried() throws SQLException {
        try (Statement query = database.createStatement(); ResultSet row = query.executeQuery(dialect.clientEncodingQuery())) {
            return row.next() ? row.getString(1) : null;
        }
    }
}
