package dev.fencing.lock.spi;

/**
 * A lock store could not be reached, failed, or did not answer in time. The message names the
 * store's address (never credentials) and what failed. The machinery reports it to acquirers
 * as a {@link dev.fencing.lock.LockAcquisitionException} (reason {@code STORE_FAILED}); for a
 * renewal it means "outcome unknown" (the lease stays held until its TTL runs out); for a
 * release it is logged, and the lock expires by its TTL.
 */
public class LockStoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public LockStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
