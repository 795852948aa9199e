package dev.fencing.shedlock;

import dev.fencing.Fence;
import dev.fencing.lock.Lease;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import net.javacrumbs.shedlock.core.ClockProvider;

/**
 * One locked run of a ShedLock task: its lease, the fence scope entered on the task's thread, and
 * until when {@code lockAtLeastFor} keeps the lock. Shared by the lock ShedLock got and every lock
 * an {@code extend} made from it, so that whichever of them is unlocked ends the run once.
 */
final class LockedTask {

    private static final System.Logger LOG = System.getLogger(LockedTask.class.getName());

    private final Lease lease;
    private final Fence.Scope fence;
    private final ScheduledExecutorService deferredReleases;
    // Guarded by this.
    private Instant lockAtLeastUntil;
    private boolean ended;

    LockedTask(Lease lease, Fence.Scope fence, Instant lockAtLeastUntil, ScheduledExecutorService deferredReleases) {
        this.lease = lease;
        this.fence = fence;
        this.lockAtLeastUntil = lockAtLeastUntil;
        this.deferredReleases = deferredReleases;
    }

    Lease lease() {
        return lease;
    }

    /**
     * Extends the lease to {@code lockAtMostFor} from now, on whatever thread calls (KeepAlive's
     * timer): no fence is entered or left here.
     *
     * @return false when the lease is lost or the run has ended
     */
    synchronized boolean extend(Duration lockAtMostFor, Instant newLockAtLeastUntil) {
        if (ended) {
            return false;
        }
        if (!lease.extend(lockAtMostFor)) {
            LOG.log(System.Logger.Level.WARNING, () -> "could not extend " + lease + ": it is lost; the task's "
                    + "writes to fenced tables are refused once a successor has written");
            return false;
        }
        lockAtLeastUntil = newLockAtLeastUntil;
        return true;
    }

    /**
     * Ends the run: the fence scope now (closing it from another thread is allowed: the fence
     * stops applying there too), the lease now or at {@code lockAtLeastUntil}. Later calls do nothing.
     */
    void end() {
        Instant keepUntil;
        synchronized (this) {
            if (ended) {
                return;
            }
            ended = true;
            keepUntil = lockAtLeastUntil;
        }
        fence.close();
        if (!lease.isHeld()) {
            // Released nothing: the lock may be a successor's, and a compare-and-delete would only
            // find that out with a round trip.
            LOG.log(System.Logger.Level.WARNING, () -> "ShedLock task on " + lease + " ended after its lease was lost "
                    + "(it ran past lockAtMostFor, or its renewal failed); nothing released. Its writes to fenced "
                    + "tables after a successor's were refused");
            return;
        }
        long delayNanos = Duration.between(ClockProvider.now(), keepUntil).toNanos();
        if (delayNanos <= 0) {
            lease.close();
            return;
        }
        try {
            deferredReleases.schedule(lease::close, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // No schedule left to keep the lock until lockAtLeastUntil: releasing now would let
            // another node run the task early, so the lock is left to expire by lockAtMostFor.
            LOG.log(System.Logger.Level.WARNING, () -> lease + " is left to expire by its TTL: the schedule of "
                    + "deferred releases is shut down");
        }
    }
}
