package dev.fencing.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.MissingFenceException;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.lock.FencedLocks;
import dev.fencing.lock.Lease;
import dev.fencing.lock.RedisFencedLocks;
import dev.fencing.testing.PauseInjector;
import dev.fencing.testing.TestDatabase;
import dev.fencing.testing.TestDatabase.Kind;
import dev.fencing.testing.TestRedis;
import dev.fencing.testing.locks.ServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockExtender;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.KeepAliveLockProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a ShedLock task sees with {@link FencedLockProvider} (Redis locks, PostgreSQL tables; the
 * JDBC store is the tracker test's and the JDBC extension's below): its fence, lockAtLeastFor,
 * extend and KeepAlive, a task that throws, nesting, threads of its own, virtual threads.
 */
@TestRedis
@TestDatabase(Kind.POSTGRESQL)
class FencedLockProviderTest {

    private static final Duration MINUTE = Duration.ofMinutes(1);
    private static final String TABLE = "job_runs";

    static DataSource raw;
    static DataSource fenced;
    static String redis;
    static RedisClient client;
    static StatefulRedisConnection<String, String> connection;

    @BeforeAll
    static void setUp(DataSource db, @TestRedis String uri) throws SQLException {
        raw = db;
        fenced = new FencingDataSource(db, FencingConfig.builder().tables(TABLE).build());
        Nodes.createJobTable(db, TABLE);
        redis = uri;
        client = RedisClient.create(uri);
        connection = client.connect();
    }

    @AfterAll
    static void tearDown() {
        connection.close();
        client.shutdown();
    }

    private static String newJob() {
        return "job-" + UUID.randomUUID();
    }

    /** The remaining TTL of the job's lock key in Redis, read raw. */
    private static long redisTtlMillis(String job) {
        RedisCommands<String, String> redisCommands = connection.sync();
        List<String> keys = redisCommands.keys("*{" + job + "}:lock");
        assertThat(keys).hasSize(1);
        return redisCommands.pttl(keys.get(0));
    }

    @Test
    void theTaskRunsWithTheLeasesFenceUnderTheJobsNameAndOnlyWhileItRuns() throws Exception {
        String job = newJob();
        try (FencedLocks locks = RedisFencedLocks.create(redis); Nodes.Node node = new Nodes.Node(new FencedLockProvider(locks))) {
            AtomicReference<OptionalLong> fence = new AtomicReference<>();
            AtomicReference<String> lock = new AtomicReference<>();
            assertThat(node.fire(Nodes.job(job, MINUTE, Duration.ZERO), () -> {
                fence.set(Fence.current());
                lock.set(Fence.currentLock().orElseThrow());
                Nodes.write(fenced, TABLE, "task");
            }).get()).isTrue();
            assertThat(fence.get()).isPresent();
            assertThat(lock.get()).isEqualTo(job);
            assertThat(Nodes.row(raw, TABLE)).containsEntry("writer", "task").containsEntry("last_fence", fence.get().getAsLong());
            assertThat(node.thread.submit(Fence::current).get()).as("the scheduler thread after the task").isEmpty();
            try (FencedLocks other = RedisFencedLocks.create(redis)) {
                assertThat(other.tryAcquire(job, MINUTE)).as("released at unlock").isPresent();
            }
        }
    }

    @Test
    void aJobLockedElsewhereDoesNotRun() throws Exception {
        String job = newJob();
        try (FencedLocks locks = RedisFencedLocks.create(redis); FencedLocks other = RedisFencedLocks.create(redis);
             Nodes.Node node = new Nodes.Node(new FencedLockProvider(locks))) {
            Lease held = other.tryAcquire(job, MINUTE).orElseThrow();
            assertThat(node.fire(Nodes.job(job, MINUTE, Duration.ZERO), () -> {
                throw new AssertionError("ran while locked elsewhere");
            }).get()).isFalse();
            held.close();
        }
    }

