package dev.fencing.shedlock;

import java.time.Duration;
import java.util.Optional;

import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * What ShedLock holds for a locked task. An {@code extend} hands back a new one for the same run
 * and retires this one (ShedLock's rule: a lock is used once); {@code unlock} on any of them ends
 * the run once, so that the task thread's fence can never outlive its task.
 */
final class FencedSimpleLock implements SimpleLock {

    private final LockedTask task;
    private final LockConfiguration configuration;
    // Guarded by this.
    private boolean retired;

    FencedSimpleLock(LockedTask task, LockConfiguration configuration) {
        this.task = task;
        this.configuration = configuration;
    }

    @Override
    public void unlock() {
        synchronized (this) {
            retired = true;
        }
        task.end();
    }

    /**
     * Extends the lease to {@code lockAtMostFor} from now.
     *
     * @return the lock to use from now on, or empty when the lease is lost (the task should stop:
     *         its writes are refused once a successor has written)
     * @throws IllegalStateException if this lock was unlocked or already extended
     * @throws UnsupportedOperationException if the store cannot give the lease {@code lockAtMostFor}
     */
    @Override
    public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
        synchronized (this) {
            if (retired) {
                throw new IllegalStateException("the lock '" + configuration.getName()
                        + "' was already unlocked or extended; extend the lock the last extend returned");
            }
            retired = true;
        }
        LockConfiguration extended = new LockConfiguration(ClockProvider.now(), configuration.getName(), lockAtMostFor,
                lockAtLeastFor);
        if (!task.extend(lockAtMostFor, extended.getLockAtLeastUntil())) {
            return Optional.empty();
        }
        return Optional.of(new FencedSimpleLock(task, extended));
    }

    @Override
    public String toString() {
        return "FencedSimpleLock[" + configuration.getName() + ", " + task.lease() + "]";
    }
}
