package dev.fencing.internal.lock;

import dev.fencing.lock.spi.LockStoreException;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Renews leases every third of their TTL until they are closed or lost, each lease on its
 * own: one thread keeps the schedule, and every renewal runs on a worker thread with a time
 * limit of its own, so that a renewal stuck at the store (a row lock held by another
 * session, a slow node) delays only its own lease, never another's. Each lease has at most
 * one renewal in flight, so workers never outnumber the leases being renewed at once.
 *
 * <p>Renewals stop with their process; that is the point of fencing: a paused process's
 * lease expires, and its fence is what keeps it from doing harm when it wakes.
 */
public final class Renewals implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Renewals.class.getName());
    private static final AtomicInteger WORKER_NUMBERS = new AtomicInteger();

    private final ScheduledExecutorService schedule;
    private final boolean ownsSchedule;
    private final ExecutorService workers;
    private final Duration timeout;

    /**
     * @param schedule keeps the schedule, or null for a daemon thread of its own
     * @param timeout the most one renewal may take (less when the lease has less time left)
     */
    public Renewals(ScheduledExecutorService schedule, Duration timeout) {
        this.timeout = timeout;
        if (schedule != null) {
            this.schedule = schedule;
            this.ownsSchedule = false;
        } else {
            ScheduledThreadPoolExecutor own = new ScheduledThreadPoolExecutor(1,
                    daemon("fencing-lock-renewal-schedule"));
            own.setRemoveOnCancelPolicy(true);
            this.schedule = own;
            this.ownsSchedule = true;
        }
        // Threads on demand, idle ones gone after a minute: one per renewal in flight.
        this.workers = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
                task -> daemon("fencing-lock-renewal-" + WORKER_NUMBERS.incrementAndGet()).newThread(task));
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    /** Starts renewing {@code lease}. */
    void watch(IssuedLease lease) {
        if (!lease.startRenewing()) {
            return;
        }
        long period = period(lease);
        // A slow acquire (a first connection, a loaded store) may have used much of the TTL:
        // the first renewal comes by half of what is left, not a full period after the acquire.
        long first = Math.max(0, Math.min(period, lease.believedRemainingNanos() / 2));
        scheduleNext(lease, first);
    }

    private static long period(IssuedLease lease) {
        return Math.max(TimeUnit.MILLISECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(lease.tenure().ttlMillis()) / 3);
    }

    private void scheduleNext(IssuedLease lease, long delayNanos) {
        try {
            lease.nextRenewal(schedule.schedule(() -> hand(lease), delayNanos, TimeUnit.NANOSECONDS));
        } catch (RejectedExecutionException e) {
            // Shut down: the lease expires by its TTL.
        }
    }

    /** On the schedule thread: hands the renewal to a worker, so the schedule never waits for a store. */
    private void hand(IssuedLease lease) {
        if (!lease.isRenewing()) {
            return;
        }
        try {
            workers.execute(() -> {
                renew(lease);
                if (lease.isRenewing()) {
                    scheduleNext(lease, period(lease));
                }
            });
        } catch (RejectedExecutionException e) {
            // Shut down.
        }
    }

    private void renew(IssuedLease lease) {
        try {
            lease.renew(timeout);
        } catch (LockStoreException e) {
            // Unknown outcome: the lease stays held until its TTL runs out, and the next
            // renewal tries again (or finds the TTL gone and gives the lease up).
            LOG.log(System.Logger.Level.WARNING, "could not renew " + lease + ": " + e.getMessage());
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "renewing " + lease + " failed", e);
        }
    }

    @Override
    public void close() {
        if (ownsSchedule) {
            schedule.shutdownNow();
        }
        workers.shutdownNow();
    }
}
