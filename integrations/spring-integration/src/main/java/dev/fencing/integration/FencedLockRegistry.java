package dev.fencing.integration;

import dev.fencing.lock.FencedLocks;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * Spring Integration's {@code LockRegistry} on fenced locks: {@link #obtain} hands out one
 * {@link DistributedLock} per key, and a thread that locks it holds a lease of {@link FencedLocks}
 * on the key and has the lease's fence (under the key's name) current until its last
 * {@code unlock}. Its writes to fenced tables carry that fence, so a holder whose lease ran out
 * while a successor took the key has its writes refused ({@link dev.fencing.StaleFenceException}).
 *
 * <pre>{@code
 * @Bean
 * FencedLockRegistry lockRegistry(FencedLocks locks) {
 *     return new FencedLockRegistry(locks, Duration.ofSeconds(30));
 * }
 * }</pre>
 *
 * <p>As Spring Integration's JDBC and Redis registries: keys are {@code String}s; a lock is
 * re-entrant on its thread (the fence stays the first acquire's); threads of one registry queue
 * on a local lock before they ask the store; unlocking a lock the thread does not hold throws
 * {@link IllegalMonitorStateException}; unlocking after the lease was lost frees the lock and
 * throws {@link java.util.ConcurrentModificationException}; {@link #renewLock} extends the lease
 * of a lock the calling thread holds. {@code newCondition()} is refused: a condition cannot be
 * signalled across processes.
 *
 * <p>Thread-safe. The registry owns no connection: closing the {@link FencedLocks} is the
 * application's.
 */
public final class FencedLockRegistry implements ExpirableLockRegistry<DistributedLock>,
        RenewableLockRegistry<DistributedLock> {

    private final FencedLocks locks;
    private final Duration ttl;
    private final Map<String, FencedRegistryLock> byKey = new ConcurrentHashMap<>();

    /**
     * @param ttl how long a lease lasts unless the lock is taken with another
     *        ({@link DistributedLock#lock(Duration)}) or renewed; with a watchdog on the locks, the
     *        lease is renewed while held
     * @throws IllegalArgumentException if {@code ttl} is not positive
     */
    public FencedLockRegistry(FencedLocks locks, Duration ttl) {
        this.locks = Objects.requireNonNull(locks, "locks");
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("ttl must be positive, got " + ttl);
        }
        this.ttl = ttl;
    }

    /**
     * The lock on {@code lockKey}: the same object for the same key until it is expired unused.
     *
     * @throws IllegalArgumentException if the key is not a non-blank {@code String}
     */
    @Override
    public DistributedLock obtain(Object lockKey) {
        if (!(lockKey instanceof String key) || key.isBlank()) {
            throw new IllegalArgumentException("a FencedLockRegistry key is a non-blank String (the lock's name and "
                    + "the fence's lock name), got " + lockKey);
        }
        return byKey.compute(key, (name, existing) -> {
            FencedRegistryLock lock = existing != null ? existing : new FencedRegistryLock(locks, name, ttl);
            lock.touch();
            return lock;
        });
    }

    /** Forgets the locks that no thread holds and that were last obtained or unlocked more than {@code age} ms ago. */
    @Override
    public void expireUnusedOlderThan(long age) {
        long now = System.currentTimeMillis();
        byKey.entrySet().removeIf(entry -> entry.getValue().unusedSince(now - age));
    }

    /**
     * Extends the lease of the lock on {@code lockKey} by the registry's TTL from now.
     *
     * @throws IllegalMonitorStateException if the calling thread does not hold that lock
     * @throws IllegalStateException if the lease is lost (the lock is no longer this holder's)
     */
    @Override
    public void renewLock(Object lockKey) {
        renewLock(lockKey, ttl);
    }

    /** As {@link #renewLock(Object)}, to {@code ttl} from now. */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        FencedRegistryLock lock = lockKey instanceof String key ? byKey.get(key) : null;
        if (lock == null) {
            throw new IllegalMonitorStateException("the current thread does not own the lock on '" + lockKey
                    + "': it was never obtained from this registry");
        }
        lock.renew(ttl);
    }

    @Override
    public String toString() {
        return "FencedLockRegistry[" + locks + ", ttl " + ttl + "]";
    }
}
