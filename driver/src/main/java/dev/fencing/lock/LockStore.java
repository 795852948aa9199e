package dev.fencing.lock;

/**
 * The three atomic operations a fenced lock needs from the place it lives in (Redis, a
 * database table). Each must be one atomic step at the store; everything around them
 * (waiting, renewing, the lease's own state) is {@link LeaseIssuer}'s and shared.
 *
 * <p>When the store cannot be reached or fails, each operation throws
 * {@link LockStoreException} with a message that names {@link #address()}.
 */
interface LockStore extends AutoCloseable {

    /**
     * Takes the lock for {@code owner} if nobody holds it (or its holder's TTL has passed)
     * and issues a fence larger than every fence issued before for {@code resource}, both in
     * one atomic step.
     */
    Attempt tryAcquire(String resource, String owner, long ttlMillis);

    /** Frees the lock only if {@code owner} still holds it with {@code fence}; true if it did. */
    boolean release(String resource, String owner, long fence);

    /**
     * Resets the TTL only if {@code owner} still holds the lock with {@code fence} and it has
     * not expired; false means the lock is lost to the caller.
     */
    boolean extend(String resource, String owner, long fence, long ttlMillis);

    /** Rejects resource names this store cannot represent faithfully. */
    void checkResourceName(String resource);

    /** Where the locks live, for messages: an address or a table, never credentials. */
    String address();

    @Override
    void close();

    /**
     * The outcome of one {@link #tryAcquire}: a fence when the lock was taken, else a hint of
     * how long the current holder's TTL still runs (0 when unknown).
     */
    record Attempt(long fence, long holderTtlMillis) {

        static Attempt acquired(long fence) {
            if (fence <= 0) {
                throw new IllegalStateException("a lock store issued a non-positive fence: " + fence);
            }
            return new Attempt(fence, 0);
        }

        static Attempt held(long holderTtlMillis) {
            return new Attempt(0, Math.max(0, holderTtlMillis));
        }

        boolean isAcquired() {
            return fence > 0;
        }
    }
}
