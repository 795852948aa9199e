package dev.fencing.testing.locks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.StaleFenceException;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.lock.FencedLocks;
import dev.fencing.lock.Lease;
import dev.fencing.lock.LockAcquisitionException;
import dev.fencing.testing.TestDatabase;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * What a fenced lock store on a consensus cluster must survive, run against three real server
 * processes by a subclass per store: the leader killed (SIGKILL) while leases are held and
 * acquired, a holder cut off with its killed member, a member paused (SIGSTOP) past the TTL with
 * its client's lease on it, and the pause torture with the leader killed mid-run. The database
 * (PostgreSQL, through {@link TestDatabase}) is the oracle.
 *
 * <pre>{@code
 * class EtcdClusterFailoverTest extends ClusterFailoverContractTest<EtcdCluster.Member> {
 *     private static EtcdCluster cluster;
 *
 *     @BeforeAll static void startCluster() { cluster = EtcdCluster.start(3); }
 *     @AfterAll static void stopCluster() { if (cluster != null) cluster.close(); }
 *
 *     protected EtcdCluster cluster() { return cluster; }
 *     protected FencedLocks newLocks(List<EtcdCluster.Member> members, boolean watchdog) { ... }
 *     protected String label() { return "etcd"; }
 * }
 * }</pre>
 *
 * <p>Every lease is taken with a TTL of 3 s: etcd's smallest with the election timeout of
 * {@link EtcdCluster}'s three-member clusters, and the ZooKeeper clients' session timeout. After
 * each test the cluster is healed: paused members resumed, killed ones restarted, and every one
 * serving again. The torture's unfenced control and five leader kills in a row run only with
 * the system property {@code fencing.long=true} (Maven profile {@code long}).
 *
 * @param <M> the cluster's member type
 */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
public abstract class ClusterFailoverContractTest<M extends ServerCluster.Member> {

    private static final Duration TTL = Duration.ofSeconds(3);
    private final List<FencedLocks> opened = new ArrayList<>();

    /** The running cluster of three members (the subclass starts it in {@code @BeforeAll} and closes it). */
    protected abstract ServerCluster<M> cluster();

    /**
     * A new client of the store that knows only {@code members}, with a 2 s operation timeout
     * where the store has one, whose leases renew themselves when {@code watchdog} is set and
     * work with a 3 s TTL; the test closes it.
     */
    protected abstract FencedLocks newLocks(List<M> members, boolean watchdog);

    /** The store's name in printed measurements and the torture's label: {@code etcd}, {@code zookeeper}. */
    protected abstract String label();

    /** {@code host:port,host:port,...} of {@code members}, for a store address. */
    protected static String endpoints(List<? extends ServerCluster.Member> members) {
        return members.stream().map(ServerCluster.Member::endpoint).collect(Collectors.joining(","));
    }

    @BeforeAll
    static void createOrders(DataSource db) throws SQLException {
        execute(db, "CREATE TABLE orders (id INT PRIMARY KEY, status TEXT NOT NULL, last_fence BIGINT NOT NULL DEFAULT 0)");
    }

    @AfterEach
    void healCluster() {
        opened.forEach(FencedLocks::close);
        opened.clear();
        ServerCluster<M> cluster = cluster();
        for (M member : cluster.members()) {
            if (member.process().isPaused()) {
                member.process().resume();
            }
            if (!member.process().isRunning()) {
                cluster.restart(member);
            }
        }
        cluster.awaitEveryRunningMemberServes(cluster.startupTimeout());
    }

    private FencedLocks locks(List<M> members, boolean watchdog) {
        FencedLocks locks = newLocks(members, watchdog);
        opened.add(locks);
        return locks;
    }

    private List<M> others(M member) {
        return cluster().members().stream().filter(m -> m != member).toList();
    }

    private String tortureLabel() {
        return label() + "-" + cluster().members().size() + "-members";
    }

