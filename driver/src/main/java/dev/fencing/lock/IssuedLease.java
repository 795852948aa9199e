package dev.fencing.lock;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The one {@link Lease} implementation, shared by every lock store: it keeps the tenure's
 * identity (resource, owner, fence) and what this process knows about it (held, lost or
 * released, and until when it is known to be held), and asks its {@link LockStore} for the
 * atomic release and renewal.
 */
final class IssuedLease implements Lease {

    private static final System.Logger LOG = System.getLogger(IssuedLease.class.getName());

    private enum State { HELD, LOST, RELEASED }

    private final LockStore store;
    private final ReleaseSignals signals;
    private final String resource;
    private final String owner;
    private final long fence;
    private final long ttlMillis;

    // Guarded by this.
    private State state = State.HELD;
    private long heldUntilNanos;
    private ScheduledFuture<?> renewal;

    /**
     * @param sentAtNanos {@link System#nanoTime()} taken before the acquire was sent: the
     *        store started the TTL later than that, so counting from here errs on the safe side
     */
    IssuedLease(LockStore store, ReleaseSignals signals, String resource, String owner, long fence,
            long ttlMillis, long sentAtNanos) {
        this.store = store;
        this.signals = signals;
        this.resource = resource;
        this.owner = owner;
        this.fence = fence;
        this.ttlMillis = ttlMillis;
        this.heldUntilNanos = sentAtNanos + believedNanos(ttlMillis);
    }

    /**
     * How long after sending an acquire or renewal this process believes the lock is held:
     * the TTL, less 1% for clock drift between here and the store, and 2 ms for the stores'
     * millisecond resolution (the store may count a millisecond that began before the send).
     */
    static long believedNanos(long ttlMillis) {
        long ttlNanos = TimeUnit.MILLISECONDS.toNanos(ttlMillis);
        return Math.max(0, ttlNanos - ttlNanos / 100 - TimeUnit.MILLISECONDS.toNanos(2));
    }

    @Override
    public long fence() {
        return fence;
    }

    @Override
    public String ownershipToken() {
        return owner;
    }

    @Override
    public String resource() {
        return resource;
    }

    long ttlMillis() {
        return ttlMillis;
    }

    @Override
    public synchronized boolean isHeld() {
        if (state == State.HELD && System.nanoTime() - heldUntilNanos >= 0) {
            state = State.LOST;
        }
        return state == State.HELD;
    }

    /** How long this process still believes the lease held, in milliseconds (0 when not). */
    synchronized long believedRemainingMillis() {
        return Math.max(0, TimeUnit.NANOSECONDS.toMillis(heldUntilNanos - System.nanoTime()));
    }

    /** Whether a watchdog still renews this lease. */
    synchronized boolean isRenewing() {
        return renewal != null;
    }

    synchronized void renewWith(ScheduledFuture<?> renewal) {
        if (state == State.HELD) {
            this.renewal = renewal;
        } else {
            renewal.cancel(false);
        }
    }

    /**
     * Extends the lock by its TTL if this lease still owns it. Returns false, and the lease
     * is lost for good, when the store no longer has it as this lease's, or when its TTL ran
     * out here before the renewal was sent.
     *
     * @throws LockStoreException when the store cannot be reached (outcome unknown; the lease
     *         stays held until its TTL runs out)
     */
    boolean renew() {
        long sentAt = System.nanoTime();
        boolean wasHeld;
        synchronized (this) {
            wasHeld = state == State.HELD;
        }
        if (!isHeld()) {
            if (wasHeld) {
                // The renewal came too late: this process (or the store) was too slow or paused.
                LOG.log(System.Logger.Level.WARNING, this + " is lost: its TTL ran out before it could be renewed");
            }
            stopRenewing();
            return false;
        }
        boolean extended = store.extend(resource, owner, fence, ttlMillis);
        synchronized (this) {
            if (extended && isHeld()) {
                // Only ever forwards: a renewal that comes back after the lease ran out here
                // does not bring it back, so isHeld() never turns true again.
                heldUntilNanos = Math.max(heldUntilNanos, sentAt + believedNanos(ttlMillis));
                return true;
            }
            if (state == State.HELD) {
                state = State.LOST;
            }
        }
        if (!extended) {
            LOG.log(System.Logger.Level.WARNING, this + " is lost: the lock is no longer its own");
        }
        stopRenewing();
        return false;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (state == State.RELEASED) {
                return;
            }
            state = State.RELEASED;
        }
        stopRenewing();
        try {
            if (store.release(resource, owner, fence)) {
                signals.released(resource);
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "could not release " + this
                    + "; it will expire by its TTL: " + e.getMessage());
        }
    }

    private void stopRenewing() {
        ScheduledFuture<?> current;
        synchronized (this) {
            current = renewal;
            renewal = null;
        }
        if (current != null) {
            current.cancel(false);
        }
    }

    @Override
    public String toString() {
        // The ownership token stays out: with it, anyone could release the lock.
        return "lease on '" + resource + "' with fence " + fence + " at " + store.address();
    }
}
