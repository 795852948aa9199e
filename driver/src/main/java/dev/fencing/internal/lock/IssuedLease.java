package dev.fencing.internal.lock;

import dev.fencing.lock.Lease;

import dev.fencing.lock.spi.LockStore;
import dev.fencing.lock.spi.LockStoreException;
import dev.fencing.lock.spi.Tenure;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The one {@link Lease} implementation, shared by every lock store: it keeps the tenure's
 * identity and what this process knows about it (held, lost or released, and until when it is
 * known to be held), and asks its {@link LockStore} for the atomic release and renewal.
 */
public final class IssuedLease implements Lease {

    private static final System.Logger LOG = System.getLogger(IssuedLease.class.getName());

    private enum State { HELD, LOST, RELEASED }

    private final LeaseIssuer issuer;
    /** Replaced (same owner and fence, another TTL) by {@link #extend}; written under {@link #storeCalls}. */
    private volatile Tenure tenure;
    /**
     * Held around every extension sent to the store (renewals and {@link #extend}), so that a
     * renewal by the old TTL cannot land after an extension to a longer one and cut the lock
     * short of what this process believes.
     */
    private final Object storeCalls = new Object();

    // Guarded by this.
    private State state = State.HELD;
    private long heldUntilNanos;
    private boolean renewing;
    private ScheduledFuture<?> nextRenewal;

    /**
     * @param sentAtNanos {@link System#nanoTime()} taken before the acquire was sent: the
     *        store started the TTL later than that, so counting from here errs on the safe side
     */
    IssuedLease(LeaseIssuer issuer, Tenure tenure, long sentAtNanos) {
        this.issuer = issuer;
        this.tenure = tenure;
        this.heldUntilNanos = sentAtNanos + believedNanos(tenure.ttlMillis());
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
        return tenure.fence();
    }

    @Override
    public String ownershipToken() {
        return tenure.owner();
    }

    @Override
    public String resource() {
        return tenure.resource();
    }

    Tenure tenure() {
        return tenure;
    }

    @Override
    public boolean isHeld() {
        synchronized (this) {
            if (state != State.HELD || System.nanoTime() - heldUntilNanos < 0) {
                return state == State.HELD;
            }
            state = State.LOST;
        }
        issuer.forget(this);
        return false;
    }

    /** How long this process still believes the lease held, in nanoseconds (0 when not). */
    synchronized long believedRemainingNanos() {
        return isHeld() ? Math.max(0, heldUntilNanos - System.nanoTime()) : 0;
    }

    /** Whether renewals of this lease are still scheduled. */
    public synchronized boolean isRenewing() {
        return renewing;
    }

    /** Marks the lease as renewed from now on; false when it is no longer held. */
    synchronized boolean startRenewing() {
        renewing = isHeld();
        return renewing;
    }

    /**
     * Records the next scheduled renewal; cancels it instead when renewals have stopped
     * meanwhile (closed, lost).
     */
    void nextRenewal(ScheduledFuture<?> next) {
        boolean keep;
        synchronized (this) {
            keep = renewing;
            if (keep) {
                nextRenewal = next;
            }
        }
        if (!keep) {
            next.cancel(false);
        }
    }

    /**
     * Extends the lock by its TTL if this lease still owns it, waiting at most
     * {@code timeout} (and never past the time this process believes the lease held).
     * Returns false, and the lease is lost for good, when the store no longer has it as this
     * lease's, or when its TTL ran out here before the renewal was sent.
     *
     * @throws LockStoreException when the outcome is unknown (the lease stays held until its
     *         TTL runs out)
     */
    public boolean renew(Duration timeout) {
        long sentAt = System.nanoTime();
        boolean wasHeld;
        synchronized (this) {
            wasHeld = state == State.HELD;
        }
        long remaining = believedRemainingNanos();
        if (remaining <= 0) {
            if (wasHeld) {
                // The renewal came too late: this process (or the store) was too slow or paused.
                LOG.log(System.Logger.Level.WARNING, this + " is lost: its TTL ran out before it could be renewed");
            }
            stopRenewing();
            return false;
        }
        Duration budget = Duration.ofNanos(Math.min(remaining, timeout.toNanos()));
        synchronized (storeCalls) {
            Tenure current = tenure;
            boolean extended = issuer.store().extend(current, budget);
            synchronized (this) {
                if (extended && isHeld()) {
                    // Only ever forwards: a renewal that comes back after the lease ran out here
                    // does not bring it back, so isHeld() never turns true again.
                    heldUntilNanos = Math.max(heldUntilNanos, sentAt + believedNanos(current.ttlMillis()));
                    return true;
                }
            }
            return lostAt(extended);
        }
    }

    /**
     * Sets the lock's TTL to {@code ttl} from now (see {@link Lease#extend}); the watchdog's
     * later renewals use it too.
     */
    @Override
    public boolean extend(Duration ttl) {
        long ttlMillis = roundedMillis(ttl);
        Tenure longer = new Tenure(tenure.resource(), tenure.owner(), tenure.fence(), ttlMillis, tenure.storeHandle());
        issuer.store().checkExtension(tenure, ttlMillis);
        synchronized (storeCalls) {
            long sentAt = System.nanoTime();
            long remaining = believedRemainingNanos();
            if (remaining <= 0) {
                return false;
            }
            boolean extended = issuer.store().extend(longer,
                    Duration.ofNanos(Math.min(remaining, issuer.operationTimeout().toNanos())));
            synchronized (this) {
                if (extended && isHeld()) {
                    tenure = longer;
                    // Backwards too: a shorter TTL asked for is a shorter belief.
                    heldUntilNanos = sentAt + believedNanos(ttlMillis);
                    return true;
                }
            }
            return lostAt(extended);
        }
    }

    private boolean lostAt(boolean extended) {
        if (!extended) {
            LOG.log(System.Logger.Level.WARNING, this + " is lost: the lock is no longer its own");
        }
        lose();
        return false;
    }

    /**
     * A TTL in whole milliseconds, rounded up: a TTL below a millisecond must not become 0 ("no
     * expiry" or an error).
     *
     * @throws IllegalArgumentException if it is not positive
     */
    static long roundedMillis(Duration ttl) {
        java.util.Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("ttl must be positive, got " + ttl);
        }
        long millis = ttl.toMillis();
        return ttl.minusMillis(millis).isZero() ? millis : millis + 1;
    }

    /** The store or the renewal found this tenure over: not held from now on, not renewed. */
    void lose() {
        synchronized (this) {
            if (state == State.HELD) {
                state = State.LOST;
            }
        }
        stopRenewing();
        issuer.forget(this);
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
        issuer.forget(this);
        try {
            if (issuer.store().release(tenure, issuer.operationTimeout())) {
                issuer.signals().releasedHere(tenure.resource(), tenure.fence());
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "could not release " + this
                    + "; it will expire by its TTL: " + e.getMessage());
        }
    }

    private void stopRenewing() {
        ScheduledFuture<?> current;
        synchronized (this) {
            renewing = false;
            current = nextRenewal;
            nextRenewal = null;
        }
        if (current != null) {
            current.cancel(false);
        }
    }

    @Override
    public String toString() {
        // The ownership token stays out: with it, anyone could release the lock.
        return "lease on '" + tenure.resource() + "' with fence " + tenure.fence() + " at " + issuer.store().address();
    }
}
