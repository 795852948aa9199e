package dev.fencing.lock;

import dev.fencing.Fence;
import java.util.concurrent.Callable;
import javax.sql.DataSource;

/**
 * One tenure of a fenced lock: what an acquire of {@link RedisFencedLocks} or
 * {@link JdbcFencedLocks} hands back.
 *
 * <p>A lease carries two different tokens, on purpose:
 * <ul>
 *   <li>{@link #fence()}: the fencing token, a number larger than every fence issued before
 *       for the same resource. Writes carry it so that the resource can reject a holder whose
 *       lock has expired (see {@link dev.fencing.Fence}).</li>
 *   <li>{@link #ownershipToken()}: a random UUID that identifies this tenure to the lock
 *       store, so that release and renewal touch the lock only while it is still this
 *       lease's. It has no order and cannot serve as a fence.</li>
 * </ul>
 *
 * <p>A lease is never re-acquired: each acquire returns a new lease with a new, larger fence.
 * {@link #fence()} is this lease's own fence for its whole life, never the latest fence
 * handed to anyone.
 *
 * <pre>{@code
 * try (Lease lease = locks.acquire("order:42", Duration.ofSeconds(30), Duration.ofSeconds(5))) {
 *     lease.runFenced(() -> orders.markPaid(42));   // fenced writes carry lease.fence()
 * }
 * }</pre>
 *
 * <p>Implementations are thread-safe.
 */
public interface Lease extends AutoCloseable {

    /** The fencing token of this tenure: positive, and larger than every fence issued before it. */
    long fence();

    /** The random UUID that identifies this tenure to the lock store. */
    String ownershipToken();

    /** The name of the locked resource; also the lock name entered with the fence. */
    String resource();

    /**
     * Whether this lease still holds its lock, as far as this process can know: {@code false}
     * once the lease is closed, once its TTL has run out without a successful renewal, or
     * once a renewal found the lock in other hands. The TTL is counted on this process's monotonic
     * clock from before the acquire or renewal was sent, less 1% and 2 ms for clock drift and
     * the store's millisecond resolution, so that this turns {@code false} no later than the
     * store lets a successor in. Once {@code false}, it stays {@code false}.
     *
     * <p>{@code true} is only a belief: the process may pause right after asking. The fence
     * checked by the resource is what makes a stale holder harmless.
     */
    boolean isHeld();

    /**
     * Sets the lock's remaining time to {@code ttl} from now, if this lease still owns it: the
     * lock then lasts {@code ttl} from before the call (shorter or longer than the TTL it was
     * acquired with), and later renewals (the watchdog) renew it by {@code ttl}. The fence does
     * not change: it is the same tenure, held longer.
     *
     * <p>Stores: Redis and JDBC honour any TTL; etcd any TTL up to the one it granted at the
     * acquire (its leases keep their TTL); ZooKeeper any TTL up to its session timeout. A store
     * that cannot honour {@code ttl} refuses it before anything is sent.
     *
     * @return {@code true} when the lock was extended; {@code false} when this lease no longer
     *         holds it (closed, its TTL ran out here, or the store has it in other hands): the
     *         lease is then lost for good, and the work under it should stop
     * @throws IllegalArgumentException if {@code ttl} is not positive, or longer than the store
     *         allows any lease (ZooKeeper: its session timeout)
     * @throws UnsupportedOperationException if the store cannot give this lease {@code ttl} (etcd:
     *         longer than it granted at the acquire); the message says why and what it can give
     * @throws dev.fencing.lock.spi.LockStoreException when the outcome is unknown (the store could
     *         not be reached); the lease stays held until its previous TTL runs out
     */
    default boolean extend(java.time.Duration ttl) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot extend a lease; leases of "
                + "RedisFencedLocks, JdbcFencedLocks and StoreLocks can");
    }

    /**
     * Makes this lease's fence the calling thread's current fence, under the resource's name
     * ({@link Fence#enter(String, long)}), until the returned scope is closed; closing it
     * restores the previous fence.
     *
     * @throws IllegalStateException if the lease is no longer {@linkplain #isHeld() held}:
     *         work known to be stale is not started
     */
    default Fence.Scope enterFence() {
        if (!isHeld()) {
            throw new IllegalStateException("the lease on '" + resource() + "' with fence " + fence()
                    + " is no longer held");
        }
        return Fence.enter(resource(), fence());
    }

    /**
     * Runs {@code action} on the calling thread with this lease's fence in scope, then
     * restores the previous fence.
     *
     * @throws IllegalStateException if the lease is no longer held (the action is not run)
     */
    default void runFenced(Runnable action) {
        Fence.Scope scope = enterFence();
        try {
            action.run();
        } finally {
            scope.close();
        }
    }

    /**
     * Calls {@code action} on the calling thread with this lease's fence in scope, then
     * restores the previous fence; returns what the action returned and lets through what it
     * threw.
     *
     * @throws IllegalStateException if the lease is no longer held (the action is not called)
     */
    default <T> T callFenced(Callable<T> action) throws Exception {
        Fence.Scope scope = enterFence();
        try {
            return action.call();
        } finally {
            scope.close();
        }
    }

    /**
     * Claims this tenure at the database now: raises the epoch row of {@link #resource()} to
     * {@link #fence()} (tables in {@code epoch} mode), in a transaction of its own. Call it right
     * after acquiring, so that the previous holder is shut out before this one's first statement;
     * without it, the first statement of the tenure through each connection claims, which it can
     * do only with auto-commit on or as the first statement of a transaction (elsewhere the
     * statement is refused: a claim the transaction could roll back would not shut anyone out).
     *
     * @param dataSource the database holding the epoch table: preferably the application's
     *        {@link dev.fencing.jdbc.FencingDataSource}, whose connections then need not claim again
     * @throws java.sql.SQLException {@link dev.fencing.StaleFenceException} when the guard already
     *         holds a newer fence (the lock has passed on), or when the database fails
     * @see dev.fencing.jdbc.EpochTable#claim(DataSource, String, long)
     */
    default void claimEpoch(DataSource dataSource) throws java.sql.SQLException {
        dev.fencing.jdbc.EpochTable.claim(dataSource, resource(), fence());
    }

    /**
     * Releases the lock if this lease still owns it (compare-and-delete); a lock that has
     * passed to another holder is left alone. Stops the lease's renewals. Closing again does
     * nothing. Never throws: when the store cannot be reached the failure is logged and the
     * lock is left to expire by its TTL.
     */
    @Override
    void close();
}
