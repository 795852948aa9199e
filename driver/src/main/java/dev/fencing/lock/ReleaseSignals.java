package dev.fencing.lock;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * Wakes threads that wait for a lock when it is released, so that a waiting acquire does not
 * have to poll. Releases are reported by this process's own leases and, for Redis, by the
 * release channel that every release publishes to (other processes' releases).
 *
 * <p>A wake-up is only a hint to try again: a missed one costs a poll interval, never
 * correctness, since the store decides who gets the lock.
 */
final class ReleaseSignals {

    /** Where releases by other processes come from: told which resources have waiters. */
    interface Subscriptions {

        /** Starts listening for releases of {@code resource}; completes once listening. */
        CompletionStage<?> subscribe(String resource);

        /** Stops listening for releases of {@code resource}. */
        void unsubscribe(String resource);

        /** No outside source: only releases in this process wake waiters early. */
        Subscriptions NONE = new Subscriptions() {
            @Override
            public CompletionStage<?> subscribe(String resource) {
                return CompletableFuture.completedFuture(null);
            }

            @Override
            public void unsubscribe(String resource) {
            }
        };
    }

    private final Subscriptions subscriptions;
    private final Map<String, Signal> signals = new HashMap<>();

    ReleaseSignals(Subscriptions subscriptions) {
        this.subscriptions = subscriptions;
    }

    /**
     * Registers interest in releases of {@code resource}. The first waiter of a resource
     * subscribes; this waits up to {@code maxBlockNanos} for the subscription to be in place,
     * so that a release right after the caller's next attempt is not missed.
     */
    Waiter register(String resource, long maxBlockNanos) {
        Signal signal;
        CompletionStage<?> subscribed = null;
        // Subscribe and unsubscribe under the same lock as the count, so that they reach the
        // store in the order the counts changed.
        synchronized (signals) {
            signal = signals.computeIfAbsent(resource, name -> new Signal());
            if (signal.waiters++ == 0) {
                subscribed = subscriptions.subscribe(resource);
            }
        }
        if (subscribed != null && maxBlockNanos > 0) {
            try {
                subscribed.toCompletableFuture().get(maxBlockNanos, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                // Not subscribed (yet): waiters fall back to polling.
            }
        }
        return new Waiter(resource, signal);
    }

    /** Wakes every thread waiting for {@code resource}. */
    void released(String resource) {
        Signal signal;
        synchronized (signals) {
            signal = signals.get(resource);
        }
        if (signal != null) {
            signal.fire();
        }
    }

    private void unregister(String resource, Signal signal) {
        synchronized (signals) {
            if (--signal.waiters == 0) {
                signals.remove(resource);
                subscriptions.unsubscribe(resource);
            }
        }
    }

    /** One waiting thread's registration; close it when done waiting. */
    final class Waiter implements AutoCloseable {
        private final String resource;
        private final Signal signal;
        private boolean closed;

        private Waiter(String resource, Signal signal) {
            this.resource = resource;
            this.signal = signal;
        }

        /** The current release count; read it before an attempt, pass it to {@link #await}. */
        long generation() {
            return signal.generation();
        }

        /**
         * Blocks until a release newer than {@code seenGeneration} or until {@code nanos}
         * have passed, whichever comes first.
         */
        void await(long seenGeneration, long nanos) throws InterruptedException {
            signal.await(seenGeneration, nanos);
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                unregister(resource, signal);
            }
        }
    }

    private static final class Signal {
        private int waiters; // guarded by the signals map
        private long generation;

        synchronized long generation() {
            return generation;
        }

        synchronized void fire() {
            generation++;
            notifyAll();
        }

        synchronized void await(long seenGeneration, long nanos) throws InterruptedException {
            long deadline = System.nanoTime() + nanos;
            long left = nanos;
            while (generation == seenGeneration && left > 0) {
                TimeUnit.NANOSECONDS.timedWait(this, left);
                left = deadline - System.nanoTime();
            }
        }
    }
}
