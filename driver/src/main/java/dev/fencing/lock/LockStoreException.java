package dev.fencing.lock;

/**
 * A lock store could not be reached or failed to answer. The message names the store's
 * address (never credentials). Internal: acquisitions report it as a
 * {@link LockAcquisitionException}; releases and renewals log it.
 */
final class LockStoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    LockStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
