package dev.fencing.proof.oracle;

import dev.fencing.proof.oracle.Setting.Database;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Locale;

/**
 * One connection to a real database under one {@link Setting}, on which texts run as the raw
 * driver runs them with several statements per text (PostgreSQL's simple query protocol,
 * MariaDB's {@code allowMultiQueries}, H2's command lists). What a text did is read back from
 * evidence that survives a failed statement and a rollback: how often each marker sequence
 * advanced. The sink table records the writes a text committed, and whether they carry the fence.
 */
final class Server implements AutoCloseable {

    /** The number of marker sequences {@code o_m0 .. o_m<MARKERS-1>}. */
    static final int MARKERS = 10;
    /** The fence the oracle renders into texts that the analyzer fenced. */
    static final long FENCE = 7;
    static final String SINK = "o_sink";

    /** What a text did on the server. */
    record Observation(long[] markerRuns, int results, String error, long sinkRows, long unfencedSinkRows) {

        boolean ran(int marker) {
            return markerRuns[marker] > 0;
        }

        @Override
        public String toString() {
            StringBuilder ran = new StringBuilder();
            for (int m = 0; m < markerRuns.length; m++) {
                if (markerRuns[m] > 0) {
                    ran.append(ran.isEmpty() ? "" : ",").append("o_m").append(m)
                            .append(markerRuns[m] > 1 ? "x" + markerRuns[m] : "");
                }
            }
            return "ran [" + ran + "], " + results + " result(s), sink rows " + sinkRows + " (unfenced "
                    + unfencedSinkRows + ")" + (error == null ? "" : ", error: " + error);
        }
    }

    interface ConnectionSource {
        Connection open() throws SQLException;
    }

    final Setting setting;
    private final ConnectionSource source;
    private Connection connection;
    private long[] counts;
    private final String stateQuery;

    Server(Setting setting, ConnectionSource source) throws SQLException {
        this.setting = setting;
        this.source = source;
        this.stateQuery = stateQuery(setting.database());
        connect();
        try (Statement statement = connection.createStatement()) {
            for (int m = 0; m < MARKERS; m++) {
                statement.execute("CREATE SEQUENCE IF NOT EXISTS o_m" + m
                        + (setting.database() == Database.MARIADB ? " NOCACHE" : ""));
            }
            statement.execute("CREATE TABLE IF NOT EXISTS " + SINK + " (v BIGINT, last_fence BIGINT)");
            statement.execute("DELETE FROM " + SINK);
        }
        counts = state();
    }

    private void connect() throws SQLException {
        connection = source.open();
        connection.setAutoCommit(true);
        try (Statement statement = connection.createStatement()) {
            for (String sql : setting.sessionSql()) {
                statement.execute(sql);
            }
        }
    }

    private static String stateQuery(Database database) {
        StringBuilder query = new StringBuilder();
        for (int m = 0; m < MARKERS; m++) {
            query.append("SELECT ").append(m).append(", ").append(switch (database) {
                case POSTGRESQL -> "CASE WHEN is_called THEN last_value ELSE 0 END FROM o_m" + m;
                case MARIADB -> "next_not_cached_value - 1 FROM o_m" + m;
                case H2 -> "BASE_VALUE - 1 FROM INFORMATION_SCHEMA.SEQUENCES WHERE SEQUENCE_SCHEMA = SCHEMA() "
                        + "AND UPPER(SEQUENCE_NAME) = 'O_M" + m + "'";
            }).append(" UNION ALL ");
        }
        query.append("SELECT -1, COUNT(*) FROM ").append(SINK).append(" UNION ALL SELECT -2, COUNT(*) FROM ")
                .append(SINK).append(" WHERE last_fence IS NULL OR last_fence <> ").append(FENCE);
        return query.toString();
    }

    /** Marker counters [0, MARKERS), then sink rows, then unfenced sink rows. */
    private long[] state() throws SQLException {
        long[] state = new long[MARKERS + 2];
        try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(stateQuery)) {
            while (rows.next()) {
                int key = rows.getInt(1);
                state[key >= 0 ? key : MARKERS - 1 - key] = rows.getLong(2);
            }
        }
        return state;
    }

    /**
     * Reads the counters again: needed when another {@code Server} on the same schema (another
     * setting of the same database) ran texts since this one last looked.
     */
    void resync() throws SQLException {
        counts = state();
    }

    /** Runs {@code text} as one multi-statement execution and reports what it did. */
    Observation run(String text) throws SQLException {
        int results = 0;
        String error = null;
        try (Statement statement = connection.createStatement()) {
            statement.setQueryTimeout(20);
            boolean isResultSet = statement.execute(text);
            while (true) {
                if (isResultSet) {
                    statement.getResultSet().close();
                } else if (statement.getUpdateCount() == -1) {
                    break;
                }
                results++;
                isResultSet = statement.getMoreResults();
            }
        } catch (SQLException e) {
            error = (e.getSQLState() == null ? "" : "[" + e.getSQLState() + "] ") + firstLine(e.getMessage());
        } catch (RuntimeException e) {
            // a driver that cannot even send a text has run none of it; the evidence below says so
            error = "driver: " + e;
        }
        long[] after;
        try {
            if (!connection.getAutoCommit() || mayHaveOpenedTransaction(text)) {
                connection.rollback();
                connection.setAutoCommit(true);
            }
            after = state();
        } catch (SQLException e) {
            // The text broke the session: start a clean one; the counters live on in the database.
            reconnect();
            after = state();
        }
        long[] runs = new long[MARKERS];
        for (int m = 0; m < MARKERS; m++) {
            runs[m] = after[m] - counts[m];
        }
        long sinkRows = after[MARKERS];
        long unfenced = after[MARKERS + 1];
        if (sinkRows > 0) {
            try (Statement statement = connection.createStatement()) {
                statement.execute("DELETE FROM " + SINK);
            }
            after[MARKERS] = 0;
            after[MARKERS + 1] = 0;
        }
        counts = after;
        return new Observation(runs, results, error, sinkRows, unfenced);
    }

    /** A compound statement cut at a semicolon leaves a bare BEGIN or START, which opens a transaction. */
    private static boolean mayHaveOpenedTransaction(String text) {
        String upper = text.toUpperCase(Locale.ROOT);
        return upper.contains("BEGIN") || upper.contains("START");
    }

    private void reconnect() throws SQLException {
        try {
            connection.close();
        } catch (SQLException ignored) {
            // the broken connection is abandoned either way
        }
        connect();
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "no message";
        }
        int newline = message.indexOf('\n');
        String line = newline < 0 ? message : message.substring(0, newline);
        return line.length() > 200 ? line.substring(0, 200) + "..." : line;
    }

    @Override
    public void close() throws SQLException {
        if (setting.database() == Database.H2) {
            try (Statement statement = connection.createStatement()) {
                statement.execute("SHUTDOWN"); // the in-memory database outlives its connections otherwise
            }
        }
        connection.close();
    }

    @Override
    public String toString() {
        return setting + " " + Arrays.toString(counts);
    }
}
