package dev.fencing.internal.diagnosis;

import dev.fencing.FencingConfig;
import dev.fencing.internal.sql.FencePlan;
import dev.fencing.internal.sql.ZeroRowCheck;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Arrays;

/**
 * How the application set the parameters of a fenced prepared statement, kept only when a write
 * that changes no row is diagnosed by re-running its predicate ({@link ZeroRowCheck.Method#NEWEST_FENCE_QUERY})
 * with the same values. One slot per application parameter: a plain value (set again with
 * {@code setObject}), a {@link Replay} that calls the application's
 * setter again with the same arguments, or {@link #UNREPEATABLE}. Streams and readers can be read
 * only once, so they make the write undiagnosable.
 */
public final class BoundValues {

    /** Sets a kept value again, with the setter the application used, on another statement. */
    @FunctionalInterface
    public interface Replay {
        void set(PreparedStatement target, int index) throws SQLException;
    }

    /** A stream, reader or other one-shot value: the diagnosis gives up and the write returns its count. */
    private static final Object UNREPEATABLE = new Object();

    /** {@code setObject(i, null)}: distinct from a slot never set (Java null). */
    private static final Replay NULL_OBJECT = (target, index) -> target.setObject(index, null);

    private final Object[] values;

    private BoundValues(int parameterCount) {
        this.values = new Object[parameterCount];
    }

    /**
     * A recorder for a statement whose zero-row diagnosis re-runs its predicate with the
     * application's values; null when nothing needs recording (the common case).
     */
    public static BoundValues forPlan(FencePlan plan, FencingConfig config) {
        ZeroRowCheck check = plan.zeroRowCheck();
        if (plan.kind() != FencePlan.Kind.FENCED || check == null) {
            return null;
        }
        if (check.method() == ZeroRowCheck.Method.KEYS_AFTER_STATEMENT) {
            // read in both zero-row modes
            for (ZeroRowCheck part = check; part != null; part = part.more()) {
                if (part.queryParameterCount() > 0) {
                    return new BoundValues(plan.parameterCount());
                }
            }
            return null;
        }
        if (check.method() != ZeroRowCheck.Method.NEWEST_FENCE_QUERY
                || check.queryParameterCount() == 0
                || config.onZeroRows() != FencingConfig.ZeroRows.DIAGNOSE) {
            return null;
        }
        return new BoundValues(plan.parameterCount());
    }

    /** Keeps the value of application parameter {@code applicationIndex}, already range-checked. */
    public void set(int applicationIndex, Object value) {
        values[applicationIndex - 1] = value == null ? NULL_OBJECT : value;
    }

    /** Parameter {@code applicationIndex} was set from a stream or reader, which cannot be read again. */
    public void setUnrepeatable(int applicationIndex) {
        values[applicationIndex - 1] = UNREPEATABLE;
    }

    public void clear() {
        Arrays.fill(values, null);
    }

    /** The values as they are now, for a batch entry or a result set checked later. */
    public Object[] snapshot() {
        return values.clone();
    }

    public Object[] live() {
        return values;
    }

    /**
     * Binds the application's values to the diagnosis query's parameters.
     *
     * @return false when a value is missing or cannot be bound twice: the write cannot be diagnosed
     */
    public static boolean bind(Object[] values, ZeroRowCheck check, PreparedStatement query) throws SQLException {
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
            if (value == null || value == UNREPEATABLE) {
                return false;
            }
            if (value instanceof Replay replay) {
                replay.set(query, position);
            } else {
                query.setObject(position, value);
            }
        }
        return true;
    }
}
