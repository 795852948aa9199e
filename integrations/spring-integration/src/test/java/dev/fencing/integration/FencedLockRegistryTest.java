package dev.fencing.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.StaleFenceException;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.lock.FencedLocks;
import dev.fencing.lock.JdbcFencedLocks;
import dev.fencing.lock.RedisFencedLocks;
import dev.fencing.testing.TestDatabase;
import dev.fencing.testing.TestDatabase.Kind;
import dev.fencing.testing.TestRedis;
import dev.fencing.testing.locks.ServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import javax.sql.DataSource;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The behaviours Spring Integration's own registry tests check (JdbcLockRegistryTests,
 * RedisLockRegistryTests: one lock per key, re-entrancy, two threads, two registries, the wrong
 * thread unlocking, renewals, custom TTLs, expiry of unused locks), plus the fence: held on the
 * locking thread until the last unlock, and a stale holder's JdbcTemplate write refused.
 */
@TestRedis
@TestDatabase(Kind.POSTGRESQL)
class FencedLockRegistryTest {

    private static final Duration TTL = Duration.ofMinutes(1);
    private static final AtomicInteger TABLES = new AtomicInteger();

    static String redis;
    static RedisClient client;
    static StatefulRedisConnection<String, String> connection;
    FencedLocks locks;
    FencedLocks otherProcess;
    FencedLockRegistry registry;
    ExecutorService threads;
    String key;

    @BeforeAll
    static void connect(@TestRedis String uri) {
        redis = uri;
        client = RedisClient.create(uri);
        connection = client.connect();
    }

    @AfterAll
    static void disconnect() {
        connection.close();
        client.shutdown();
    }

    @BeforeEach
    void newRegistry() {
        locks = RedisFencedLocks.create(redis);
        otherProcess = RedisFencedLocks.create(redis);
        registry = new FencedLockRegistry(locks, TTL);
        threads = Executors.newCachedThreadPool();
        key = "foo-" + UUID.randomUUID();
    }

    @AfterEach
    void close() {
        threads.shutdownNow();
        locks.close();
        otherProcess.close();
    }

    private long redisTtlMillis(String key) {
        return connection.sync().pttl(connection.sync().keys("*{" + key + "}:lock").get(0));
    }

