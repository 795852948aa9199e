package dev.fencing.spring;

import java.sql.SQLException;
import java.util.OptionalLong;

/**
 * SQLState {@code ZF001}: the write carried a fence older than one already applied, so the lock
 * it was made under has passed to a newer holder. Retrying it cannot succeed: the caller is stale.
 */
public class StaleFenceDataAccessException extends FencingDataAccessException {

    private final long attemptedFence;
    private final OptionalLong currentFence;

    public StaleFenceDataAccessException(String message, long attemptedFence, OptionalLong currentFence,
                                         String table, SQLException cause) {
        super(message, table, cause);
        this.attemptedFence = attemptedFence;
        this.currentFence = currentFence;
    }

    /** The fence the refused write carried; 0 when the database reported the error without it. */
    public long getAttemptedFence() {
        return attemptedFence;
    }

    /** The newer fence found on the row or guard, when known. */
    public OptionalLong getCurrentFence() {
        return currentFence;
    }
}
