package dev.fencing.spring;

import java.sql.SQLException;

import org.springframework.dao.NonTransientDataAccessException;

/**
 * A write that fencing refused, or a {@link FencedLock} lease lost before its work committed
 * ({@link FencedLockLostException}), as Spring's data-access exception. Non-transient on purpose:
 * running the same write again, with the same fence, is refused again, so retry support that
 * retries {@link org.springframework.dao.TransientDataAccessException} leaves it alone, and one
 * exclusion of this type keeps retry-everything support away from all of fencing's refusals. The
 * {@link #getSQLException() SQLException} is the driver's (a {@link dev.fencing.FencingException}
 * when it came through fencing-jdbc, or the database guard's error).
 */
public class FencingDataAccessException extends NonTransientDataAccessException {

    private final String table;

    public FencingDataAccessException(String message, String table, SQLException cause) {
        super(message, cause);
        this.table = table;
    }

    /** A refusal that no SQLException caused (a lost lease). */
    protected FencingDataAccessException(String message, String table) {
        super(message);
        this.table = table;
    }

    /** The fenced table concerned, or null when the error did not say. */
    public String getTable() {
        return table;
    }

    /** The SQLException the database or the driver raised; null for a {@link FencedLockLostException}. */
    public SQLException getSQLException() {
        return getCause() instanceof SQLException sql ? sql : null;
    }
}
