package dev.fencing.spring;

/**
 * A {@link FencedLock} lease was found lost (its TTL ran out, or a renewal found the lock in other
 * hands) before the transaction inside the annotated method committed (the commit was refused and
 * the transaction rolled back), or before the method started (it did not run). Calling the
 * annotated method again takes a new lease. A {@link FencingDataAccessException} (with no table
 * and no SQLException), so that code handling fencing's refusals handles this one too.
 */
public class FencedLockLostException extends FencingDataAccessException {

    private final String resource;
    private final long fence;

    public FencedLockLostException(String resource, long fence) {
        this(resource, fence, "the lease on '" + resource + "' with fence " + fence + " was lost before the transaction "
                + "committed; the transaction was rolled back (raise the lock's ttl, or enable fencing.lock.watchdog)");
    }

    public FencedLockLostException(String resource, long fence, String message) {
        super(message, null);
        this.resource = resource;
        this.fence = fence;
    }

    /** The locked resource. */
    public String getResource() {
        return resource;
    }

    /** The fence of the lost lease. */
    public long getFence() {
        return fence;
    }
}