    @Test
    void lockAtLeastForKeepsTheLockAfterTheTaskButNotTheFence() throws Exception {
        String job = newJob();
        ManualSchedule releases = new ManualSchedule();
        try (FencedLocks locks = RedisFencedLocks.create(redis); FencedLocks other = RedisFencedLocks.create(redis);
             Nodes.Node node = new Nodes.Node(new FencedLockProvider(locks, releases))) {
            assertThat(node.fire(Nodes.job(job, Duration.ofMinutes(10), MINUTE), () -> { }).get()).isTrue();

            assertThat(node.thread.submit(Fence::current).get()).as("the fence ends at unlock").isEmpty();
            assertThat(other.tryAcquire(job, MINUTE)).as("held until lockAtLeastUntil").isEmpty();
            assertThat(releases.delays).singleElement().satisfies(delay -> assertThat(delay).isPositive()
                    .isLessThanOrEqualTo(MINUTE.toNanos()));

            releases.runAll();
            assertThat(other.tryAcquire(job, MINUTE)).as("released at lockAtLeastUntil").isPresent();
        } finally {
            releases.shutdownNow();
        }
    }

    @Test
    void extendFromTheTaskExtendsTheLeaseAndKeepsTheFence() throws Exception {
        String job = newJob();
        try (FencedLocks locks = RedisFencedLocks.create(redis); Nodes.Node node = new Nodes.Node(new FencedLockProvider(locks))) {
            AtomicReference<OptionalLong> before = new AtomicReference<>();
            AtomicReference<OptionalLong> after = new AtomicReference<>();
            AtomicReference<Long> ttlAfter = new AtomicReference<>();
            node.fire(Nodes.job(job, MINUTE, Duration.ZERO), () -> {
                before.set(Fence.current());
                LockExtender.extendActiveLock(Duration.ofMinutes(30), Duration.ZERO);
                ttlAfter.set(redisTtlMillis(job));
                after.set(Fence.current());
            }).get();
            assertThat(ttlAfter.get()).as("the lock's TTL in Redis").isGreaterThan(MINUTE.toMillis());
            assertThat(after.get()).isEqualTo(before.get()).isPresent();
        }
    }

    @Test
    void extendingAJdbcLeaseMovesItsExpiryAtTheDatabase() throws Exception {
        String job = newJob();
        try (FencedLocks locks = TrackerFailureTest.jdbcLocks(raw); Nodes.Node node = new Nodes.Node(new FencedLockProvider(locks))) {
            List<Long> expiries = new ArrayList<>();
            String expiry = "SELECT expires_at FROM fencing_locks WHERE lock_name = '" + job + "'";
            node.fire(Nodes.job(job, MINUTE, Duration.ZERO), () -> {
                expiries.add(new org.springframework.jdbc.core.JdbcTemplate(raw).queryForObject(expiry, Long.class));
                LockExtender.extendActiveLock(Duration.ofMinutes(30), Duration.ZERO);
                expiries.add(new org.springframework.jdbc.core.JdbcTemplate(raw).queryForObject(expiry, Long.class));
            }).get();
            assertThat(expiries.get(1) - expiries.get(0)).as("moved by about 29 minutes")
                    .isGreaterThan(Duration.ofMinutes(28).toMillis());
        }
    }

    @Test
    void keepAliveRenewsOnItsTimerThreadWithoutTouchingAnyFence() throws Exception {
        String job = newJob();
        ManualSchedule timer = new ManualSchedule();
        try (PauseInjector pauses = new PauseInjector(); FencedLocks locks = RedisFencedLocks.create(redis);
             Nodes.Node node = new Nodes.Node(new KeepAliveLockProvider(new FencedLockProvider(locks), timer))) {
            AtomicReference<OptionalLong> before = new AtomicReference<>();
            AtomicReference<OptionalLong> after = new AtomicReference<>();
            pauses.arm("task running");
            Future<Boolean> run = node.fire(Nodes.job(job, Duration.ofSeconds(30), Duration.ZERO), () -> {
                before.set(Fence.current());
                pauses.pauseAt("task running");
                after.set(Fence.current());
                Nodes.write(fenced, TABLE, "kept alive");
            });
            pauses.awaitPaused("task running", Duration.ofSeconds(10));
            // As if most of lockAtMostFor had passed: the keep-alive must bring it back.
            connection.sync().pexpire(connection.sync().keys("*{" + job + "}:lock").get(0), 2_000);

            ExecutorService timerThread = java.util.concurrent.Executors.newSingleThreadExecutor();
            try {
                OptionalLong timerFence = timerThread.submit(() -> {
                    timer.runAll();
                    return Fence.current();
                }).get();
                assertThat(timerFence).as("the timer thread's fence").isEmpty();
            } finally {
                timerThread.shutdownNow();
            }
            assertThat(redisTtlMillis(job)).as("renewed to lockAtMostFor").isGreaterThan(20_000);

            pauses.release("task running");
            assertThat(run.get()).isTrue();
            assertThat(after.get()).isEqualTo(before.get()).isPresent();
            assertThat(Nodes.row(raw, TABLE)).containsEntry("writer", "kept alive")
                    .containsEntry("last_fence", before.get().getAsLong());
        } finally {
            timer.shutdownNow();
        }
    }

