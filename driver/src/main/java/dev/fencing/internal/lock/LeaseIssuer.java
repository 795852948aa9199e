package dev.fencing.internal.lock;

import dev.fencing.lock.Lease;
import dev.fencing.lock.LockAcquisitionException;

import dev.fencing.lock.spi.Attempt;
import dev.fencing.lock.spi.LeaseEvents;
import dev.fencing.lock.spi.LockStore;
import dev.fencing.lock.spi.LockStoreException;
import dev.fencing.lock.spi.Tenure;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Acquires leases from one {@link LockStore}: one attempt, or attempts until a deadline with
 * waits between them that end early when the lock is released; starts each lease's renewals
 * when a watchdog is configured. Everything here is the same for every store.
 */
public final class LeaseIssuer implements LeaseEvents, AutoCloseable {

    /** The first pause after a failed attempt of a waiting acquire; pauses double up to the poll interval. */
    private static final System.Logger LOG = System.getLogger(LeaseIssuer.class.getName());
    private static final long FIRST_OUTAGE_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final LockStore store;
    private final ReleaseSignals signals;
    private final Renewals renewals;
    private final long pollNanos;
    private final Duration operationTimeout;
    /** The leases this process holds (not closed, not known lost), by owner: for {@link #lost}. */
    private final Map<String, IssuedLease> live = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /**
     * @param renewals renews every lease issued, or null for leases that simply expire
     * @param pollInterval the longest wait between two attempts when no release is heard of
     * @param operationTimeout the most one acquire attempt or release may take at the store
     */
    public LeaseIssuer(LockStore store, Renewals renewals, Duration pollInterval, Duration operationTimeout) {
        this.store = store;
        this.signals = new ReleaseSignals(store);
        this.renewals = renewals;
        this.pollNanos = pollInterval.toNanos();
        this.operationTimeout = operationTimeout;
        store.start(this);
    }

    LockStore store() {
        return store;
    }

    ReleaseSignals signals() {
        return signals;
    }

    Duration operationTimeout() {
        return operationTimeout;
    }

    @Override
    public void released(String resource, long fence) {
        signals.releasedAnywhere(resource, fence);
    }

    @Override
    public void lost(String resource, String owner) {
        IssuedLease lease = live.get(owner);
        if (lease != null && lease.resource().equals(resource)) {
            LOG.log(System.Logger.Level.WARNING,
                    () -> lease + " is lost: " + store.address() + " reports its tenure over");
            lease.lose();
        }
    }

    /** A lease closed or lost: no longer one of this process's. */
    void forget(IssuedLease lease) {
        live.remove(lease.ownershipToken(), lease);
    }

    public Optional<Lease> tryAcquire(String resource, Duration ttl) {
        long ttlMillis = checkArguments(resource, ttl);
        try {
            return Optional.ofNullable(attempt(resource, ttlMillis).lease);
        } catch (LockStoreException e) {
            throw storeFailure(resource, e);
        }
    }

