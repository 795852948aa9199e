package dev.fencing.lock;

import java.time.Duration;
import java.util.Optional;

/**
 * Locks that hand out a fence with every acquire: {@link RedisFencedLocks} and
 * {@link JdbcFencedLocks}. Code that only acquires and releases can depend on this and leave the
 * choice of store to its configuration.
 */
public interface FencedLocks extends AutoCloseable {

    /**
     * Takes the lock on {@code resource} for {@code ttl} if it is free or expired: one attempt,
     * no waiting.
     *
     * @return the lease, or empty when the lock is held by someone else
     * @throws LockAcquisitionException if the store cannot be reached or fails
     */
    Optional<Lease> tryAcquire(String resource, Duration ttl);

    /**
     * Takes the lock on {@code resource} for {@code ttl}, waiting up to {@code maxWait} for it to
     * be released or to expire, and for the store to come back when it cannot be reached or fails
     * meanwhile (a restart, a failover): such attempts are made again, with growing pauses.
     *
     * <p>The lease time comes first and the wait second: the opposite order to Redisson's
     * {@code tryLock(waitTime, leaseTime, unit)}.
     *
     * @throws LockAcquisitionException with reason {@link LockAcquisitionException.Reason#TIMED_OUT}
     *         when the lock stayed held for {@code maxWait},
     *         {@link LockAcquisitionException.Reason#STORE_FAILED STORE_FAILED} when the store still
     *         failed when {@code maxWait} ran out (the message says so), or another reason
     */
    Lease acquire(String resource, Duration ttl, Duration maxWait);

    /** Stops renewing leases and releases what the instance owns (not the application's data source). */
    @Override
    void close();
}
