package dev.fencing.lock;

import dev.fencing.internal.lock.LeaseIssuer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Counts the attempts that waiting acquires make again after their store failed, from the lease
 * machinery's DEBUG log: the one thing a waiting acquire shows while it rides out an outage, so
 * that a test can take the store back only once an acquire has met the outage (a latch, not a
 * sleep).
 */
final class RetriesSeen extends Handler implements AutoCloseable {
    private static final Logger MACHINERY = Logger.getLogger(LeaseIssuer.class.getName());
    final CountDownLatch firstFailure = new CountDownLatch(1);
    final AtomicInteger count = new AtomicInteger();
    private final Level previous = MACHINERY.getLevel();

    RetriesSeen() {
        MACHINERY.setLevel(Level.FINE);
        MACHINERY.addHandler(this);
    }

    @Override
    public void publish(LogRecord record) {
        if (record.getMessage() != null && record.getMessage().contains("; trying again in ")) {
            count.incrementAndGet();
            firstFailure.countDown();
        }
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        MACHINERY.removeHandler(this);
        MACHINERY.setLevel(previous);
    }
}
