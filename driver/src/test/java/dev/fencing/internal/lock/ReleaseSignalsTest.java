package dev.fencing.internal.lock;

import dev.fencing.lock.spi.Attempt;
import dev.fencing.lock.spi.LockStore;
import dev.fencing.lock.spi.Tenure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * One release wakes one waiter of the process, not all of them; a woken waiter that leaves
 * without the lock passes its wake-up on; the store is asked to watch a resource while
 * anyone waits for it, and echoes of this process's own releases wake nobody.
 */
class ReleaseSignalsTest {

    /** Records watch calls; nothing else is used here. */
    private static final class WatchingStore implements LockStore {
        final List<String> calls = new CopyOnWriteArrayList<>();

        @Override
        public Attempt tryAcquire(String resource, String owner, long ttlMillis, Duration timeout) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean extend(Tenure tenure, Duration timeout) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean release(Tenure tenure, Duration timeout) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletionStage<?> watchReleases(String resource) {
            calls.add("watch " + resource);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void unwatchReleases(String resource) {
            calls.add("unwatch " + resource);
        }

        @Override
        public String address() {
            return "test store";
        }

        @Override
        public void close() {
        }
    }

    /** Threads waiting on their own registration; counts those that woke. */
    private static final class Waiting {
        final AtomicInteger woken = new AtomicInteger();
        final List<ReleaseSignals.Waiter> waiters = new ArrayList<>();
        final List<Thread> threads = new ArrayList<>();

        Waiting(ReleaseSignals signals, String resource, int count) throws InterruptedException {
            CountDownLatch registered = new CountDownLatch(count);
            for (int i = 0; i < count; i++) {
                ReleaseSignals.Waiter waiter = signals.register(resource, 0);
                waiters.add(waiter);
                Thread thread = new Thread(() -> {
                    registered.countDown();
                    try {
                        waiter.await(TimeUnit.SECONDS.toNanos(30));
                        woken.incrementAndGet();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                threads.add(thread);
                thread.start();
            }
            registered.await();
        }

        void awaitWoken(int expected) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (woken.get() < expected && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            Thread.sleep(200); // time for a wrong extra wake-up to show
        }

        void stop() throws InterruptedException {
            threads.forEach(Thread::interrupt);
            for (Thread thread : threads) {
                thread.join(5_000);
            }
            waiters.forEach(ReleaseSignals.Waiter::close);
        }
    }

    @Test
    void aReleaseHereWakesOneWaiterNotAll() throws Exception {
        WatchingStore store = new WatchingStore();
        ReleaseSignals signals = new ReleaseSignals(store);
        Waiting waiting = new Waiting(signals, "hot", 5);
        try {
            signals.releasedHere("hot", 7);
            waiting.awaitWoken(1);
            assertThat(waiting.woken).as("waiters woken by one release").hasValue(1);

            signals.releasedAnywhere("hot", 7);
            waiting.awaitWoken(1);
            assertThat(waiting.woken).as("the store's echo of the same release").hasValue(1);

            signals.releasedAnywhere("hot", 8);
            waiting.awaitWoken(2);
            assertThat(waiting.woken).as("another process's release").hasValue(2);
        } finally {
            waiting.stop();
        }
        assertThat(store.calls).containsExactly("watch hot", "unwatch hot");
    }

    @Test
    void aWokenWaiterThatLeavesWithoutTheLockPassesItsWakeUpOn() throws Exception {
        ReleaseSignals signals = new ReleaseSignals(new WatchingStore());
        ReleaseSignals.Waiter busy = signals.register("hot", 0); // mid-attempt: not waiting yet
        Waiting waiting = new Waiting(signals, "hot", 2);
        try {
            signals.releasedHere("hot", 1); // wakes the longest-registered: busy
            waiting.awaitWoken(0);
            assertThat(waiting.woken).hasValue(0);
            busy.close(); // it gives up (timed out) without the lock
            waiting.awaitWoken(1);
            assertThat(waiting.woken).as("the wake-up went on to the next waiter").hasValue(1);
        } finally {
            waiting.stop();
        }
    }

    @Test
    void aWakeUpThatComesDuringAnAttemptIsNotLost() throws Exception {
        ReleaseSignals signals = new ReleaseSignals(new WatchingStore());
        try (ReleaseSignals.Waiter waiter = signals.register("hot", 0)) {
            signals.releasedHere("hot", 1); // while the waiter is busy at the store
            long started = System.nanoTime();
            waiter.await(TimeUnit.SECONDS.toNanos(10));
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(1));
        }
    }
}
