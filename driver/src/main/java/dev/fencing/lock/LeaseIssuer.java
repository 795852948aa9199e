package dev.fencing.lock;

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
final class LeaseIssuer implements LeaseEvents, AutoCloseable {

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
    LeaseIssuer(LockStore store, Renewals renewals, Duration pollInterval, Duration operationTimeout) {
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
            System.getLogger(LeaseIssuer.class.getName()).log(System.Logger.Level.WARNING,
                    () -> lease + " is lost: " + store.address() + " reports its tenure over");
            lease.lose();
        }
    }

    /** A lease closed or lost: no longer one of this process's. */
    void forget(IssuedLease lease) {
        live.remove(lease.ownershipToken(), lease);
    }

    Optional<Lease> tryAcquire(String resource, Duration ttl) {
        long ttlMillis = checkArguments(resource, ttl);
        return Optional.ofNullable(attempt(resource, ttlMillis).lease);
    }

    Lease acquire(String resource, Duration ttl, Duration maxWait) {
        long ttlMillis = checkArguments(resource, ttl);
        Objects.requireNonNull(maxWait, "maxWait");
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must not be negative, got " + maxWait);
        }
        long deadline = System.nanoTime() + saturatedNanos(maxWait);
        Outcome outcome = attempt(resource, ttlMillis);
        if (outcome.lease != null) {
            return outcome.lease;
        }
        if (deadline - System.nanoTime() <= 0) {
            throw timedOut(resource, maxWait);
        }
        // Contended: from here on, releases wake this thread. Registering may subscribe, and
        // the attempt after it catches a release that came before the subscription. Waiting
        // for the subscription longer than a poll interval would gain nothing over polling.
        long subscriptionWait = Math.min(pollNanos, Math.max(0, deadline - System.nanoTime()));
        try (ReleaseSignals.Waiter waiter = signals.register(resource, subscriptionWait)) {
            while (true) {
                outcome = attempt(resource, ttlMillis);
                if (outcome.lease != null) {
                    waiter.acquired();
                    return outcome.lease;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw timedOut(resource, maxWait);
                }
                waiter.await(Math.min(left, pause(outcome.holderTtlMillis)));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockAcquisitionException(resource, LockAcquisitionException.Reason.INTERRUPTED,
                    "interrupted while waiting for lock '" + resource + "' at " + store.address(), e);
        }
    }

    private LockAcquisitionException timedOut(String resource, Duration maxWait) {
        return new LockAcquisitionException(resource, LockAcquisitionException.Reason.TIMED_OUT,
                "timed out after " + maxWait + " waiting for lock '" + resource + "' at " + store.address(), null);
    }

    /** One atomic attempt at the store. */
    private Outcome attempt(String resource, long ttlMillis) {
        String owner = UUID.randomUUID().toString();
        long sentAt = System.nanoTime();
        Attempt attempt;
        try {
            attempt = store.tryAcquire(resource, owner, ttlMillis, operationTimeout);
        } catch (LockStoreException e) {
            throw new LockAcquisitionException(resource, LockAcquisitionException.Reason.STORE_FAILED,
                    "could not acquire lock '" + resource + "': " + e.getMessage(), e);
        }
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

    String address() {
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
}