    @Test
    void killingTheLeaderWhileLeasesAreHeldAndAcquiredNeverHandsAFenceOutTwice() throws Exception {
        ServerCluster<M> cluster = cluster();
        FencedLocks first = locks(cluster.members(), false);
        FencedLocks second = locks(cluster.members(), false);
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
                FencedLocks locks = t % 2 == 0 ? first : second;
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
            M leader = cluster.awaitLeader(Duration.ofSeconds(10));
            leader.process().kill();
            killed[0] = true;
            M next = cluster.awaitLeader(Duration.ofSeconds(20));
            System.out.println(label() + " failover: killed leader " + leader + ", new leader " + next);
            for (Future<?> future : done) {
                future.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        System.out.printf("%s failover: %d leases, %d after the kill, %d attempts failed during the election%n",
                label(), allFences.size(), afterKill.get(), failedAttempts.get());
        assertEquals(0, overlaps.get(), "holders that overlapped");
        assertEquals(allFences.size(), new HashSet<>(allFences).size(), "fences handed out twice");
        for (List<Long> fences : fencesByResource.values()) {
            assertEquals(fences.stream().sorted().toList(), List.copyOf(fences), "fences of one resource in acquisition order");
        }
        assertTrue(afterKill.get() > 0, "leases acquired after the leader was killed: " + afterKill.get());
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
        M leader = cluster().awaitLeader(Duration.ofSeconds(10));
        FencedLocks cutOff = locks(List.of(leader), true);
        // Renewed, so that the successor keeps its lock while the test asks the cut-off holder to close.
        FencedLocks survivors = locks(others(leader), true);
        String resource = "order:" + UUID.randomUUID();
        Lease stale = cutOff.acquire(resource, TTL, Duration.ofSeconds(10));
        Thread.sleep(TTL.toMillis() + 500);
        assertTrue(stale.isHeld(), "kept alive past its TTL");

        leader.process().kill();
        // Until the survivors elect a leader, acquires fail closed (no quorum): wait for it.
        cluster().awaitLeader(Duration.ofSeconds(20));
        try (Lease successor = survivors.acquire(resource, TTL, Duration.ofSeconds(30))) {
            assertFalse(stale.isHeld(), "the cut-off holder knows its lease ended before the successor got in");
            assertTrue(successor.fence() > stale.fence(),
                    "the successor's fence " + successor.fence() + " is above the cut-off holder's " + stale.fence());
            stale.close(); // cannot reach its server, and would not delete the successor's lock if it could
            assertTrue(survivors.tryAcquire(resource, TTL).isEmpty(), "the successor still holds it");
        }
    }

    @Test
    void aMemberPausedPastTheTtlLosesItsClientsLeaseAndTheDatabaseRejectsTheOldHolder(DataSource db) throws Exception {
        DataSource fenced = new FencingDataSource(db, FencingConfig.builder().tables("orders").build());
        execute(db, "INSERT INTO orders (id, status) VALUES (1, 'new'), (2, 'new')");
        M leader = cluster().awaitLeader(Duration.ofSeconds(10));
        FencedLocks paused = locks(List.of(leader), true);
        FencedLocks survivors = locks(others(leader), false);
        String resource = "order:1";
        Lease old = paused.acquire(resource, TTL, Duration.ofSeconds(10));
        old.runFenced(() -> update(fenced, 1, "packed-by-old"));

        leader.process().pause();
        ServerProcess.awaitUntil("the paused member's client reads its lease lost", TTL.plusSeconds(2), () -> !old.isHeld());
        cluster().awaitLeader(Duration.ofSeconds(20));
        try (Lease next = survivors.acquire(resource, TTL, Duration.ofSeconds(30))) {
            assertTrue(next.fence() > old.fence(), "the next holder's fence " + next.fence() + " is above the old one's " + old.fence());
            next.runFenced(() -> {
                update(fenced, 1, "shipped-by-next");
                update(fenced, 2, "shipped-by-next");
            });
            // The old holder wakes up and writes with the fence it had: rejected by the database.
            try (Fence.Scope stale = Fence.enter(resource, old.fence())) {
                assertThrows(StaleFenceException.class, () -> updateChecked(fenced, 1, "overwritten-by-old"));
            }
            // Without the driver the same write goes through and lowers the row's fence: the
            // failure this test exists to catch.
            assertEquals(1, rawUpdate(db, 2, "overwritten-by-old", old.fence()));
            assertEquals("shipped-by-next@" + next.fence(), row(db, 1));
            assertEquals("overwritten-by-old@" + old.fence(), row(db, 2));
        } finally {
            leader.process().resume();
        }
    }

    @Test
    void thePauseTortureHoldsWithTheLeaderKilledMidRun(DataSource db) throws Exception {
        FencedLocks locks = locks(cluster().members(), false);
        PauseTorture.Result result = new PauseTorture(db, tortureLabel()).run(locks, TTL, PauseTorture.Writer.FENCED,
                Duration.ofSeconds(10), () -> cluster().awaitLeader(Duration.ofSeconds(10)).process().kill());
        result.assertHeld();
    }

    /** The control, run once per change of the torture (it proves the workload can fail): {@code -Plong}. */
    @Test
    @EnabledIfSystemProperty(named = "fencing.long", matches = "true")
    void theSameTortureWithoutTheDriverLowersFences(DataSource db) throws Exception {
        FencedLocks locks = locks(cluster().members(), false);
        PauseTorture.Result result = new PauseTorture(db, tortureLabel()).run(locks, TTL, PauseTorture.Writer.RAW,
                Duration.ofSeconds(8), null);
        assertTrue(result.violations() > 0,
                "the unfenced control must break the invariant, else the torture proves nothing: " + result.violations());
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
            assertEquals(1, update.executeUpdate());
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