    public Lease acquire(String resource, Duration ttl, Duration maxWait) {
        long ttlMillis = checkArguments(resource, ttl);
        Objects.requireNonNull(maxWait, "maxWait");
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must not be negative, got " + maxWait);
        }
        Wait wait = new Wait(resource, maxWait);
        try {
            Outcome outcome = attemptThroughOutages(wait, ttlMillis, null);
            if (outcome.lease != null) {
                return outcome.lease;
            }
            if (wait.nanosLeft() <= 0) {
                throw timedOut(resource, maxWait);
            }
            // Contended: from here on, releases wake this thread. Registering may subscribe, and
            // the attempt after it catches a release that came before the subscription. Waiting
            // for the subscription longer than a poll interval would gain nothing over polling.
            try (ReleaseSignals.Waiter waiter = signals.register(resource, Math.min(pollNanos, Math.max(0, wait.nanosLeft())))) {
                while (true) {
                    outcome = attemptThroughOutages(wait, ttlMillis, waiter);
                    if (outcome.lease != null) {
                        waiter.acquired();
                        return outcome.lease;
                    }
                    long left = wait.nanosLeft();
                    if (left <= 0) {
                        throw timedOut(resource, maxWait);
                    }
                    waiter.await(Math.min(left, pause(outcome.holderTtlMillis)));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockAcquisitionException(resource, LockAcquisitionException.Reason.INTERRUPTED,
                    "interrupted while waiting for lock '" + resource + "' at " + store.address(), e);
        }
    }

    /**
     * One attempt at the store; while the store fails (a restart, a failover), attempts again
     * after pauses that grow from {@link #FIRST_OUTAGE_PAUSE_NANOS} to the poll interval,
     * jittered, until the store answers or the wait runs out. A release heard of meanwhile
     * (through {@code waiter}, when there is one) ends a pause early.
     *
     * @throws LockAcquisitionException with reason {@code STORE_FAILED} when the store still
     *         failed when the wait ran out (at once for a wait of zero)
     */
    private Outcome attemptThroughOutages(Wait wait, long ttlMillis, ReleaseSignals.Waiter waiter)
            throws InterruptedException {
        long pauseNanos = FIRST_OUTAGE_PAUSE_NANOS;
        while (true) {
            try {
                Outcome outcome = attempt(wait.resource, ttlMillis);
                wait.answered();
                return outcome;
            } catch (LockStoreException e) {
                wait.failed(e);
                long left = wait.nanosLeft();
                if (left <= 0) {
                    throw wait.outageOutlasted(store.address());
                }
                long pause = Math.min(left, pauseNanos / 2 + ThreadLocalRandom.current().nextLong(pauseNanos / 2 + 1));
                LOG.log(System.Logger.Level.DEBUG, () -> "lock '" + wait.resource + "': " + e.getMessage()
                        + "; trying again in " + TimeUnit.NANOSECONDS.toMillis(pause) + " ms");
                if (waiter != null) {
                    waiter.await(pause);
                } else {
                    TimeUnit.NANOSECONDS.sleep(pause);
                }
                pauseNanos = Math.min(pollNanos, pauseNanos * 2);
            }
        }
    }

    private LockAcquisitionException timedOut(String resource, Duration maxWait) {
        return new LockAcquisitionException(resource, LockAcquisitionException.Reason.TIMED_OUT,
                "timed out after " + maxWait + " waiting for lock '" + resource + "' at " + store.address(), null);
    }

    private static LockAcquisitionException storeFailure(String resource, LockStoreException e) {
        return new LockAcquisitionException(resource, LockAcquisitionException.Reason.STORE_FAILED,
                "could not acquire lock '" + resource + "': " + e.getMessage(), e);
    }

    /**
     * One atomic attempt at the store.
     *
     * @throws LockStoreException when the store could not be reached or failed
     */
    private Outcome attempt(String resource, long ttlMillis) {
        String owner = UUID.randomUUID().toString();
        long sentAt = System.nanoTime();
        Attempt attempt = store.tryAcquire(resource, owner, ttlMillis, operationTimeout);
        if (!attempt.isAcquired()) {
            return new Outcome(null, attempt.holderTtlMillis());
        }
        Tenure tenure = new Tenure(resource, owner, attempt.fence(), ttlMillis, attempt.storeHandle());
        IssuedLease lease = new IssuedLease(this, tenure, sentAt);
        live.put(owner, lease);
        if (renewals != null) {
            renewals.watch(lease);
        }
        return new Outcome(lease, 0);
    }

    /**
     * How long to wait before the next attempt when no release is heard of: a little past the
     * holder's remaining TTL when that is shorter than the poll interval, else the poll
     * interval jittered down by up to half, so that waiters do not retry in lockstep.
     */
    private long pause(long holderTtlMillis) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long holderTtlNanos = TimeUnit.MILLISECONDS.toNanos(holderTtlMillis);
        if (holderTtlMillis > 0 && holderTtlNanos < pollNanos) {
            return holderTtlNanos + TimeUnit.MILLISECONDS.toNanos(1) + random.nextLong(TimeUnit.MILLISECONDS.toNanos(5));
        }
        return pollNanos / 2 + random.nextLong(pollNanos / 2 + 1);
    }

    public String address() {
        return store.address();
    }

    private long checkArguments(String resource, Duration ttl) {
        if (closed) {
            throw new IllegalStateException("these locks are closed (" + store.address() + ")");
        }
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(ttl, "ttl");
        if (resource.isBlank()) {
            throw new IllegalArgumentException("resource must not be blank");
        }
        store.checkResourceName(resource);
        return IssuedLease.roundedMillis(ttl);
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 2;
        }
    }

    @Override
    public void close() {
        closed = true;
        if (renewals != null) {
            renewals.close();
        }
        store.close();
    }

    private record Outcome(Lease lease, long holderTtlMillis) {
    }

    /** One waiting acquire's deadline, and the store failures it has met. */
    private static final class Wait {
        final String resource;
        private final Duration maxWait;
        private final long deadline;
        private long failingSince;
        private int failures;
        private LockStoreException lastFailure;

        Wait(String resource, Duration maxWait) {
            this.resource = resource;
            this.maxWait = maxWait;
            this.deadline = System.nanoTime() + saturatedNanos(maxWait);
        }

        long nanosLeft() {
            return deadline - System.nanoTime();
        }

        void failed(LockStoreException e) {
            if (failures++ == 0) {
                failingSince = System.nanoTime();
            }
            lastFailure = e;
        }

        /** The store answered: an outage met later is a new one. */
        void answered() {
            failures = 0;
            lastFailure = null;
        }

        /** The failure of a wait that ran out while the store kept failing. */
        LockAcquisitionException outageOutlasted(String address) {
            if (maxWait.isZero()) {
                return storeFailure(resource, lastFailure);
            }
            long failingMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - failingSince);
            return new LockAcquisitionException(resource, LockAcquisitionException.Reason.STORE_FAILED,
                    "could not acquire lock '" + resource + "' within " + maxWait + ": " + address + " kept failing ("
                            + failures + (failures == 1 ? " attempt" : " attempts") + " over the last " + failingMillis
                            + " ms); the last failure: " + lastFailure.getMessage(), lastFailure);
        }
    }
}
