package dev.fencing.shedlock;

import dev.fencing.Fence;
import dev.fencing.lock.FencedLocks;
import dev.fencing.lock.Lease;

import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * ShedLock's {@code LockProvider} on fenced locks: each lock is a {@link Lease} of
 * {@link FencedLocks} on the lock's name, and the task runs with the lease's fence (and the lock's
 * name) current on its thread, so its writes to fenced tables carry the fence. A task that runs
 * past {@code lockAtMostFor} while another node takes the lock has its later writes refused
 * ({@link dev.fencing.StaleFenceException}) instead of landing after its successor's.
 *
 * <pre>{@code
 * @Bean
 * LockProvider lockProvider(FencedLocks locks) {     // the starter's bean, or any FencedLocks
 *     return new FencedLockProvider(locks);
 * }
 * }</pre>
 *
 * <ul>
 *   <li>{@code lock} takes the lease for {@code lockAtMostFor} (one attempt: a lock held elsewhere
 *       is an empty result, as ShedLock expects) and enters its fence on the calling thread; ShedLock's
 *       {@code LockingTaskExecutor} and its Spring proxies call {@code lock}, run the task and call
 *       {@code unlock} on that one thread.</li>
 *   <li>{@code unlock} ends the fence scope at once; the lease is released then, or at
 *       {@code lockAtLeastUntil} when that is later (it stays held, and renewed by the watchdog if
 *       the locks have one, until then). A lease found lost is not released (the lock may be the
 *       successor's): {@code unlock} logs that the task's lease was lost.</li>
 *   <li>{@code extend} (ShedLock's {@code LockExtender}, {@code KeepAliveLockProvider}) extends the
 *       lease ({@link Lease#extend}) without touching any thread's fence: the fence stays the
 *       task thread's, whichever thread extends.</li>
 * </ul>
 *
 * <p>Thread-safe. The provider owns no connection: closing the {@link FencedLocks} is the
 * application's.
 */
public final class FencedLockProvider implements ExtensibleLockProvider {

    private static final System.Logger LOG = System.getLogger(FencedLockProvider.class.getName());

    /** Shared by every provider that was given none: the releases deferred to {@code lockAtLeastUntil}. */
    private static final class DeferredReleases {
        static final ScheduledExecutorService SCHEDULE = daemonSchedule();

        private static ScheduledExecutorService daemonSchedule() {
            ScheduledThreadPoolExecutor schedule = new ScheduledThreadPoolExecutor(1, task -> {
                Thread thread = new Thread(task, "fencing-shedlock-deferred-release");
                thread.setDaemon(true);
                return thread;
            });
            schedule.setRemoveOnCancelPolicy(true);
            return schedule;
        }
    }

    private final FencedLocks locks;
    private final ScheduledExecutorService deferredReleases;

    /** A provider whose locks are leases of {@code locks}, named as ShedLock names them. */
    public FencedLockProvider(FencedLocks locks) {
        this(locks, DeferredReleases.SCHEDULE);
    }

    /**
     * @param deferredReleases runs the releases that {@code lockAtLeastFor} defers (tests drive it
     *        by hand); it is not shut down by the provider
     */
    FencedLockProvider(FencedLocks locks, ScheduledExecutorService deferredReleases) {
        this.locks = Objects.requireNonNull(locks, "locks");
        this.deferredReleases = Objects.requireNonNull(deferredReleases, "deferredReleases");
    }

    /**
     * Takes the lease on {@code configuration.getName()} for {@code lockAtMostFor}, one attempt,
     * and makes its fence the calling thread's until {@code unlock}.
     *
     * @return empty when another holder has the lock, or when the lease ran out before the task
     *         could start (then it is not run)
     * @throws dev.fencing.lock.LockAcquisitionException when the store cannot be reached
     * @throws IllegalArgumentException when the store refuses the name or the TTL (ZooKeeper: a
     *         {@code lockAtMostFor} longer than its session timeout)
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration configuration) {
        Optional<Lease> acquired = locks.tryAcquire(configuration.getName(), configuration.getLockAtMostFor());
        if (acquired.isEmpty()) {
            return Optional.empty();
        }
        Lease lease = acquired.get();
        Fence.Scope fence;
        try {
            fence = lease.enterFence();
        } catch (IllegalStateException ranOut) {
            // The acquire itself outlasted lockAtMostFor (a pause right after it, a first
            // connection): a successor may already run; the task must not start.
            LOG.log(System.Logger.Level.WARNING, () -> "ShedLock task '" + configuration.getName() + "' not run: its "
                    + lease + " ran out (lockAtMostFor " + configuration.getLockAtMostFor() + ") before the task started");
            lease.close();
            return Optional.empty();
        }
        LockedTask task = new LockedTask(lease, fence, configuration.getLockAtLeastUntil(), deferredReleases);
        return Optional.of(new FencedSimpleLock(task, configuration));
    }

    @Override
    public String toString() {
        return "FencedLockProvider[" + locks + "]";
    }
}
