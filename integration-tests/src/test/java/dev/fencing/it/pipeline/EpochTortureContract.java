package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.jdbc.EpochTable;
import dev.fencing.jdbc.FencingDataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.StaleFenceException;
import dev.fencing.lock.JdbcFencedLocks;
import dev.fencing.lock.Lease;
import dev.fencing.lock.LockAcquisitionException;
import dev.fencing.it.UniqueNames;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The read-modify-write pause torture of issue 7: eight workers increment one balance under a
 * short-TTL lock (read, add one, write), each in a "process" of its own (its own
 * {@link FencingDataSource} over a shared pool). Every {@value #STALL_EVERY}th turn the holder
 * stalls between its read and its write until its lease has expired and a successor has read the
 * same balance; the successor then waits until the stalled write was tried, and writes its own.
 * That is the interleaving that loses an increment under row fencing (the stale write passes,
 * since the successor has not written the row yet); under epoch fencing the successor's read
 * claimed the epoch row, so the stale write is rejected.
 */
abstract class EpochTortureContract {

    static final int WORKERS = 8;
    static final int STALL_EVERY = 25;
    static final Duration TTL = Duration.ofMillis(150);
    /** At least this long, and until {@value #MIN_HANDSHAKES} stalls met a successor, but never longer than {@link #CAP}. */
    static final Duration RUN = Duration.ofSeconds(3);
    static final int MIN_HANDSHAKES = 3;
    static final Duration CAP = Duration.ofSeconds(20);

    /** The database, unfenced. */
    abstract DataSource raw();

    abstract String label();

    /** What one run counted. */
    record Outcome(long applied, long balance, long rejected, long stalls, long handshakes, long staleApplied) {
        long lost() {
            return applied - balance;
        }

        @Override
        public String toString() {
            return "applied=" + applied + " final=" + balance + " lost=" + lost() + " rejected(stale)=" + rejected
                    + " stalls=" + stalls + " (met by a successor: " + handshakes + ")"
                    + " stale writes applied after a successor's read=" + staleApplied;
        }
    }

    /** A holder stalled between its read and its write. */
    private static final class Stall {
        final long fence;
        final CountDownLatch successorRead = new CountDownLatch(1);
        final CountDownLatch attempted = new CountDownLatch(1);

        Stall(long fence) {
            this.fence = fence;
        }
    }

    @Test
    void epochModeLosesNoIncrementWhereRowModeDoes() throws Exception {
        Outcome epoch = run(FencingConfig.Mode.EPOCH, null);
        Outcome row = run(FencingConfig.Mode.ROW, null);
        System.out.printf("[epoch torture %s] epoch mode: %s%n[epoch torture %s] row mode:   %s%n",
                label(), epoch, label(), row);

        assertThat(epoch.handshakes()).as("stalls met by a successor in epoch mode").isGreaterThanOrEqualTo(MIN_HANDSHAKES);
        assertThat(row.handshakes()).as("stalls met by a successor in row mode").isGreaterThanOrEqualTo(MIN_HANDSHAKES);
        assertThat(epoch.lost()).as("increments lost in epoch mode").isZero();
        assertThat(epoch.staleApplied()).as("stale writes applied in epoch mode").isZero();
        assertThat(epoch.rejected()).as("stale writes rejected in epoch mode").isGreaterThan(0);

        assertThat(row.lost()).as("increments lost in row mode (the hole epoch mode closes)").isGreaterThan(0);
    }

    /**
     * How the holders of the transaction variant read and write, one chosen at random per turn;
     * the read's undo happens before the successor signals the stalled predecessor, so a claim
     * undone with it would let the stale write in.
     */
    enum Style {
        /** Auto-commit read and write. */
        AUTO_COMMIT,
        /** One transaction (setAutoCommit(false)) from the read to the write's commit. */
        TRANSACTION,
        /** The read's transaction rolls back; the write commits in a new one. */
        READ_ROLLED_BACK,
        /** A savepoint before the read, rolled back to after it; the write commits in the same transaction. */
        SAVEPOINT_ROLLED_BACK,
        /** {@code BEGIN} text before the read, {@code ROLLBACK} text after it; the write between BEGIN and COMMIT texts. */
        TEXT_CONTROL,
        /**
         * REPEATABLE READ: the transaction first reads under a second lock (the worker's own), which
         * fixes its snapshot on MariaDB, then reads and writes under the balance's lock.
         */
        TWO_LOCKS_REPEATABLE_READ
    }

    /** What the transaction variant counted besides the outcome. */
    static final class Chaos {
        final AtomicLong refusedLateClaims = new AtomicLong();
        final AtomicLong eagerClaims = new AtomicLong();
        final AtomicLong serializationFailures = new AtomicLong();
        final java.util.concurrent.ConcurrentHashMap<Style, AtomicLong> turns = new java.util.concurrent.ConcurrentHashMap<>();

        @Override
        public String toString() {
            return "late claims refused then claimed eagerly=" + refusedLateClaims + " eager claims at acquire="
                    + eagerClaims + " serialization failures=" + serializationFailures + " turns by style=" + turns;
        }
    }

    @Test
    void epochModeLosesNoIncrementWhateverTheHoldersTransactionsDo() throws Exception {
        Chaos chaos = new Chaos();
        Outcome epoch = run(FencingConfig.Mode.EPOCH, chaos);
        System.out.printf("[epoch torture %s] epoch mode, transactions rolled back, savepoints, text control, two"
                + " locks: %s; %s%n", label(), epoch, chaos);
        assertThat(epoch.handshakes()).as("stalls met by a successor").isGreaterThanOrEqualTo(MIN_HANDSHAKES);
        assertThat(epoch.lost()).as("increments lost").isZero();
        assertThat(epoch.staleApplied()).as("stale writes applied").isZero();
        assertThat(epoch.rejected()).as("stale writes rejected").isGreaterThan(0);
        for (Style style : Style.values()) {
            assertThat(chaos.turns.get(style)).as("turns of " + style).isNotNull();
        }
    }

    private Outcome run(FencingConfig.Mode mode, Chaos chaos) throws Exception {
        String table = "balances_" + UniqueNames.next("t_");
        String lockTable = "locks_" + UniqueNames.next("t_");
        String resource = "balance:" + UniqueNames.next("t_");
        execute("CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL,"
                + " last_fence BIGINT NOT NULL DEFAULT 0)",
                "INSERT INTO " + table + " (id, balance) VALUES (1, 0)");
        FencingConfig config = FencingConfig.builder().tableMode(table, mode).build();
        EpochTable.createTable(raw(), config);

        AtomicLong applied = new AtomicLong();
        AtomicLong rejected = new AtomicLong();
        AtomicLong stalls = new AtomicLong();
        AtomicLong staleApplied = new AtomicLong();
        AtomicLong handshakes = new AtomicLong();
        AtomicInteger turns = new AtomicInteger();
        AtomicReference<Stall> stalled = new AtomicReference<>();

        try (HikariDataSource pool = pool(WORKERS + 2, "torture");
             HikariDataSource lockPool = pool(WORKERS, "torture-locks");
             JdbcFencedLocks locks = JdbcFencedLocks.builder(lockPool).tableName(lockTable)
                     .pollInterval(Duration.ofMillis(5)).build()) {
            locks.createTable();
            long start = System.nanoTime();
            ExecutorService workers = Executors.newFixedThreadPool(WORKERS);
            List<Future<?>> running = new ArrayList<>();
            for (int w = 0; w < WORKERS; w++) {
                // each worker is a process of its own: what it knows reaches the others only through the database
                FencingDataSource process = new FencingDataSource(pool, config);
                Holder holder = new Holder(resource + ":side:" + w, chaos, new java.util.Random(w * 7919L + mode.ordinal()));
                running.add(workers.submit(() -> {
                    while (running(start, handshakes)) {
                        turn(locks, resource, process, table, turns, stalled, applied, rejected, stalls, handshakes,
                                staleApplied, holder);
                    }
                    return null;
                }));
            }
            workers.shutdown();
            for (Future<?> worker : running) {
                worker.get(60, TimeUnit.SECONDS);
            }
        }
        long balance = query("SELECT balance FROM " + table + " WHERE id = 1");
        execute("DROP TABLE " + table, "DROP TABLE " + lockTable);
        return new Outcome(applied.get(), balance, rejected.get(), stalls.get(), handshakes.get(), staleApplied.get());
    }

    private static boolean running(long start, AtomicLong handshakes) {
        long elapsed = System.nanoTime() - start;
        return elapsed < CAP.toNanos() && (elapsed < RUN.toNanos() || handshakes.get() < MIN_HANDSHAKES);
    }

    private static void turn(JdbcFencedLocks locks, String resource, FencingDataSource process, String table,
                             AtomicInteger turns, AtomicReference<Stall> stalled, AtomicLong applied,
                             AtomicLong rejected, AtomicLong stalls, AtomicLong handshakes, AtomicLong staleApplied,
                             Holder holder)
            throws Exception {
        Lease lease;
        try {
            lease = locks.acquire(resource, TTL, Duration.ofSeconds(1));
        } catch (LockAcquisitionException busy) {
            return;
        }
        try (lease) {
            Fence.Scope scope;
            try {
                scope = lease.enterFence();
            } catch (IllegalStateException expired) {
                return;
            }
            try (scope; Connection connection = process.getConnection()) {
                Style style = holder.nextStyle();
                long balance;
                try {
                    balance = holder.chaos == null ? read(connection, table)
                            : holder.read(style, lease, process, connection, table);
                } catch (StaleFenceException stale) {
                    rejected.incrementAndGet();   // the tenure ended before its first read: nothing to lose
                    Holder.cleanUp(connection);
                    return;
                } catch (SQLException failure) {
                    if (!holder.serializationFailure(failure)) {
                        throw failure;
                    }
                    Holder.cleanUp(connection);
                    return;
                }
                Stall mine = null;
                if (turns.incrementAndGet() % STALL_EVERY == 0) {
                    Stall candidate = new Stall(lease.fence());
                    if (stalled.compareAndSet(null, candidate)) {
                        mine = candidate;
                    }
                }
                if (mine != null) {
                    stalls.incrementAndGet();
                    // the pause: past the TTL, until the lock has passed on and the successor has read
                    while (lease.isHeld()) {
                        Thread.sleep(2);
                    }
                    boolean successorRead = mine.successorRead.await(2, TimeUnit.SECONDS);
                    if (successorRead) {
                        handshakes.incrementAndGet();
                    }
                    try {
                        if (holder.write(style, connection, table, balance + 1)) {
                            applied.incrementAndGet();
                            if (successorRead) {
                                staleApplied.incrementAndGet();
                            }
                        }
                    } catch (StaleFenceException stale) {
                        rejected.incrementAndGet();
                    } finally {
                        Holder.cleanUp(connection);
                        stalled.set(null);
                        mine.attempted.countDown();
                    }
                } else {
                    Stall before = stalled.get();
                    if (before != null && before.fence < lease.fence()) {
                        // a stalled predecessor read the same balance: it writes first
                        before.successorRead.countDown();
                        before.attempted.await(5, TimeUnit.SECONDS);
                    }
                    try {
                        if (holder.write(style, connection, table, balance + 1)) {
                            applied.incrementAndGet();
                        }
                    } catch (StaleFenceException stale) {
                        rejected.incrementAndGet();
                    } finally {
                        Holder.cleanUp(connection);
                    }
                }
            }
        }
    }

    /** One worker's way of reading and writing: plain (auto-commit) or a random {@link Style} per turn. */
    static final class Holder {
        final String sideLock;
        final Chaos chaos;
        final java.util.Random random;
        long sideFence;

        Holder(String sideLock, Chaos chaos, java.util.Random random) {
            this.sideLock = sideLock;
            this.chaos = chaos;
            this.random = random;
        }

        Style nextStyle() {
            if (chaos == null) {
                return Style.AUTO_COMMIT;
            }
            Style style = Style.values()[random.nextInt(Style.values().length)];
            chaos.turns.computeIfAbsent(style, s -> new AtomicLong()).incrementAndGet();
            return style;
        }

        /**
         * The read of {@code style}, undone as the style says. Sometimes the tenure is claimed eagerly
         * first; a late claim the driver refuses is made eagerly and the read begun again.
         */
        long read(Style style, Lease lease, FencingDataSource process, Connection connection, String table)
                throws Exception {
            if (random.nextInt(4) == 0) {
                lease.claimEpoch(process);
                chaos.eagerClaims.incrementAndGet();
            }
            try {
                return readOnce(style, connection, table);
            } catch (StaleFenceException stale) {
                throw stale;
            } catch (dev.fencing.FencingException late) {
                if (!late.getMessage().contains("claimEpoch")) {
                    throw late;
                }
                chaos.refusedLateClaims.incrementAndGet();
                cleanUp(connection);
                lease.claimEpoch(process);
                return readOnce(style, connection, table);
            }
        }

        private long readOnce(Style style, Connection connection, String table) throws Exception {
            switch (style) {
                case AUTO_COMMIT -> {
                    return EpochTortureContract.read(connection, table);
                }
                case TRANSACTION -> {
                    connection.setAutoCommit(false);
                    return EpochTortureContract.read(connection, table);
                }
                case READ_ROLLED_BACK -> {
                    connection.setAutoCommit(false);
                    long balance = EpochTortureContract.read(connection, table);
                    connection.rollback();
                    return balance;
                }
                case SAVEPOINT_ROLLED_BACK -> {
                    connection.setAutoCommit(false);
                    java.sql.Savepoint savepoint = connection.setSavepoint();
                    long balance = EpochTortureContract.read(connection, table);
                    connection.rollback(savepoint);
                    return balance;
                }
                case TEXT_CONTROL -> {
                    text(connection, "BEGIN");
                    long balance = EpochTortureContract.read(connection, table);
                    text(connection, "ROLLBACK");
                    return balance;
                }
                case TWO_LOCKS_REPEATABLE_READ -> {
                    connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                    connection.setAutoCommit(false);
                    try (Fence.Scope side = Fence.enter(sideLock, ++sideFence)) {
                        EpochTortureContract.read(connection, table);   // fixes the snapshot (MariaDB)
                    }
                    return EpochTortureContract.read(connection, table);
                }
                default -> throw new IllegalStateException(style.name());
            }
        }

        /** The write of {@code style}; true when it was committed. */
        boolean write(Style style, Connection connection, String table, long balance) throws SQLException {
            try {
                if (style == Style.TEXT_CONTROL) {
                    text(connection, "BEGIN");
                    EpochTortureContract.write(connection, table, balance);
                    text(connection, "COMMIT");
                } else {
                    EpochTortureContract.write(connection, table, balance);
                    if (!connection.getAutoCommit()) {
                        connection.commit();
                    }
                }
                return true;
            } catch (StaleFenceException stale) {
                throw stale;
            } catch (SQLException failure) {
                if (serializationFailure(failure)) {
                    return false;
                }
                throw failure;
            }
        }

        /** A deadlock or serialization failure (class 40): the transaction was rolled back, nothing applied. */
        boolean serializationFailure(SQLException failure) {
            if (chaos != null && failure.getSQLState() != null && failure.getSQLState().startsWith("40")) {
                chaos.serializationFailures.incrementAndGet();
                return true;
            }
            return false;
        }

        /** Ends whatever transaction the turn left open, auto-commit back on (the pool resets the isolation level). */
        static void cleanUp(Connection connection) throws SQLException {
            if (!connection.getAutoCommit()) {
                connection.rollback();
                connection.setAutoCommit(true);
            } else {
                text(connection, "ROLLBACK");   // a transaction begun by text, if any
            }
        }

        private static void text(Connection connection, String sql) throws SQLException {
            try (Statement statement = connection.createStatement()) {
                statement.execute(sql);
            }
        }
    }

    private static long read(Connection connection, String table) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT balance FROM " + table + " WHERE id = 1");
             ResultSet rows = select.executeQuery()) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private static void write(Connection connection, String table, long balance) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("UPDATE " + table + " SET balance = ? WHERE id = 1")) {
            update.setLong(1, balance);
            update.executeUpdate();
        }
    }

    private HikariDataSource pool(int size, String name) {
        HikariConfig config = new HikariConfig();
        config.setDataSource(raw());
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(1);
        config.setPoolName(name);
        return new HikariDataSource(config);
    }

    private void execute(String... statements) throws SQLException {
        try (Connection connection = raw().getConnection(); Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }

    private long query(String sql) throws SQLException {
        try (Connection connection = raw().getConnection(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }
}
