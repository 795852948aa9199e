package dev.fencing.internal.guard;

import org.h2.api.Trigger;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

/**
 * The database guard's trigger on H2 (installed by {@link dev.fencing.jdbc.DatabaseGuard}); H2
 * creates it by name, so it is public, but it is no API. Its settings are the trigger's remarks.
 * The session's fence is the session variable {@code @FENCING_FENCE} (and {@code @FENCING_LOCK},
 * {@code @FENCING_MIGRATION}). It refuses a write with SQLState {@code ZF002} when the session
 * holds no fence, {@code ZF001} when the row (row mode) or the lock's epoch row (epoch mode)
 * holds a newer fence, and in row mode sets the fence column of inserted and updated rows.
 */
public final class H2GuardTrigger implements Trigger {

    private String schema;
    private String triggerName;
    private String table;
    /** Read on first use: the remarks are written right after the trigger is created. */
    private volatile Settings settings;

    private record Settings(boolean epoch, int columnIndex, boolean strictlyNewer, String epochTable) {
    }

    @Override
    public void init(Connection connection, String schemaName, String triggerName, String tableName, boolean before,
                     int type) {
        this.schema = schemaName;
        this.triggerName = triggerName;
        this.table = tableName;
    }

    @Override
    public void fire(Connection connection, Object[] oldRow, Object[] newRow) throws SQLException {
        Settings current = settings(connection);
        Object fence;
        Object lock;
        Object migration;
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT @FENCING_FENCE, @FENCING_LOCK, @FENCING_MIGRATION")) {
            rows.next();
            fence = rows.getObject(1);
            lock = rows.getObject(2);
            migration = rows.getObject(3);
        }
        if (migration != null && !migration.toString().isEmpty()) {
            return;
        }
        String label = schema + "." + table;
        if (fence == null || (current.epoch() && lock == null)) {
            throw new SQLException(GuardErrors.NO_FENCE + label + GuardErrors.H2_HINT, "ZF002");
        }
        long sessionFence = ((Number) (fence instanceof Number ? fence : Long.parseLong(fence.toString()))).longValue();
        if (current.epoch()) {
            Long claimed = null;
            try (PreparedStatement query = connection.prepareStatement(
                    "SELECT fence FROM " + current.epochTable() + " WHERE lock_name = ? FOR UPDATE")) {
                query.setString(1, lock.toString());
                try (ResultSet rows = query.executeQuery()) {
                    if (rows.next()) {
                        claimed = rows.getLong(1);
                    }
                }
            }
            if (claimed == null || claimed > sessionFence) {
                throw stale(sessionFence, label, claimed == null ? "unknown" : claimed.toString());
            }
            return;
        }
        int column = current.columnIndex();
        if (oldRow != null) {
            Object held = oldRow[column];
            if (held != null) {
                long rowFence = ((Number) held).longValue();
                if (rowFence > sessionFence || (current.strictlyNewer() && rowFence == sessionFence)) {
                    throw stale(sessionFence, label, Long.toString(rowFence));
                }
            }
        }
        if (newRow != null) {
            newRow[column] = sessionFence;
        }
    }

    private static SQLException stale(long sessionFence, String label, String holding) {
        return new SQLException(GuardErrors.STALE + sessionFence + " on " + label + " holding " + holding + GuardErrors.H2_HINT,
                "ZF001");
    }

    private Settings settings(Connection connection) throws SQLException {
        Settings known = settings;
        if (known != null) {
            return known;
        }
        String remarks;
        try (PreparedStatement query = connection.prepareStatement(
                "SELECT REMARKS FROM INFORMATION_SCHEMA.TRIGGERS WHERE TRIGGER_SCHEMA = ? AND TRIGGER_NAME = ?")) {
            query.setString(1, schema);
            query.setString(2, triggerName);
            try (ResultSet rows = query.executeQuery()) {
                remarks = rows.next() ? rows.getString(1) : null;
            }
        }
        if (remarks == null || !remarks.startsWith(GuardVersion.MARKER + " ")) {
            throw new SQLException("fencing guard: trigger " + schema + "." + triggerName + " has no settings in its"
                    + " remarks (" + remarks + "); reinstall it with DatabaseGuard.install", "ZF000");
        }
        Map<String, String> values = new HashMap<>();
        for (String part : remarks.substring(GuardVersion.MARKER.length() + 1).split(" ")) {
            int eq = part.indexOf('=');
            if (eq > 0) {
                values.put(part.substring(0, eq), part.substring(eq + 1));
            }
        }
        if ("epoch".equals(values.get("mode"))) {
            known = new Settings(true, -1, false, values.get("epoch-table"));
        } else {
            known = new Settings(false, columnIndex(connection, values.get("column")),
                    "strictly-newer".equals(values.get("comparison")), null);
        }
        settings = known;
        return known;
    }

    private int columnIndex(Connection connection, String column) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement("SELECT ORDINAL_POSITION FROM INFORMATION_SCHEMA.COLUMNS"
                + " WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND UPPER(COLUMN_NAME) = UPPER(?)")) {
            query.setString(1, schema);
            query.setString(2, table);
            query.setString(3, column);
            try (ResultSet rows = query.executeQuery()) {
                if (!rows.next()) {
                    throw new SQLException("fencing guard: table " + schema + "." + table + " has no fence column "
                            + column, "ZF000");
                }
                return rows.getInt(1) - 1;
            }
        }
    }

    @Override
    public void close() {
    }

    @Override
    public void remove() {
    }
}
