package dev.fencing.lock.spi;

import java.util.Objects;

/**
 * One tenure of a lock as the store knows it: what {@link LockStore#extend} and
 * {@link LockStore#release} compare against. Created by the machinery from a successful
 * {@link Attempt}; stores only read it (fields may be added, never removed or changed).
 *
 * @param resource the locked resource
 * @param owner the ownership token the lock was taken under (a random UUID)
 * @param fence the fence issued with it
 * @param ttlMillis the TTL asked for, which each renewal sets again
 * @param storeHandle what the store returned in {@link Attempt#storeHandle()}, or null
 */
public record Tenure(String resource, String owner, long fence, long ttlMillis, Object storeHandle) {

    public Tenure {
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(owner, "owner");
        if (fence <= 0) {
            throw new IllegalArgumentException("a tenure's fence is positive, got " + fence);
        }
        if (ttlMillis <= 0) {
            throw new IllegalArgumentException("a tenure's TTL is positive, got " + ttlMillis);
        }
    }

    @Override
    public String toString() {
        // The owner stays out of logs: with it, anyone could release the lock.
        return "tenure of '" + resource + "' with fence " + fence;
    }
}