    @Test
    void aTaskThatThrowsLeavesNoFenceAndReleasesTheLock() throws Exception {
        String job = newJob();
        try (FencedLocks locks = RedisFencedLocks.create(redis); FencedLocks other = RedisFencedLocks.create(redis);
             Nodes.Node node = new Nodes.Node(new FencedLockProvider(locks))) {
            ExecutionException failed = assertThrows(ExecutionException.class, () -> node.fire(Nodes.job(job, MINUTE,
                    Duration.ZERO), () -> {
                throw new IllegalStateException("the job failed");
            }).get());
            assertThat(failed.getCause()).hasMessage("the job failed");
            assertThat(node.thread.submit(Fence::current).get()).isEmpty();
            assertThat(other.tryAcquire(job, MINUTE)).isPresent();
        }
    }

    @Test
    void afterALostLeaseUnlockReleasesNothing() throws Exception {
        String job = newJob();
        try (PauseInjector pauses = new PauseInjector(); FencedLocks locks = RedisFencedLocks.create(redis);
             FencedLocks other = RedisFencedLocks.create(redis); Nodes.Node node = new Nodes.Node(new FencedLockProvider(locks))) {
            pauses.arm("past lockAtMostFor");
            Future<Boolean> run = node.fire(Nodes.job(job, Duration.ofMillis(300), Duration.ZERO),
                    () -> pauses.pauseAt("past lockAtMostFor"));
            pauses.awaitPaused("past lockAtMostFor", Duration.ofSeconds(10));
            AtomicReference<Lease> successor = new AtomicReference<>();
            ServerProcess.awaitUntil("the lock expires and passes on", Duration.ofSeconds(30),
                    () -> other.tryAcquire(job, MINUTE).map(lease -> { successor.set(lease); return true; }).orElse(false));

            List<String> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
            java.util.logging.Logger log = java.util.logging.Logger.getLogger(LockedTask.class.getName());
            java.util.logging.Handler capture = new java.util.logging.Handler() {
                @Override
                public void publish(java.util.logging.LogRecord record) {
                    warnings.add(record.getLevel() + " " + record.getMessage());
                }

                @Override
                public void flush() {
                }

                @Override
                public void close() {
                }
            };
            log.addHandler(capture);
            try {
                pauses.release("past lockAtMostFor");
                assertThat(run.get()).isTrue();
            } finally {
                log.removeHandler(capture);
            }
            assertThat(warnings).singleElement().asString().startsWith("WARNING").contains(job)
                    .contains("lease was lost").contains("nothing released");
            assertThat(successor.get().isHeld()).isTrue();
            assertThat(locks.tryAcquire(job, MINUTE)).as("the successor's lock is still there").isEmpty();
            successor.get().close();
        }
    }

    @Test
    void nestedJobsNestTheirFencesAndTheSameJobNestedRunsUnderTheOuterLock() throws Exception {
        String outer = newJob();
        String inner = newJob();
        try (FencedLocks locks = RedisFencedLocks.create(redis); Nodes.Node node = new Nodes.Node(new FencedLockProvider(locks))) {
            List<String> seen = new ArrayList<>();
            node.fire(Nodes.job(outer, MINUTE, Duration.ZERO), () -> {
                long outerFence = Fence.current().getAsLong();
                Nodes.Body innerBody = () -> seen.add(Fence.currentLock().orElseThrow() + ":" + (Fence.current().getAsLong()
                        == outerFence ? "outer" : "own"));
                node.call(Nodes.job(inner, MINUTE, Duration.ZERO), innerBody).call();
                node.call(Nodes.job(outer, MINUTE, Duration.ZERO), innerBody).call();
                seen.add(Fence.currentLock().orElseThrow() + ":" + (Fence.current().getAsLong() == outerFence ? "outer" : "own"));
            }).get();
            assertThat(seen).containsExactly(inner + ":own", outer + ":outer", outer + ":outer");
        }
    }

