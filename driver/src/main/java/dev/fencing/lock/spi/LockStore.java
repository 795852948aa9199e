package dev.fencing.lock.spi;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The place a fenced lock lives in (Redis, a database table, etcd, ZooKeeper): the few atomic
 * operations that differ between stores. Everything around them (leases and their state,
 * ownership tokens, waiting with wake-ups, renewal schedules, timeouts, lost leases) is the
 * lease machinery's, shared by every store: give a store to {@link dev.fencing.lock.StoreLocks#builder} and it
 * becomes a {@link dev.fencing.lock.FencedLocks}.
 *
 * <h2>What each operation must guarantee</h2>
 * <ul>
 *   <li>{@link #tryAcquire}: in <em>one atomic step</em> at the store, take the lock for the
 *       given owner if nobody holds it (or its holder's TTL has passed) and issue a fence
 *       larger than every fence ever issued for that resource, by any client, including
 *       across restarts and failovers of the store. A fence is never issued twice. Two steps
 *       (take, then count) are not enough: a paused acquirer could end up with a larger fence
 *       than the real holder.</li>
 *   <li>{@link #extend} and {@link #release}: change the lock only while it still belongs to
 *       the given tenure (same owner, same fence): a holder whose lock expired must not free
 *       or extend its successor's.</li>
 *   <li>Every call returns, or throws {@link LockStoreException}, within about the
 *       {@code timeout} it is given (apply it as a statement timeout, a command timeout, a
 *       deadline on a future). The machinery runs each lease's renewal on its own, so a call
 *       that overruns stalls only its own lease, but the thread it holds stays stuck.</li>
 *   <li>A failure to reach the store, or an answer that cannot be trusted, is a
 *       {@link LockStoreException} whose message names {@link #address()} and says what
 *       failed. Never return "acquired" or "extended" when unsure: fail closed.</li>
 * </ul>
 *
 * <h2>Life cycle and threads</h2>
 * The machinery calls {@link #start} once, before any other operation, then calls the
 * operations from any thread, concurrently: implementations are thread-safe. {@link #close}
 * comes last; no operation follows it.
 *
 * <h2>Optional parts</h2>
 * A store that can notice releases by other processes (Redis pub/sub, an etcd watch, a
 * ZooKeeper watcher) implements {@link #watchReleases} and reports them with
 * {@link LeaseEvents#released}; without it, waiters poll. A store that learns on its own that
 * a tenure ended (a ZooKeeper session expired, an etcd lease was revoked) reports it with
 * {@link LeaseEvents#lost}.
 */
public interface LockStore extends AutoCloseable {

    /**
     * Called once by the machinery before any other operation, with where to report what the
     * store notices by itself. Default: nothing to report.
     */
    default void start(LeaseEvents events) {
    }

    /**
     * Takes the lock on {@code resource} for {@code owner} if it is free or expired, and
     * issues its fence, in one atomic step.
     *
     * @param owner a random UUID chosen by the machinery for this attempt: the ownership
     *        token the lock is held under
     * @param ttlMillis how long the lock stays taken without renewal, in milliseconds (> 0);
     *        a store whose TTLs are coarser (etcd's whole seconds) rounds up, never down:
     *        the machinery counts the TTL from before the call, and no successor may get in
     *        before it has passed
     * @param timeout how long this call may take
     * @return {@link Attempt#acquired} with the fence, or {@link Attempt#held} when someone
     *         else holds the lock
     * @throws LockStoreException when the store cannot be reached or fails; if the store
     *         may have taken the lock anyway, that lock must expire by its TTL
     * @throws dev.fencing.lock.LockAcquisitionException for a refusal the store itself
     *         decides (for example too few replicas acknowledged the fence), after undoing
     *         what it took
     */
    Attempt tryAcquire(String resource, String owner, long ttlMillis, Duration timeout);

    /**
     * Resets the TTL of the lock to {@link Tenure#ttlMillis()} only if {@code tenure} still
     * holds it and it has not expired.
     *
     * @return {@code false} when the lock is no longer this tenure's (the lease is then lost
     *         for good)
     * @throws LockStoreException when the outcome is unknown (the lease stays held until its
     *         TTL runs out, and the next renewal tries again)
     */
    boolean extend(Tenure tenure, Duration timeout);

    /**
     * Refuses, before anything is sent, an extension of {@code tenure} to {@code ttlMillis} that
     * this store cannot honour ({@link dev.fencing.lock.Lease#extend}); after it, {@link #extend}
     * is called with a tenure whose {@link Tenure#ttlMillis()} is {@code ttlMillis}. A store whose
     * {@code extend} sets the lock's TTL to {@code tenure.ttlMillis()} accepts every TTL; one whose
     * TTL is fixed at the acquire (an etcd lease) accepts only TTLs it already keeps. Default:
     * refused, so a store that never thought about it fails closed.
     *
     * @throws UnsupportedOperationException saying why, and which TTLs the store can give
     */
    default void checkExtension(Tenure tenure, long ttlMillis) {
        throw new UnsupportedOperationException(address() + " cannot extend a lease to a TTL other than its own ("
                + tenure.ttlMillis() + " ms): " + getClass().getName() + " does not implement LockStore.checkExtension");
    }

    /**
     * Frees the lock only if {@code tenure} still holds it (compare-and-delete), and tells
     * other processes waiting for it, if the store can.
     *
     * @return {@code true} when this call freed it; {@code false} when it was no longer this
     *         tenure's
     * @throws LockStoreException when the store cannot be reached (the lock expires by its TTL)
     */
    boolean release(Tenure tenure, Duration timeout);

    /**
     * Starts reporting releases of {@code resource} by other processes through
     * {@link LeaseEvents#released}; threads of this process are waiting for it. Must not
     * block: called while the machinery holds a lock. The returned stage completes once the
     * store listens (a waiter's next attempt then cannot miss a release), or fails when it
     * cannot listen (waiters poll). Calls for one resource alternate with
     * {@link #unwatchReleases}. Default: completed at once, nothing is reported (waiters poll).
     */
    default CompletionStage<?> watchReleases(String resource) {
        return CompletableFuture.completedFuture(null);
    }

    /** Stops what {@link #watchReleases} started for {@code resource}. Must not block. */
    default void unwatchReleases(String resource) {
    }

    /**
     * Rejects, with {@link IllegalArgumentException}, a resource name this store cannot
     * represent faithfully (too long for a column, a character a path cannot hold). Called
     * before anything is sent. Default: every non-blank name is accepted.
     */
    default void checkResourceName(String resource) {
    }

    /** Where the locks live, for messages: an address or a table, never credentials. */
    String address();

    /** Releases the store's own resources (connections, clients); not the application's. */
    @Override
    void close();
}