    @Test
    void oneLockPerKeyAndOnlyStringKeys() {
        assertThat(registry.obtain(key)).isSameAs(registry.obtain(key)).isNotSameAs(registry.obtain(key + "-bar"));
        assertThatThrownBy(() -> registry.obtain(42)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("String");
        assertThatThrownBy(() -> registry.obtain(" ")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theLockingThreadHoldsTheFenceUntilItsLastUnlockAndReentryKeepsIt() {
        Lock lock = registry.obtain(key);
        for (int i = 0; i < 3; i++) {
            lock.lock();
            OptionalLong fence = Fence.current();
            assertThat(fence).isPresent();
            assertThat(Fence.currentLock()).hasValue(key);
            Lock again = registry.obtain(key);
            assertThat(again).isSameAs(lock);
            again.lock();
            assertThat(Fence.current()).isEqualTo(fence);
            again.unlock();
            assertThat(Fence.current()).as("still held once").isEqualTo(fence);
            lock.unlock();
            assertThat(Fence.current()).isEmpty();
        }
        assertThat(otherProcess.tryAcquire(key, TTL)).as("released by the last unlock").isPresent();
    }

    @Test
    void lockInterruptiblyIsReentrantToo() throws Exception {
        Lock lock = registry.obtain(key);
        lock.lockInterruptibly();
        lock.lockInterruptibly();
        lock.unlock();
        assertThat(Fence.current()).isPresent();
        lock.unlock();
        assertThat(Fence.current()).isEmpty();
    }

    @Test
    void twoKeysNestTheirFences() throws Exception {
        Lock foo = registry.obtain(key);
        Lock bar = registry.obtain(key + "-bar");
        foo.lockInterruptibly();
        long fooFence = Fence.current().getAsLong();
        bar.lockInterruptibly();
        assertThat(Fence.currentLock()).hasValue(key + "-bar");
        bar.unlock();
        assertThat(Fence.current()).hasValue(fooFence);
        foo.unlock();
    }

    @Test
    void aSecondThreadCannotTakeAHeldLockNorUnlockIt() throws Exception {
        Lock lock = registry.obtain(key);
        lock.lockInterruptibly();
        Future<Boolean> tried = threads.submit(() -> registry.obtain(key).tryLock(100, TimeUnit.MILLISECONDS));
        assertThat(tried.get()).isFalse();
        Future<Throwable> wrongUnlock = threads.submit(() -> {
            try {
                lock.unlock();
                return null;
            } catch (RuntimeException e) {
                return e;
            }
        });
        assertThat(wrongUnlock.get()).isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining("own");
        lock.unlock();
    }

    @Test
    void aWaitingThreadGetsTheLockWhenTheHolderUnlocks() throws Exception {
        assertWaiterGetsTheLockAfterUnlock(registry, registry);
    }

    @Test
    void twoRegistriesOnTwoClientsExcludeEachOther() throws Exception {
        assertWaiterGetsTheLockAfterUnlock(registry, new FencedLockRegistry(otherProcess, TTL));
    }

    private void assertWaiterGetsTheLockAfterUnlock(FencedLockRegistry first, FencedLockRegistry second) throws Exception {
        Lock lock1 = first.obtain(key);
        lock1.lockInterruptibly();
        long fence1 = Fence.current().getAsLong();
        CountDownLatch waiting = new CountDownLatch(1);
        Future<Long> waiter = threads.submit(() -> {
            Lock lock2 = second.obtain(key);
            waiting.countDown();
            lock2.lockInterruptibly();
            try {
                return Fence.current().getAsLong();
            } finally {
                lock2.unlock();
            }
        });
        assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(waiter.isDone()).isFalse();
        lock1.unlock();
        assertThat(waiter.get(30, TimeUnit.SECONDS)).isGreaterThan(fence1);
    }

    @Test
    void renewLockExtendsTheLeaseOfTheHolderOnly() throws Exception {
        DistributedLock lock = registry.obtain(key);
        assertThatThrownBy(() -> registry.renewLock(key)).isInstanceOf(IllegalMonitorStateException.class);
        lock.lock(Duration.ofSeconds(5));
        try {
            assertThat(redisTtlMillis(key)).as("a custom TTL").isLessThanOrEqualTo(5_000);
            registry.renewLock(key, Duration.ofMinutes(10));
            assertThat(redisTtlMillis(key)).isGreaterThan(TTL.toMillis());
            registry.renewLock(key);
            assertThat(redisTtlMillis(key)).isLessThanOrEqualTo(TTL.toMillis());
            assertThat(threads.submit(() -> {
                try {
                    registry.renewLock(key);
                    return null;
                } catch (IllegalMonitorStateException e) {
                    return e;
                }
            }).get()).as("another thread renewing").isNotNull();
        } finally {
            lock.unlock();
        }
    }

    @Test
    void tryLockWithACustomTtl() throws Exception {
        DistributedLock lock = registry.obtain(key);
        assertThat(lock.tryLock(Duration.ofMillis(100), Duration.ofSeconds(7))).isTrue();
        assertThat(redisTtlMillis(key)).isLessThanOrEqualTo(7_000).isPositive();
        lock.unlock();
    }

    @Test
    void unusedLocksExpireAndHeldOnesStay() {
        Lock held = registry.obtain(key);
        registry.obtain(key + "-unused");
        held.lock();
        registry.expireUnusedOlderThan(-10_000);
        assertThat(registry.obtain(key)).isSameAs(held);
        held.unlock();
        registry.expireUnusedOlderThan(-10_000);
        assertThat(registry.obtain(key)).isNotSameAs(held);
    }

    @Test
    void newConditionIsRefusedWithAReason() {
        assertThatThrownBy(() -> registry.obtain(key).newCondition()).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("another process");
    }

    @Test
    void anInterruptedWaiterGivesUpAndLeavesItsLocalLockFree() throws Exception {
        Lock lock = registry.obtain(key);
        // Short: an interrupt during an acquire the store may have completed leaves that lock to its TTL.
        FencedLockRegistry otherRegistry = new FencedLockRegistry(otherProcess, Duration.ofSeconds(2));
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            try {
                otherRegistry.obtain(key).lockInterruptibly();
            } catch (InterruptedException | RuntimeException e) {
                outcome.set(e);
            }
            done.countDown();
        });
        lock.lock();
        try {
            waiter.start();
            ServerProcess.awaitUntil("the waiter waits for the lock", Duration.ofSeconds(10),
                    () -> waiter.getState() == Thread.State.WAITING || waiter.getState() == Thread.State.TIMED_WAITING);
            waiter.interrupt();
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        } finally {
            lock.unlock();
        }
        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
        Lock next = otherRegistry.obtain(key);
        assertThat(next.tryLock(30, TimeUnit.SECONDS)).as("the interrupted waiter kept no local lock").isTrue();
        next.unlock();
    }

    @Test
    void aStaleHoldersJdbcTemplateWriteIsRefusedOnPostgres(DataSource db) throws Exception {
        assertStaleHolderRefused(db, locks, otherProcess);
    }

    @Test
    void aStaleHoldersJdbcTemplateWriteIsRefusedOnMariaDbWithJdbcLocks(@TestDatabase(Kind.MARIADB) DataSource db)
            throws Exception {
        try (JdbcFencedLocks first = JdbcFencedLocks.create(db); JdbcFencedLocks second = JdbcFencedLocks.create(db)) {
            first.createTable();
            assertStaleHolderRefused(db, first, second);
        }
    }

    /** A holds the key past its TTL; B takes it and writes; A's write through JdbcTemplate is refused. */
    private void assertStaleHolderRefused(DataSource db, FencedLocks nodeA, FencedLocks nodeB) throws Exception {
        String table = "si_rows_" + TABLES.incrementAndGet();
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, holder VARCHAR(10), last_fence BIGINT NOT NULL DEFAULT 0)");
            s.execute("INSERT INTO " + table + " (id, holder) VALUES (1, 'nobody')");
        }
        JdbcTemplate fenced = new JdbcTemplate(new FencingDataSource(db, FencingConfig.builder().tables(table).build()));
        String update = "UPDATE " + table + " SET holder = ? WHERE id = 1";
        DistributedLock a = new FencedLockRegistry(nodeA, TTL).obtain(key);
        FencedLockRegistry registryB = new FencedLockRegistry(nodeB, TTL);