    @Test
    void threadsTheTaskStartsCarryNoFenceUnlessHandedIt() throws Exception {
        String job = newJob();
        try (FencedLocks locks = RedisFencedLocks.create(redis); Nodes.Node node = new Nodes.Node(new FencedLockProvider(locks))) {
            AtomicReference<Throwable> plain = new AtomicReference<>();
            AtomicReference<Long> taskFence = new AtomicReference<>();
            node.fire(Nodes.job(job, MINUTE, Duration.ZERO), () -> {
                taskFence.set(Fence.current().getAsLong());
                Thread own = new Thread(() -> {
                    try {
                        Nodes.write(fenced, TABLE, "own thread");
                    } catch (Throwable e) {
                        plain.set(e);
                    }
                });
                own.start();
                own.join();
                Thread handed = new Thread(Fence.wrap(() -> {
                    try {
                        Nodes.write(fenced, TABLE, "handed thread");
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                }));
                handed.start();
                handed.join();
            }).get();
            assertThat(plain.get()).isInstanceOf(MissingFenceException.class);
            assertThat(Nodes.row(raw, TABLE)).containsEntry("writer", "handed thread")
                    .containsEntry("last_fence", taskFence.get());
        }
    }

    @Test
    void aJobOnAVirtualThreadIsFencedLikeAnyOther() throws Exception {
        ExecutorService virtual;
        try {
            virtual = (ExecutorService) java.util.concurrent.Executors.class.getMethod("newVirtualThreadPerTaskExecutor")
                    .invoke(null);
        } catch (NoSuchMethodException e) {
            org.junit.jupiter.api.Assumptions.abort("virtual threads need Java 21 or later");
            return;
        }
        String job = newJob();
        try (FencedLocks locks = RedisFencedLocks.create(redis)) {
            Nodes.Node node = new Nodes.Node(new FencedLockProvider(locks));
            AtomicReference<Long> fence = new AtomicReference<>();
            assertThat(virtual.submit(node.call(Nodes.job(job, MINUTE, Duration.ZERO), () -> {
                fence.set(Fence.current().getAsLong());
                Nodes.write(fenced, TABLE, "virtual");
            })).get()).isTrue();
            assertThat(virtual.submit(Fence::current).get()).isEmpty();
            Map<String, Object> row = Nodes.row(raw, TABLE);
            assertThat(row).containsEntry("writer", "virtual").containsEntry("last_fence", fence.get());
            node.close();
        } finally {
            virtual.shutdownNow();
        }
    }

    @Test
    void anExtendedLockIsRetiredAndUnlockingAnyOfThemEndsTheRunOnce() throws Exception {
        String job = newJob();
        try (FencedLocks locks = RedisFencedLocks.create(redis); FencedLocks other = RedisFencedLocks.create(redis)) {
            FencedLockProvider provider = new FencedLockProvider(locks);
            SimpleLock first = provider.lock(new LockConfiguration(java.time.Instant.now(), job, MINUTE, Duration.ZERO))
                    .orElseThrow();
            SimpleLock second = first.extend(MINUTE, Duration.ZERO).orElseThrow();
            assertThrows(IllegalStateException.class, () -> first.extend(MINUTE, Duration.ZERO));
            first.unlock();
            assertThat(Fence.current()).isEmpty();
            second.unlock();
            assertThat(other.tryAcquire(job, MINUTE)).isPresent();
        }
    }

    /** A schedule whose tasks run only when the test says: KeepAlive's timer, deferred releases. */
    static final class ManualSchedule extends ScheduledThreadPoolExecutor {
        final List<Runnable> tasks = new ArrayList<>();
        final List<Long> delays = new ArrayList<>();

        ManualSchedule() {
            super(1);
        }

        @Override
        public synchronized ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
            tasks.add(command);
            delays.add(unit.toNanos(delay));
            return super.schedule(() -> { }, 1, TimeUnit.DAYS);
        }

        @Override
        public synchronized ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period,
                                                                   TimeUnit unit) {
            tasks.add(command);
            delays.add(unit.toNanos(initialDelay));
            return super.schedule(() -> { }, 1, TimeUnit.DAYS);
        }

        synchronized void runAll() {
            tasks.forEach(Runnable::run);
        }
    }
}
