package dev.fencing.it;

import org.opentest4j.AssertionFailedError;

import java.time.Duration;

/**
 * Waits for a condition of an outside system (a server's state, a lease's belief) that offers
 * no notification: polls every 20 ms up to a generous deadline. Code of our own signals with
 * latches instead.
 */
public final class Await {

    public interface Condition {
        boolean holds() throws Exception;
    }

    private Await() {
    }

    /** Returns how long it took; fails after {@code timeout}. */
    public static Duration until(String what, Duration timeout, Condition condition) throws Exception {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionFailedError("timed out after " + timeout + " waiting until " + what);
            }
            Thread.sleep(20);
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }
}
