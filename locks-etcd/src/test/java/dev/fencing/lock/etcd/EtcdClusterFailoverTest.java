package dev.fencing.lock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.StaleFenceException;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.lock.Lease;
import dev.fencing.lock.LockAcquisitionException;
import dev.fencing.testing.TestDatabase;
import dev.fencing.testing.locks.EtcdCluster;
import dev.fencing.testing.locks.PauseTorture;
import dev.fencing.testing.locks.ServerProcess;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A three-member etcd cluster of real processes: the leader killed (SIGKILL) while leases are
 * held and acquired, a member paused (SIGSTOP) past the TTL with its client's lease on it, and
 * the pause torture with a leader killed mid-run. The database (PostgreSQL) is the oracle.
 *
 * <p>The cluster runs with heartbeat 150 ms and election timeout 1500 ms (see
 * {@link EtcdCluster}), so etcd's smallest lease TTL is 3 s: the tests use it.
 */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
class EtcdClusterFailoverTest {

    private static final Duration TTL = Duration.ofSeconds(3);
    private static EtcdCluster cluster;
    private final List<EtcdFencedLocks> opened = new ArrayList<>();
    private final String prefix = "fencing-failover/" + UUID.randomUUID() + "/";

    @BeforeAll
    static void startCluster(DataSource db) throws SQLException {
        cluster = EtcdCluster.start(3);
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE orders (id INT PRIMARY KEY, status TEXT NOT NULL, last_fence BIGINT NOT NULL DEFAULT 0)");
        }
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @AfterEach
    void healCluster() {
        opened.forEach(EtcdFencedLocks::close);
        opened.clear();
        for (EtcdCluster.Member member : cluster.members()) {
            if (member.process().isPaused()) {
                member.process().resume();
            }
            if (!member.process().isRunning()) {
                cluster.restart(member);
            }
        }
        cluster.awaitHealthy(Duration.ofSeconds(30));
    }

    private EtcdFencedLocks locks(List<EtcdCluster.Member> members, boolean watchdog) {
        String uri = "etcd://" + members.stream().map(EtcdCluster.Member::endpoint).collect(Collectors.joining(","));
        EtcdFencedLocks locks = EtcdFencedLocks.builder(uri).keyPrefix(prefix).watchdog(watchdog)
                .operationTimeout(Duration.ofSeconds(2)).build();
        opened.add(locks);
        return locks;
    }

    private List<EtcdCluster.Member> others(EtcdCluster.Member member) {
        return cluster.members().stream().filter(m -> m != member).toList();
    }

