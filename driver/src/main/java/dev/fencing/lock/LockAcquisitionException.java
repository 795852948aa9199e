package dev.fencing.lock;

import java.util.Objects;

/**
 * A lock could not be acquired. The message names the resource and the lock store (a Redis
 * address or a database table, never credentials); {@link #reason()} tells the cases apart.
 *
 * <p>Whatever the reason, no lease exists: an acquire that fails leaves no lock behind that
 * anyone owns, except one that expires by its TTL (when the store took the lock but the
 * reply was lost).
 */
public final class LockAcquisitionException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Why an acquire failed. */
    public enum Reason {
        /** The lock stayed held by someone else for the whole wait. Worth retrying later. */
        TIMED_OUT,
        /** The lock store could not be reached, or refused or failed the request. */
        STORE_FAILED,
        /**
         * Redis took the lock, but fewer replicas than required acknowledged it in time. The
         * lock was released and its fence discarded, so that a replica promoted later cannot
         * grant the lock to another holder while this one believes it holds it.
         */
        NOT_REPLICATED,
        /** The waiting thread was interrupted (its interrupt flag is set again). */
        INTERRUPTED
    }

    private final String resource;
    private final Reason reason;

    /**
     * For lock stores ({@link dev.fencing.lock.spi.LockStore}) that refuse an acquire
     * themselves, and for the lease machinery.
     */
    public LockAcquisitionException(String resource, Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.resource = Objects.requireNonNull(resource, "resource");
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /** The resource whose lock was asked for. */
    public String resource() {
        return resource;
    }

    /** Why the acquire failed. */
    public Reason reason() {
        return reason;
    }
}
