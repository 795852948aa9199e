package dev.fencing.lock;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Renews leases on a schedule (every third of their TTL) until they are closed or lost.
 *
 * <p>Renewals run one after another on one thread: a renewal is one short round trip, and
 * one thread keeps a slow store from multiplying threads. The watchdog stops with its
 * process; that is the point of fencing: a paused process's lease expires, and its fence is
 * what keeps it from doing harm when it wakes.
 */
final class Watchdog implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Watchdog.class.getName());

    private final ScheduledExecutorService executor;
    private final boolean ownsExecutor;

    /** Renews on {@code executor}, or on a daemon thread of its own when it is null. */
    Watchdog(ScheduledExecutorService executor) {
        if (executor != null) {
            this.executor = executor;
            this.ownsExecutor = false;
        } else {
            ScheduledThreadPoolExecutor own = new ScheduledThreadPoolExecutor(1, task -> {
                Thread thread = new Thread(task, "fencing-lock-watchdog");
                thread.setDaemon(true);
                return thread;
            });
            own.setRemoveOnCancelPolicy(true);
            this.executor = own;
            this.ownsExecutor = true;
        }
    }

    /** Starts renewing {@code lease}; the returned future is cancelled to stop. */
    ScheduledFuture<?> watch(IssuedLease lease) {
        long period = Math.max(1, lease.ttlMillis() / 3);
        // A slow acquire (a first connection, a loaded store) may have used much of the TTL:
        // the first renewal comes by half of what is left, not a full period after the acquire.
        long first = Math.max(0, Math.min(period, lease.believedRemainingMillis() / 2));
        return executor.scheduleWithFixedDelay(() -> renew(lease), first, period, TimeUnit.MILLISECONDS);
    }

    private static void renew(IssuedLease lease) {
        try {
            lease.renew();
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
        if (ownsExecutor) {
            executor.shutdownNow();
        }
    }
}
