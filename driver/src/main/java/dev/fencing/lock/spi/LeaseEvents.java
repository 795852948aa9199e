package dev.fencing.lock.spi;

/**
 * Where a {@link LockStore} reports what it notices by itself, given to it by
 * {@link LockStore#start}. Implemented by the lease machinery; calls are cheap, never block,
 * and may come from any thread (a store's I/O thread included).
 */
public interface LeaseEvents {

    /**
     * The lock on {@code resource} was released (by any process), so one thread of this
     * process waiting for it tries again now instead of at its next poll. Only a hint: the
     * store decides who gets the lock, and a missed call costs a poll interval.
     *
     * @param fence the fence of the released tenure, or 0 when unknown; it lets the machinery
     *        ignore the echo of a release this process made itself
     */
    void released(String resource, long fence);

    /**
     * The tenure of {@code resource} held under {@code owner} is over, as the store learned
     * by itself (a ZooKeeper session expired, an etcd lease was revoked, the lock key was
     * deleted). The lease, if this process still has it, turns
     * {@linkplain dev.fencing.lock.Lease#isHeld() not held} at once and is no longer renewed.
     * Unknown owners are ignored.
     */
    void lost(String resource, String owner);
}
