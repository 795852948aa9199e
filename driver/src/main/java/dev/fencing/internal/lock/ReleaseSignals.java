package dev.fencing.internal.lock;

import dev.fencing.lock.spi.LeaseEvents;
import dev.fencing.lock.spi.LockStore;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * Wakes threads that wait for a lock when it is released, so that a waiting acquire does not
 * have to poll: releases by this process's own leases, and releases by other processes that
 * the store reports ({@link LeaseEvents#released}).
 *
 * <p>One release wakes one waiter of this process, the one that waited longest since it was
 * last woken: only one can get the lock, and waking them all would have all but one pay a
 * round trip to the store for nothing (a herd, which on a hot lock costs more than it
 * gains). A woken waiter that leaves without the lock passes its wake-up on.
 *
 * <p>A wake-up is only a hint to try again: a missed one costs a poll interval, never
 * correctness, since the store decides who gets the lock.
 */
final class ReleaseSignals {

    private final LockStore store;
    private final Map<String, Queue> queues = new HashMap<>(); // guarded by itself

    ReleaseSignals(LockStore store) {
        this.store = store;
    }

    /**
     * Registers the calling thread as waiting for {@code resource}. The first waiter of a
     * resource asks the store to watch for releases; this waits up to {@code maxBlockNanos}
     * for that to be in place, so that a release right after the caller's next attempt is not
     * missed.
     */
    Waiter register(String resource, long maxBlockNanos) {
        Waiter waiter;
        CompletionStage<?> watching = null;
        // Watch and unwatch under the same lock as the count, so that they reach the store in
        // the order the counts changed.
        synchronized (queues) {
            Queue queue = queues.computeIfAbsent(resource, name -> new Queue());
            waiter = new Waiter(resource, queue);
            queue.waiting.addLast(waiter);
            if (queue.waiting.size() == 1) {
                watching = store.watchReleases(resource);
            }
        }
        if (watching != null && maxBlockNanos > 0) {
            try {
                watching.toCompletableFuture().get(maxBlockNanos, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                // Not watching (yet): waiters fall back to polling.
            }
        }
        return waiter;
    }

    /** A lease of this process released {@code resource}: one waiter here tries again. */
    void releasedHere(String resource, long fence) {
        Waiter next;
        synchronized (queues) {
            Queue queue = queues.get(resource);
            if (queue == null) {
                return;
            }
            queue.releasedHere(fence);
            next = queue.next();
        }
        if (next != null) {
            next.signal();
        }
    }

    /** The store saw {@code resource} released (by any process): one waiter here tries again. */
    void releasedAnywhere(String resource, long fence) {
        Waiter next;
        synchronized (queues) {
            Queue queue = queues.get(resource);
            if (queue == null || queue.wasReleasedHere(fence)) {
                // Nobody waits, or the echo of a release this process already announced.
                return;
            }
            next = queue.next();
        }
        if (next != null) {
            next.signal();
        }
    }

    private void leave(Waiter waiter, boolean passOnWakeUp) {
        Waiter next = null;
        synchronized (queues) {
            Queue queue = waiter.queue;
            queue.waiting.remove(waiter);
            if (queue.waiting.isEmpty()) {
                queues.remove(waiter.resource);
                store.unwatchReleases(waiter.resource);
            } else if (passOnWakeUp) {
                next = queue.next();
            }
        }
        if (next != null) {
            next.signal();
        }
    }

    /** The threads of this process waiting for one resource, in the order they are woken. */
    private static final class Queue {
        /** How many of this process's latest releases are remembered, to ignore their echoes. */
        private static final int ECHOES = 8;

        final ArrayDeque<Waiter> waiting = new ArrayDeque<>();
        // On a hot lock several local releases may pass before the store reports the first.
        private final long[] releasedHere = new long[ECHOES];
        private int nextSlot;

        void releasedHere(long fence) {
            releasedHere[nextSlot] = fence;
            nextSlot = (nextSlot + 1) % ECHOES;
        }

        boolean wasReleasedHere(long fence) {
            if (fence == 0) {
                return false;
            }
            for (long known : releasedHere) {
                if (known == fence) {
                    return true;
                }
            }
            return false;
        }

        /** The waiter to wake, moved to the back so that the next release wakes another. */
        Waiter next() {
            Waiter first = waiting.pollFirst();
            if (first != null) {
                waiting.addLast(first);
            }
            return first;
        }
    }

    /** One waiting thread's registration; close it when done waiting. */
    final class Waiter implements AutoCloseable {
        private final String resource;
        private final Queue queue;
        private boolean signalled; // guarded by this
        private boolean acquired;
        private boolean closed;

        private Waiter(String resource, Queue queue) {
            this.resource = resource;
            this.queue = queue;
        }

        private synchronized void signal() {
            signalled = true;
            notify();
        }

        /**
         * Blocks until this waiter is woken by a release, or until {@code nanos} have passed.
         * A wake-up that came while the thread was busy (its attempt at the store) is not
         * lost: this then returns at once.
         */
        synchronized void await(long nanos) throws InterruptedException {
            long deadline = System.nanoTime() + nanos;
            long left = nanos;
            while (!signalled && left > 0) {
                TimeUnit.NANOSECONDS.timedWait(this, left);
                left = deadline - System.nanoTime();
            }
            signalled = false;
        }

        /** Marks that the waiter got the lock, so that closing does not pass a wake-up on. */
        void acquired() {
            acquired = true;
        }

        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            boolean unusedWakeUp;
            synchronized (this) {
                unusedWakeUp = signalled && !acquired;
            }
            leave(this, unusedWakeUp);
        }
    }
}
