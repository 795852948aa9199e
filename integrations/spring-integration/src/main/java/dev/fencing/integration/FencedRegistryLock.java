package dev.fencing.integration;

import dev.fencing.Fence;
import dev.fencing.lock.FencedLocks;
import dev.fencing.lock.Lease;
import dev.fencing.lock.LockAcquisitionException;

import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.springframework.integration.support.locks.DistributedLock;

/**
 * One key's lock of a {@link FencedLockRegistry}: a local re-entrant lock that queues this
 * process's threads, and, while held, a lease of the key with its fence entered on the holding
 * thread. The lease is taken by the first hold and released by the last unlock.
 */
final class FencedRegistryLock implements DistributedLock {

    /** How long one wait for the store lasts inside an unbounded lock(); it is repeated. */
    private static final Duration UNBOUNDED_WAIT_STEP = Duration.ofMinutes(1);

    private final FencedLocks locks;
    private final String key;
    private final Duration defaultTtl;
    private final ReentrantLock local = new ReentrantLock();
    // Written by the holding thread only, while it holds local.
    private Lease lease;
    private Fence.Scope fence;
    private volatile long lastUsedMillis = System.currentTimeMillis();

    FencedRegistryLock(FencedLocks locks, String key, Duration defaultTtl) {
        this.locks = locks;
        this.key = key;
        this.defaultTtl = defaultTtl;
    }

    void touch() {
        lastUsedMillis = System.currentTimeMillis();
    }

    boolean unusedSince(long cutoffMillis) {
        return !local.isLocked() && lastUsedMillis < cutoffMillis;
    }

    @Override
    public void lock() {
        lock(defaultTtl);
    }

    /** Waits as long as it takes; an interrupt meanwhile is kept for after (as {@link java.util.concurrent.locks.Lock#lock()}). */
    @Override
    public void lock(Duration ttl) {
        local.lock();
        boolean interrupted = false;
        try {
            while (!held()) {
                try {
                    acquire(ttl, UNBOUNDED_WAIT_STEP);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } catch (RuntimeException | Error e) {
            local.unlock();
            throw e;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        local.lockInterruptibly();
        try {
            while (!held()) {
                acquire(defaultTtl, UNBOUNDED_WAIT_STEP);
            }
        } catch (InterruptedException | RuntimeException | Error e) {
            local.unlock();
            throw e;
        }
    }

    @Override
    public boolean tryLock() {
        try {
            return tryLock(Duration.ZERO, defaultTtl);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(Duration.ofNanos(unit.toNanos(time)), defaultTtl);
    }

    @Override
    public boolean tryLock(Duration maxWait, Duration ttl) throws InterruptedException {
        long deadline = System.nanoTime() + Math.max(0, maxWait.toNanos());
        if (!local.tryLock(Math.max(0, maxWait.toNanos()), TimeUnit.NANOSECONDS)) {
            return false;
        }
        try {
            if (!held()) {
                acquire(ttl, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            }
        } catch (InterruptedException | RuntimeException | Error e) {
            local.unlock();
            throw e;
        }
        if (!held()) {
            local.unlock();
            return false;
        }
        return true;
    }

    /** Whether this thread's hold already has the lease (a re-entry). */
    private boolean held() {
        return lease != null;
    }

    /** Asks the store, waiting up to {@code maxWait}; on success enters the fence on this thread. */
    private void acquire(Duration ttl, Duration maxWait) throws InterruptedException {
        Lease acquired;
        try {
            acquired = maxWait.isZero() ? locks.tryAcquire(key, ttl).orElse(null) : locks.acquire(key, ttl, maxWait);
        } catch (LockAcquisitionException e) {
            if (e.reason() == LockAcquisitionException.Reason.TIMED_OUT) {
                return;
            }
            // An interrupt during a store call may surface as a store failure (the client gave up
            // waiting for the reply): the interrupt is what the caller must see.
            if (e.reason() == LockAcquisitionException.Reason.INTERRUPTED || Thread.currentThread().isInterrupted()) {
                Thread.interrupted();
                throw (InterruptedException) new InterruptedException("interrupted while waiting for the lock on '" + key
                        + "'").initCause(e);
            }
            throw e;
        }
        if (acquired == null) {
            return;
        }
        try {
            fence = acquired.enterFence();
        } catch (IllegalStateException ranOut) {
            // The acquire outlasted the TTL (a pause right after it): not held, try again or give up.
            acquired.close();
            return;
        }
        lease = acquired;
    }

    /**
     * @throws IllegalMonitorStateException if the calling thread does not hold this lock
     * @throws ConcurrentModificationException after the last unlock, if the lease had been lost:
     *         the lock is free here, and writes made after a successor's were refused
     */
    @Override
    public void unlock() {
        if (!local.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException("the current thread does not own the lock on '" + key + "'");
        }
        if (local.getHoldCount() > 1) {
            local.unlock();
            return;
        }
        Lease ending = lease;
        boolean lost = !ending.isHeld();
        lease = null;
        try {
            fence.close();
            fence = null;
            if (!lost) {
                ending.close();
            }
        } finally {
            touch();
            local.unlock();
        }
        if (lost) {
            throw new ConcurrentModificationException("the lease on '" + key + "' with fence " + ending.fence()
                    + " was lost before unlock (it ran out, or another holder took the lock): nothing was released, "
                    + "and writes to fenced tables made after a successor's were refused");
        }
    }

    void renew(Duration ttl) {
        if (!local.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException("the current thread does not own the lock on '" + key + "'");
        }
        if (!lease.extend(ttl)) {
            throw new IllegalStateException("could not renew the lock on '" + key + "': its lease with fence "
                    + lease.fence() + " is lost");
        }
    }

    /** Refused: a condition's waiters would have to be signalled by whichever process holds the lock next. */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("a FencedLockRegistry lock has no conditions: its holder may be another "
                + "process, which could not signal this one's waiters; coordinate through the store or a message channel");
    }

    @Override
    public String toString() {
        return "FencedRegistryLock[" + key + (local.isLocked() ? ", locked" : "") + "]";
    }
}
