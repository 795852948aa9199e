package dev.fencing.examples.consensus;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.StaleFenceException;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.lock.FencedLocks;
import dev.fencing.lock.Lease;
import dev.fencing.lock.etcd.EtcdFencedLocks;
import dev.fencing.lock.zookeeper.ZooKeeperFencedLocks;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/**
 * The primer's timeline with a consensus lock store: worker A takes the lock on order 42 and
 * reads it, then pauses past its TTL; worker B takes the lock (a larger fence) and pays; A
 * wakes and pays too. Through {@link FencingDataSource} A's payment is rejected; through the
 * plain data source the order is paid twice.
 *
 * <pre>
 * java -cp ... dev.fencing.examples.consensus.ConsensusDemo etcd://127.0.0.1:2379 [jdbc-url]
 * java -cp ... dev.fencing.examples.consensus.ConsensusDemo zookeeper://127.0.0.1:2181/demo [jdbc-url]
 * </pre>
 * The database defaults to an in-memory H2 database.
 */
public final class ConsensusDemo {

    private static final String ORDERS = "consensus_demo_orders";
    private static final String RESOURCE = "order:42";
    /** etcd rounds TTLs up to its minimum (1-3 s), ZooKeeper needs TTL <= session timeout: 2 s suits both. */
    private static final Duration TTL = Duration.ofSeconds(2);

    /** What one timeline ended with. */
    public record Outcome(boolean staleWriteRejected, int charges, String paidBy) {
    }

    private final String lockUri;
    private final DataSource raw;
    private final PrintStream out;
    private long started;

    public ConsensusDemo(String lockUri, DataSource raw, PrintStream out) {
        this.lockUri = lockUri;
        this.raw = raw;
        this.out = out;
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: ConsensusDemo etcd://host:port[,..] | zookeeper://host:port[,..][/chroot] [jdbc-url]");
            System.exit(2);
        }
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL(args.length > 1 ? args[1] : "jdbc:h2:mem:consensus-demo;DB_CLOSE_DELAY=-1");
        ConsensusDemo demo = new ConsensusDemo(args[0], h2, System.out);
        Outcome fenced = demo.run(true);
        Outcome unfenced = demo.run(false);
        boolean expected = fenced.staleWriteRejected() && fenced.charges() == 1 && unfenced.charges() == 2;
        System.out.println(expected
                ? "Result: with fencing A's stale payment was rejected and B's survived; without it the order was paid twice."
                : "Result: UNEXPECTED " + fenced + " / " + unfenced);
        System.exit(expected ? 0 : 1);
    }

    /**
     * Opens the store named by the address's scheme. A first gRPC or ZooKeeper connection on a
     * loaded laptop can take seconds: the demo allows 30 s per call.
     */
    static FencedLocks open(String uri) {
        if (uri.startsWith("etcd://") || uri.startsWith("etcds://")) {
            return EtcdFencedLocks.builder(uri).operationTimeout(Duration.ofSeconds(30)).build();
        }
        if (uri.startsWith("zookeeper://") || uri.startsWith("zookeepers://")) {
            return ZooKeeperFencedLocks.builder(uri).operationTimeout(Duration.ofSeconds(30)).build();
        }
        throw new IllegalArgumentException("a lock address starts with etcd:// or zookeeper://, got " + uri);
    }

    /** One timeline, through the fencing driver or the plain data source. */
    public Outcome run(boolean fencing) throws Exception {
        out.println(fencing ? "== through FencingDataSource (fencing.tables=" + ORDERS + ")" : "== through the plain DataSource");
        try (Connection connection = raw.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + ORDERS);
            statement.execute("CREATE TABLE " + ORDERS + " (id BIGINT PRIMARY KEY, status VARCHAR(20) NOT NULL, "
                    + "paid_by VARCHAR(10), charges INT NOT NULL DEFAULT 0, last_fence BIGINT NOT NULL DEFAULT 0)");
            statement.execute("INSERT INTO " + ORDERS + " (id, status) VALUES (42, 'new')");
        }
        DataSource orders = fencing ? new FencingDataSource(raw, FencingConfig.builder().tables(ORDERS).build()) : raw;
        CountDownLatch aRead = new CountDownLatch(1);
        CountDownLatch bPaid = new CountDownLatch(1);
        AtomicBoolean rejected = new AtomicBoolean();
        AtomicReference<Exception> failure = new AtomicReference<>();
        try (FencedLocks locks = open(lockUri)) {
            locks.tryAcquire(RESOURCE + ":warm-up", TTL).ifPresent(Lease::close);
            started = System.nanoTime();
            Thread workerA = new Thread(() -> {
                try (Lease lease = locks.acquire(RESOURCE, TTL, Duration.ofSeconds(10))) {
                    log("A", lease.fence(), "acquired the lock (ttl " + TTL.toMillis() + " ms); read order 42, about to charge");
                    try (Fence.Scope scope = lease.enterFence()) {
                        log("A", lease.fence(), "PAUSED ...");
                        aRead.countDown();
                        bPaid.await(30, TimeUnit.SECONDS);
                        log("A", lease.fence(), "resumed; lease held: " + lease.isHeld() + " (A does not look); charging");
                        try {
                            pay(orders, "A");
                            log("A", lease.fence(), "payment APPLIED");
                        } catch (StaleFenceException e) {
                            rejected.set(true);
                            log("A", lease.fence(), "payment REJECTED: StaleFenceException");
                        }
                    }
                } catch (Exception e) {
                    failure.set(e);
                }
            }, "worker-A");
            workerA.start();
            aRead.await(15, TimeUnit.SECONDS);
            try (Lease lease = locks.acquire(RESOURCE, TTL, Duration.ofSeconds(30))) {
                log("B", lease.fence(), "acquired the lock (A's lease expired); charging");
                lease.callFenced(() -> {
                    pay(orders, "B");
                    return null;
                });
                log("B", lease.fence(), "payment applied");
            } finally {
                bPaid.countDown();
            }
            workerA.join(TimeUnit.SECONDS.toMillis(30));
        }
        if (failure.get() != null) {
            throw failure.get();
        }
        try (Connection connection = raw.getConnection(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT charges, paid_by, last_fence FROM " + ORDERS + " WHERE id = 42")) {
            row.next();
            Outcome outcome = new Outcome(rejected.get(), row.getInt(1), row.getString(2));
            out.printf(Locale.ROOT, "final row: paid_by=%s charges=%d last_fence=%d%s%n", outcome.paidBy(), outcome.charges(),
                    row.getLong(3), outcome.charges() > 1 ? "   <-- DOUBLE PAYMENT" : "");
            return outcome;
        }
    }

    private static void pay(DataSource orders, String worker) throws SQLException {
        try (Connection connection = orders.getConnection();
             PreparedStatement update = connection.prepareStatement(
                     "UPDATE " + ORDERS + " SET status = 'paid', paid_by = ?, charges = charges + 1 WHERE id = 42")) {
            update.setString(1, worker);
            update.executeUpdate();
        }
    }

    private void log(String worker, long fence, String what) {
        out.printf(Locale.ROOT, "%+6d ms  worker %s  fence %-12d %s%n",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), worker, fence, what);
    }
}
