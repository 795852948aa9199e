package dev.fencing.internal.jdbc;

import dev.fencing.FencingConfig;
import dev.fencing.internal.sql.FencePlan;
import dev.fencing.internal.sql.ZeroRowCheck;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLType;
import java.util.Arrays;
import java.util.Calendar;

/**
 * The values the application bound to a fenced prepared statement, kept only when a write that
 * changes no row is diagnosed by re-running its predicate ({@link ZeroRowCheck.Method#NEWEST_FENCE_QUERY})
 * with the same values. One slot per application parameter: a plain value (bound again with
 * {@code setObject}), or a {@link Replay} for values that need their setter's extra arguments.
 * Streams and readers can be read only once, so they make the write undiagnosable.
 */
final class BoundValues {

    /** Binds a recorded value to the diagnosis query; false when it cannot be bound again. */
    interface Replay {
        boolean bind(PreparedStatement target, int index) throws SQLException;
    }

    /** A stream, reader or other one-shot value: the diagnosis gives up and the write returns its count. */
    static final Replay UNREPLAYABLE = (target, index) -> false;

    /** {@code setObject(i, null)}: distinct from a slot never bound (Java null). */
    static final Replay NULL_OBJECT = (target, index) -> {
        target.setObject(index, null);
        return true;
    };

    record SqlNull(int sqlType, String typeName) implements Replay {
        @Override
        public boolean bind(PreparedStatement target, int index) throws SQLException {
            if (typeName == null) {
                target.setNull(index, sqlType);
            } else {
                target.setNull(index, sqlType, typeName);
            }
            return true;
        }
    }

    /** {@code setObject(i, x, targetSqlType[, scale])}; {@code scale} < 0 when not given. */
    record Typed(Object value, int targetSqlType, int scale) implements Replay {
        @Override
        public boolean bind(PreparedStatement target, int index) throws SQLException {
            if (scale < 0) {
                target.setObject(index, value, targetSqlType);
            } else {
                target.setObject(index, value, targetSqlType, scale);
            }
            return true;
        }
    }

    /** {@code setObject(i, x, SQLType[, scale])}; {@code scale} < 0 when not given. */
    record TypedAs(Object value, SQLType targetSqlType, int scale) implements Replay {
        @Override
        public boolean bind(PreparedStatement target, int index) throws SQLException {
            if (scale < 0) {
                target.setObject(index, value, targetSqlType);
            } else {
                target.setObject(index, value, targetSqlType, scale);
            }
            return true;
        }
    }

    /** {@code setDate}/{@code setTime}/{@code setTimestamp} with a calendar. */
    record WithCalendar(java.util.Date value, Calendar calendar) implements Replay {
        @Override
        public boolean bind(PreparedStatement target, int index) throws SQLException {
            if (value instanceof java.sql.Timestamp timestamp) {
                target.setTimestamp(index, timestamp, calendar);
            } else if (value instanceof java.sql.Time time) {
                target.setTime(index, time, calendar);
            } else {
                target.setDate(index, (java.sql.Date) value, calendar);
            }
            return true;
        }
    }

    record NString(String value) implements Replay {
        @Override
        public boolean bind(PreparedStatement target, int index) throws SQLException {
            target.setNString(index, value);
            return true;
        }
    }

    private final Object[] values;

    private BoundValues(int parameterCount) {
        this.values = new Object[parameterCount];
    }

    /**
     * A recorder for a statement whose zero-row diagnosis re-runs its predicate with the
     * application's values; null when nothing needs recording (the common case).
     */
    static BoundValues forPlan(FencePlan plan, FencingConfig config) {
        ZeroRowCheck check = plan.zeroRowCheck();
        if (plan.kind() != FencePlan.Kind.FENCED || check == null
                || check.method() != ZeroRowCheck.Method.NEWEST_FENCE_QUERY
                || check.queryParameterCount() == 0
                || config.onZeroRows() != FencingConfig.ZeroRows.DIAGNOSE) {
            return null;
        }
        return new BoundValues(plan.parameterCount());
    }

    /** Records {@code value} for application parameter {@code applicationIndex}, already range-checked. */
    void set(int applicationIndex, Object value) {
        values[applicationIndex - 1] = value == null ? NULL_OBJECT : value;
    }

    void clear() {
        Arrays.fill(values, null);
    }

    /** The values as they are now, for a batch entry or a result set checked later. */
    Object[] snapshot() {
        return values.clone();
    }

    Object[] live() {
        return values;
    }

    /**
     * Binds the application's values to the diagnosis query's parameters.
     *
     * @return false when a value is missing or cannot be bound twice: the write cannot be diagnosed
     */
    static boolean bind(Object[] values, ZeroRowCheck check, PreparedStatement query) throws SQLException {
        int count = check.queryParameterCount();
        if (count > 0 && values == null) {
            return false;
        }
        for (int position = 1; position <= count; position++) {
            int application = check.queryParameter(position);
            if (application < 1 || application > values.length) {
                return false;
            }
            Object value = values[application - 1];
            if (value == null) {
                return false;
            }
            if (value instanceof Replay replay) {
                if (!replay.bind(query, position)) {
                    return false;
                }
            } else {
                query.setObject(position, value);
            }
        }
        return true;
    }
}
