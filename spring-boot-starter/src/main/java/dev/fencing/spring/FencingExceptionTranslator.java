package dev.fencing.spring;

import dev.fencing.Fence;
import dev.fencing.FencingException;
import dev.fencing.MissingFenceException;
import dev.fencing.StaleFenceException;
import dev.fencing.UnfenceableStatementException;

import java.sql.SQLException;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.OptionalLong;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/**
 * Translates fencing's SQLStates ({@code ZF000}-{@code ZF003}, raised by the driver or by the
 * database guard's triggers) into {@link FencingDataAccessException} and its subclasses, keeping
 * the fences and the table; anything else goes to the translator it wraps (or, with none, is left
 * untranslated: {@code null}). The SQLState is looked for along the exception's causes and
 * next-exception chain, since pools and batches wrap it.
 */
public final class FencingExceptionTranslator implements SQLExceptionTranslator {

    private final SQLExceptionTranslator fallback;

    /** Translates fencing's errors and hands every other one to {@code fallback} (may be null). */
    public FencingExceptionTranslator(SQLExceptionTranslator fallback) {
        this.fallback = fallback;
    }

    /** {@code translator}, made to translate fencing's errors first; a translator that already does is returned as it is. */
    static SQLExceptionTranslator around(SQLExceptionTranslator translator) {
        return translator instanceof FencingExceptionTranslator ? translator : new FencingExceptionTranslator(translator);
    }

    @Override
    public DataAccessException translate(String task, String sql, SQLException ex) {
        SQLException fencing = find(ex);
        if (fencing != null) {
            return translateFencing(task, sql, fencing);
        }
        return fallback == null ? null : fallback.translate(task, sql, ex);
    }

    private static DataAccessException translateFencing(String task, String sql, SQLException ex) {
        String message = (task == null ? "" : task + "; ") + (sql == null ? "" : "SQL [" + sql + "]; ") + ex.getMessage();
        String state = ex.getSQLState();
        if (ex instanceof StaleFenceException stale) {
            return new StaleFenceDataAccessException(message, stale.attemptedFence(), stale.currentFence(), stale.table(), ex);
        }
        if (ex instanceof MissingFenceException missing) {
            return new MissingFenceDataAccessException(message + FencedLockBypass.explain(), missing.table(), ex);
        }
        if (ex instanceof UnfenceableStatementException unfenceable) {
            return new UnfenceableStatementDataAccessException(message, unfenceable.table(), ex);
        }
        // The guard's triggers, reached without the driver's own exception types
        switch (state) {
            case StaleFenceException.SQL_STATE:
                return new StaleFenceDataAccessException(message, Fence.current().orElse(0), OptionalLong.empty(), null, ex);
            case MissingFenceException.SQL_STATE:
                return new MissingFenceDataAccessException(message + FencedLockBypass.explain(), null, ex);
            case UnfenceableStatementException.SQL_STATE:
                return new UnfenceableStatementDataAccessException(message, null, ex);
            default:
                return new FencingDataAccessException(message, null, ex);
        }
    }

    /** The first exception in the chain with a fencing SQLState, or null. */
    static SQLException find(Throwable ex) {
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        Throwable current = ex;
        while (current != null && seen.put(current, Boolean.TRUE) == null) {
            if (current instanceof FencingException fencing) {
                return fencing;
            }
            if (current instanceof SQLException sql) {
                if (isFencingState(sql.getSQLState())) {
                    return sql;
                }
                SQLException next = sql.getNextException();
                if (next != null && next != sql.getCause()) {
                    SQLException found = find(next);
                    if (found != null) {
                        return found;
                    }
                }
            }
            current = current.getCause();
        }
        return null;
    }

    private static boolean isFencingState(String state) {
        return state != null && (state.equals(FencingException.SQL_STATE) || state.equals(StaleFenceException.SQL_STATE)
                || state.equals(MissingFenceException.SQL_STATE) || state.equals(UnfenceableStatementException.SQL_STATE));
    }
}
