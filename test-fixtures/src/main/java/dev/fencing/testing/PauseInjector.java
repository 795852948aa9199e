package dev.fencing.testing;

import org.opentest4j.AssertionFailedError;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Named pause points that let a test stop a thread at an exact place (a lock holder between
 * reading and writing, say) and hold it there while the test makes the world change under it:
 * the lease expires, another holder writes. No sleeps: the test waits on latches.
 *
 * <pre>{@code
 * PauseInjector pauses = new PauseInjector();
 * // in the code under test (or a hook it calls): a no-op unless the point is armed
 * pauses.pauseAt("before-write");
 *
 * // in the test
 * pauses.arm("before-write");
 * Future<?> holderA = executor.submit(() -> worker.run());     // reaches the point and waits
 * pauses.awaitPaused("before-write", Duration.ofSeconds(5));
 * ... let the lease expire, let holder B take the lock and write ...
 * pauses.release("before-write");
 * ExecutionException stale = assertThrows(ExecutionException.class, holderA::get);
 * }</pre>
 *
 * <p>An armed point catches exactly one thread: the first to reach it. Other threads pass
 * through, so a second holder running the same code is not caught; arm the point again to
 * catch the next one. {@link #close()} releases every caught thread, so none stays stuck after
 * a failed test. Thread-safe.
 */
public final class PauseInjector implements AutoCloseable {

    private final Map<String, Trap> armed = new ConcurrentHashMap<>();

    /**
     * Called by the code under test: when {@code point} is armed and no thread has been caught
     * there yet, blocks the calling thread until the test {@link #release(String) releases}
     * it; otherwise returns at once. An interrupt ends the wait early and leaves the thread's
     * interrupt flag set.
     */
    public void pauseAt(String point) {
        Trap trap = armed.get(point);
        if (trap == null || !trap.caught.compareAndSet(null, Thread.currentThread())) {
            return;
        }
        trap.arrived.countDown();
        try {
            trap.released.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A {@link Runnable} that calls {@link #pauseAt(String) pauseAt(point)}, for code that takes hooks. */
    public Runnable hook(String point) {
        Objects.requireNonNull(point, "point");
        return () -> pauseAt(point);
    }

    /**
     * Arms {@code point}: the next thread to reach it will wait there.
     *
     * @throws IllegalStateException if it is already armed and not yet released
     */
    public void arm(String point) {
        Objects.requireNonNull(point, "point");
        if (armed.putIfAbsent(point, new Trap()) != null) {
            throw new IllegalStateException("pause point '" + point + "' is already armed; release it before arming it again");
        }
    }

    /**
     * Waits until a thread is caught at the armed {@code point} and returns that thread.
     *
     * @throws AssertionFailedError if no thread arrives within {@code timeout}
     * @throws IllegalStateException if the point is not armed
     */
    public Thread awaitPaused(String point, Duration timeout) throws InterruptedException {
        Trap trap = trap(point);
        if (!trap.arrived.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            throw new AssertionFailedError("no thread reached pause point '" + point + "' within " + timeout);
        }
        return trap.caught.get();
    }

    /** True when a thread is waiting at {@code point} now. */
    public boolean isPaused(String point) {
        Trap trap = armed.get(point);
        return trap != null && trap.arrived.getCount() == 0;
    }

    /**
     * Lets the thread caught at {@code point} (if any) go on and disarms the point, so later
     * arrivals pass through.
     *
     * @throws IllegalStateException if the point is not armed
     */
    public void release(String point) {
        Trap trap = armed.remove(point);
        if (trap == null) {
            throw new IllegalStateException("pause point '" + point + "' is not armed");
        }
        trap.released.countDown();
    }

    /** Releases and disarms every point. */
    @Override
    public void close() {
        for (String point : armed.keySet()) {
            Trap trap = armed.remove(point);
            if (trap != null) {
                trap.released.countDown();
            }
        }
    }

    private Trap trap(String point) {
        Trap trap = armed.get(point);
        if (trap == null) {
            throw new IllegalStateException("pause point '" + point + "' is not armed; call arm(\"" + point + "\") first");
        }
        return trap;
    }

    private static final class Trap {
        final AtomicReference<Thread> caught = new AtomicReference<>();
        final CountDownLatch arrived = new CountDownLatch(1);
        final CountDownLatch released = new CountDownLatch(1);
    }
}