    @Test
    void killingTheLeaderWhileLeasesAreHeldAndAcquiredNeverHandsAFenceOutTwice() throws Exception {
        EtcdFencedLocks first = locks(cluster.members(), false);
        EtcdFencedLocks second = locks(cluster.members(), false);
        String[] resources = {"order:1", "order:2"};
        Map<String, AtomicInteger> holders = new ConcurrentHashMap<>();
        Map<String, List<Long>> fencesByResource = new ConcurrentHashMap<>();
        List<Long> allFences = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger failedAttempts = new AtomicInteger();
        AtomicInteger afterKill = new AtomicInteger();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
        boolean[] killed = new boolean[1];
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                EtcdFencedLocks locks = t % 2 == 0 ? first : second;
                String resource = resources[t % 2 == 0 ? t / 2 : (t - 1) / 2];
                done.add(threads.submit(() -> {
                    while (System.nanoTime() < end) {
                        try (Lease lease = locks.acquire(resource, TTL, Duration.ofSeconds(20))) {
                            if (holders.computeIfAbsent(resource, r -> new AtomicInteger()).incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            allFences.add(lease.fence());
                            fencesByResource.computeIfAbsent(resource, r -> Collections.synchronizedList(new ArrayList<>()))
                                    .add(lease.fence());
                            if (killed[0]) {
                                afterKill.incrementAndGet();
                            }
                            Thread.sleep(5);
                            holders.get(resource).decrementAndGet();
                        } catch (LockAcquisitionException e) {
                            // No quorum for a moment: the attempt fails closed, nobody holds a lock for it.
                            failedAttempts.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            Thread.sleep(2500);
            EtcdCluster.Member leader = cluster.awaitLeader(Duration.ofSeconds(10));
            leader.process().kill();
            killed[0] = true;
            EtcdCluster.Member next = cluster.awaitLeader(Duration.ofSeconds(20));
            System.out.println("etcd failover: killed leader " + leader + ", new leader " + next);
            for (Future<?> future : done) {
                future.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        System.out.printf("etcd failover: %d leases, %d after the kill, %d attempts failed during the election%n",
                allFences.size(), afterKill.get(), failedAttempts.get());
        assertThat(overlaps).as("holders that overlapped").hasValue(0);
        assertThat(new HashSet<>(allFences)).as("fences handed out twice").hasSize(allFences.size());
        for (List<Long> fences : fencesByResource.values()) {
            assertThat(fences).as("fences of one resource in acquisition order").isSorted();
        }
        assertThat(afterKill.get()).as("leases acquired after the leader was killed").isPositive();
    }

    /** The leader-kill run five times over, each with the killed member back before the next: {@code -Plong}. */
    @Test
    @EnabledIfSystemProperty(named = "fencing.long", matches = "true")
    void repeatedLeaderKillsNeverHandAFenceOutTwice() throws Exception {
        for (int round = 0; round < 5; round++) {
            killingTheLeaderWhileLeasesAreHeldAndAcquiredNeverHandsAFenceOutTwice();
            healCluster();
        }
    }

    @Test
    void aHolderCutOffWithItsKilledMemberLearnsItsLeaseEndedBeforeTheSuccessorGetsIn() throws Exception {
        EtcdCluster.Member leader = cluster.awaitLeader(Duration.ofSeconds(10));
        EtcdFencedLocks cutOff = locks(List.of(leader), true);
        // Renewed, so that the successor keeps its lock while the test asks the cut-off holder to close.
        EtcdFencedLocks survivors = locks(others(leader), true);
        String resource = "order:" + UUID.randomUUID();
        Lease stale = cutOff.acquire(resource, TTL, Duration.ofSeconds(10));
        Thread.sleep(TTL.toMillis() + 500);
        assertThat(stale.isHeld()).as("kept alive past its TTL").isTrue();

        leader.process().kill();
        // Until the survivors elect a leader, acquires fail closed (no quorum): wait for it.
        cluster.awaitLeader(Duration.ofSeconds(20));
        try (Lease successor = survivors.acquire(resource, TTL, Duration.ofSeconds(30))) {
            assertThat(stale.isHeld()).as("the cut-off holder knows its lease ended before the successor got in").isFalse();
            assertThat(successor.fence()).isGreaterThan(stale.fence());
            stale.close(); // cannot reach its server, and would not delete the successor's lock if it could
            assertThat(survivors.tryAcquire(resource, TTL)).as("the successor still holds it").isEmpty();
        }
    }

    @Test
    void aMemberPausedPastTheTtlLosesItsClientsLeaseAndTheDatabaseRejectsTheOldHolder(DataSource db) throws Exception {
        DataSource fenced = new FencingDataSource(db, FencingConfig.builder().tables("orders").build());
        execute(db, "INSERT INTO orders (id, status) VALUES (1, 'new'), (2, 'new')");
        EtcdCluster.Member leader = cluster.awaitLeader(Duration.ofSeconds(10));
        EtcdFencedLocks paused = locks(List.of(leader), true);
        EtcdFencedLocks survivors = locks(others(leader), false);
        String resource = "order:1";
        Lease old = paused.acquire(resource, TTL, Duration.ofSeconds(10));
        old.runFenced(() -> update(fenced, 1, "packed-by-old"));

        leader.process().pause();
        ServerProcess.awaitUntil("the paused member's client reads its lease lost", TTL.plusSeconds(2), () -> !old.isHeld());
        cluster.awaitLeader(Duration.ofSeconds(20));
        try (Lease next = survivors.acquire(resource, TTL, Duration.ofSeconds(30))) {
            assertThat(next.fence()).isGreaterThan(old.fence());
            next.runFenced(() -> {
                update(fenced, 1, "shipped-by-next");
                update(fenced, 2, "shipped-by-next");
            });
            // The old holder wakes up and writes with the fence it had: rejected by the database.
            try (Fence.Scope stale = Fence.enter(resource, old.fence())) {
                assertThatThrownBy(() -> updateChecked(fenced, 1, "overwritten-by-old"))
                        .isInstanceOf(StaleFenceException.class);
            }
            // Without the driver the same write goes through and lowers the row's fence: the
            // failure this test exists to catch.
            assertThat(rawUpdate(db, 2, "overwritten-by-old", old.fence())).isEqualTo(1);
            assertThat(row(db, 1)).isEqualTo("shipped-by-next@" + next.fence());
            assertThat(row(db, 2)).isEqualTo("overwritten-by-old@" + old.fence());
        } finally {
            leader.process().resume();
        }
    }

    @Test
    void thePauseTortureHoldsWithTheLeaderKilledMidRun(DataSource db) throws Exception {
        EtcdFencedLocks locks = locks(cluster.members(), false);
        PauseTorture.Result result = new PauseTorture(db, "etcd-3-members").run(locks, TTL, PauseTorture.Writer.FENCED,
                Duration.ofSeconds(10), () -> cluster.awaitLeader(Duration.ofSeconds(10)).process().kill());
        result.assertHeld();
    }

    /** The control, run once per change of the torture (it proves the workload can fail): {@code -Plong}. */
    @Test
    @EnabledIfSystemProperty(named = "fencing.long", matches = "true")
    void theSameTortureWithoutTheDriverLowersFences(DataSource db) throws Exception {
        EtcdFencedLocks locks = locks(cluster.members(), false);
        PauseTorture.Result result = new PauseTorture(db, "etcd-3-members").run(locks, TTL, PauseTorture.Writer.RAW,
                Duration.ofSeconds(8), null);
        assertThat(result.violations()).as("the unfenced control must break the invariant, else the torture proves nothing")
                .isPositive();
    }

    private static void execute(DataSource db, String sql) throws SQLException {
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private static void update(DataSource fenced, int id, String status) {
        try {
            updateChecked(fenced, id, status);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void updateChecked(DataSource fenced, int id, String status) throws SQLException {
        try (Connection connection = fenced.getConnection();
             PreparedStatement update = connection.prepareStatement("UPDATE orders SET status = ? WHERE id = ?")) {
            update.setString(1, status);
            update.setInt(2, id);
            assertThat(update.executeUpdate()).isEqualTo(1);
        }
    }

    private static int rawUpdate(DataSource db, int id, String status, long fence) throws SQLException {
        try (Connection connection = db.getConnection();
             PreparedStatement update = connection.prepareStatement("UPDATE orders SET status = ?, last_fence = ? WHERE id = ?")) {
            update.setString(1, status);
            update.setLong(2, fence);
            update.setInt(3, id);
            return update.executeUpdate();
        }
    }

    private static String row(DataSource db, int id) throws SQLException {
        try (Connection connection = db.getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT status, last_fence FROM orders WHERE id = ?")) {
            select.setInt(1, id);
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                return rows.getString(1) + "@" + rows.getLong(2);
            }
        }
    }
}
