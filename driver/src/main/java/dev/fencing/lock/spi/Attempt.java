package dev.fencing.lock.spi;

/**
 * The outcome of one {@link LockStore#tryAcquire}: a fence when the lock was taken, else a hint
 * of how long the current holder's TTL still runs.
 *
 * @param fence the fence issued (> 0), or 0 when the lock is held by someone else
 * @param holderTtlMillis when held: how long the holder's TTL still runs, in milliseconds (0
 *        when unknown); waiters try again about then if no release wakes them first
 * @param storeHandle when acquired: whatever the store needs to find this tenure again (an
 *        etcd lease id, a ZooKeeper node path), handed back in every {@link Tenure}; may be null
 */
public record Attempt(long fence, long holderTtlMillis, Object storeHandle) {

    public Attempt {
        if (fence < 0) {
            throw new IllegalArgumentException("a fence is never negative: " + fence);
        }
        if (fence == 0 && storeHandle != null) {
            throw new IllegalArgumentException("an attempt that did not take the lock has no store handle");
        }
        holderTtlMillis = Math.max(0, holderTtlMillis);
    }

    /**
     * The lock was taken with {@code fence}.
     *
     * @throws IllegalStateException if {@code fence} is not positive: a store that issues such
     *         a fence is broken, and the acquire fails rather than hand it out
     */
    public static Attempt acquired(long fence) {
        return acquired(fence, null);
    }

    /** The lock was taken with {@code fence}; the store keeps {@code storeHandle} with the tenure. */
    public static Attempt acquired(long fence, Object storeHandle) {
        if (fence <= 0) {
            throw new IllegalStateException("a lock store issued a non-positive fence: " + fence);
        }
        return new Attempt(fence, 0, storeHandle);
    }

    /** Someone else holds the lock, for about {@code holderTtlMillis} more (0 when unknown). */
    public static Attempt held(long holderTtlMillis) {
        return new Attempt(0, holderTtlMillis, null);
    }

    public boolean isAcquired() {
        return fence > 0;
    }
}