        a.lock(Duration.ofMillis(300));
        long fenceA = Fence.current().getAsLong();
        // A stops here (as if paused) while its TTL runs out; B takes the key and writes.
        long fenceB = threads.submit(() -> {
            DistributedLock b = registryB.obtain(key);
            ServerProcess.awaitUntil("B takes the expired lock", Duration.ofSeconds(30), b::tryLock);
            try {
                fenced.update(update, "B");
                return Fence.current().getAsLong();
            } finally {
                b.unlock();
            }
        }).get();
        assertThat(fenceB).isGreaterThan(fenceA);

        assertThatThrownBy(() -> fenced.update(update, "A")).satisfies(e -> assertThat(causes(e)).anyMatch(
                cause -> cause instanceof StaleFenceException));
        assertThatThrownBy(a::unlock).isInstanceOf(ConcurrentModificationException.class).hasMessageContaining("lost");
        assertThat(Fence.current()).isEmpty();
        assertThat(new JdbcTemplate(db).queryForMap("SELECT holder, last_fence FROM " + table + " WHERE id = 1"))
                .containsEntry("holder", "B").containsEntry("last_fence", fenceB);
    }

    private static java.util.List<Throwable> causes(Throwable e) {
        java.util.List<Throwable> chain = new java.util.ArrayList<>();
        for (Throwable t = e; t != null && !chain.contains(t); t = t.getCause()) {
            chain.add(t);
        }
        return chain;
    }

}
