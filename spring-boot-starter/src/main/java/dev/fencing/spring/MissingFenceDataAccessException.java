package dev.fencing.spring;

import java.sql.SQLException;

/**
 * SQLState {@code ZF002}: a write to a fenced table with no fence in scope. Run it under a lease
 * ({@link FencedLock}, or {@link dev.fencing.lock.Lease#enterFence()}).
 */
public class MissingFenceDataAccessException extends FencingDataAccessException {

    public MissingFenceDataAccessException(String message, String table, SQLException cause) {
        super(message, table, cause);
    }
}
