package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.jdbc.EpochTable;
import dev.fencing.jdbc.FencingDataSource;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.MissingFenceException;
import dev.fencing.StaleFenceException;
import dev.fencing.UnfenceableStatementException;
import dev.fencing.it.UniqueNames;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Epoch fencing on one database: {@code orders} is a row-mode table (fence column), {@code accounts}
 * an epoch-mode table (no fence column), {@code fencing_epochs} the epoch table. Each test uses a lock
 * name of its own. Holders in different "processes" use different {@link FencingDataSource}s, so
 * that what one of them knows reaches the other only through the database.
 */
abstract class EpochModeContract extends OrdersFixture {

    /** Work run under a fence. */
    @FunctionalInterface
    interface Work<T> {
        T run() throws Exception;
    }

    final String lock = "acct:" + UniqueNames.next("t_");
    private final ExecutorService threads = Executors.newCachedThreadPool();

    /** The text that locks a epoch row without waiting, or fails at once when it is locked. */
    abstract String lockEpochRowNowait();

    /** An {@code INSERT .. RETURNING balance} of (id, balance) for executeQuery, or null when there is none. */
    abstract String returningInsert();

    /** True when the database's prepareCall accepts a plain DML text. */
    boolean callableDml() {
        return true;
    }

    @BeforeEach
    void createEpochTables() throws SQLException {
        sql("DROP TABLE IF EXISTS accounts", "DROP TABLE IF EXISTS fencing_epochs",
                "CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL)");
        EpochTable.createTable(raw(), config());
    }

    /** An unfenced connection that reads rows back, opened once per test. */
    private Connection inspector;

    @AfterEach
    void stopThreads() throws SQLException {
        threads.shutdownNow();
        if (inspector != null) {
            inspector.close();
            inspector = null;
        }
    }

    private Connection inspector() throws SQLException {
        if (inspector == null) {
            inspector = raw().getConnection();
        }
        return inspector;
    }

    long rows(String table) throws SQLException {
        return query(inspector(), "SELECT COUNT(*) FROM " + table);
    }

    /** True when the database has read-only transactions that refuse writes. */
    boolean readOnlyTransactions() {
        return true;
    }

    static FencingConfig config() {
        return FencingConfig.builder().tables("orders").tableMode("accounts", FencingConfig.Mode.EPOCH).build();
    }

    /** A data source of its own: one process's view. */
    FencingDataSource process() {
        return new FencingDataSource(raw(), config());
    }

    static <T> T as(String lockName, long fence, Work<T> work) throws Exception {
        try (Fence.Scope scope = Fence.enter(lockName, fence)) {
            return work.run();
        }
    }

    static void update(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.executeUpdate(sql);
        }
    }

    static long query(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
            assertThat(rows.next()).as("a row for " + sql).isTrue();
            return rows.getLong(1);
        }
    }

    void account(long id, long balance) throws SQLException {
        sql("INSERT INTO accounts (id, balance) VALUES (" + id + ", " + balance + ")");
    }

    /** The balance as the database holds it, or null when the row is absent. */
    Long balance(long id) throws SQLException {
        try (PreparedStatement select = inspector().prepareStatement("SELECT balance FROM accounts WHERE id = ?")) {
            select.setLong(1, id);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? rows.getLong(1) : null;
            }
        }
    }

    /** The epoch row's fence, or null when absent. */
    Long epochRow(String lockName) throws SQLException {
        try (PreparedStatement select = inspector().prepareStatement("SELECT fence FROM fencing_epochs WHERE lock_name = ?")) {
            select.setString(1, lockName);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? rows.getLong(1) : null;
            }
        }
    }

    /** Fails unless another connection can lock the epoch row of {@code lockName} at once. */
    void assertEpochRowNotLocked(String lockName) throws SQLException {
        Connection connection = inspector();
        connection.setAutoCommit(false);
        try (PreparedStatement select = connection.prepareStatement(lockEpochRowNowait())) {
            select.setString(1, lockName);
            select.executeQuery().close();
        } catch (SQLException e) {
            throw new AssertionError("the epoch row of " + lockName + " is still locked: " + e, e);
        } finally {
            connection.rollback();
            connection.setAutoCommit(true);
        }
    }

    /** Claims {@code lockName} at {@code fence} through another process, failing unless it is done within 5 s. */
    void claimElsewhereAtOnce(String lockName, long fence) throws Exception {
        Future<Long> claim = threads.submit(() -> {
            try (Connection other = process().getConnection()) {
                return as(lockName, fence, () -> query(other, "SELECT COUNT(*) FROM accounts"));
            }
        });
        claim.get(5, TimeUnit.SECONDS);
        assertThat(epochRow(lockName)).isEqualTo(fence);
    }

    /**
     * Statements this database runs that end the open transaction without the driver's
     * commit() (implicit commits, SET autocommit); none on PostgreSQL, whose DDL is transactional.
     */
    List<String> statementsThatEndTheTransaction() {
        return List.of();
    }

    /** The text that begins a transaction while JDBC auto-commit is on. */
    String beginText() {
        return "BEGIN";
    }

    @Test
    void aTransactionBegunAsTextUnderAutoCommitIsTheOneTheCheckRunsIn() throws Exception {
        account(1, 100);
        Connection connection = connection(process());
        assertThat(connection.getAutoCommit()).isTrue();
        // claimed in auto-commit: no claim can be made durable inside a transaction begun by text
        readBalance(connection, lock, 5);
        as(lock, 5, () -> {
            try (Statement statement = connection.createStatement()) {
                statement.execute(beginText());
                statement.executeUpdate("UPDATE accounts SET balance = 7 WHERE id = 1");
                // the check must not have committed the application's transaction with a short one of its own
                statement.execute("ROLLBACK");
            }
            return null;
        });
        assertThat(balance(1)).isEqualTo(100L);
        assertEpochRowNotLocked(lock);
    }

    @Test
    void aClaimInATransactionBegunAsTextIsRefusedAndNothingIsShared() throws Exception {
        FencingDataSource process = process();
        Connection first = connection(process);
        try (Statement statement = first.createStatement()) {
            // begun before the tenure's first statement: a claim inside it could be rolled back
            statement.execute(beginText());
            assertThatThrownBy(() -> as(lock, 9, () -> query(first, "SELECT COUNT(*) FROM accounts")))
                    .isInstanceOf(dev.fencing.FencingException.class)
                    .isNotInstanceOf(StaleFenceException.class)
                    .hasMessageContaining("lease.claimEpoch(dataSource)");
            statement.execute("ROLLBACK");
        }
        assertThat(epochRow(lock)).as("nothing claimed").isNull();
        Connection second = connection(process);
        as(lock, 9, () -> query(second, "SELECT COUNT(*) FROM accounts"));
        assertThat(epochRow(lock)).isEqualTo(9L);
        // claimed now: the first connection reads in a transaction begun by text
        try (Statement statement = first.createStatement()) {
            statement.execute(beginText());
            assertThat((Long) as(lock, 9, () -> query(first, "SELECT COUNT(*) FROM accounts"))).isZero();
            statement.execute("ROLLBACK");
        }
    }

    // ---- the stale holder ------------------------------------------------------------------

    @Test
    void aStaleHolderEndsItsTransactionByTextWithoutClaiming() throws Exception {
        account(1, 100);
        claimElsewhereAtOnce(lock, 34);
        Connection a = connection(process());
        try (Statement statement = a.createStatement()) {
            statement.execute(beginText());
            assertThatThrownBy(() -> as(lock, 33, () -> query(a, "SELECT balance FROM accounts WHERE id = 1")))
                    .isInstanceOf(dev.fencing.FencingException.class);
            // still in the stale scope: ending or undoing the transaction reads nothing and claims nothing
            as(lock, 33, () -> statement.execute("ROLLBACK"));
        }
        a.setAutoCommit(false);
        as(lock, 33, () -> { a.createStatement().execute("COMMIT"); return null; });
        a.setAutoCommit(true);
        assertThat(epochRow(lock)).isEqualTo(34);
        assertThat(balance(1)).isEqualTo(100);
        assertEpochRowNotLocked(lock);
    }

    @Test
    void aTransactionTheDatabaseEndedBehindTheDriversBackIsCheckedAgain() throws Exception {
        account(1, 100);
        long fence = 100;
        for (String ender : statementsThatEndTheTransaction()) {
            Connection a = connection(process());
            a.setAutoCommit(false);
            long stale = fence;
            as(lock, stale, () -> { update(a, "UPDATE accounts SET balance = 5 WHERE id = 1"); return null; });
            as(lock, stale, () -> {
                try (Statement statement = a.createStatement()) {
                    statement.execute(ender);
                }
                return null;
            });
            as(lock, stale + 1, () -> {
                try (Connection b = process().getConnection()) {
                    update(b, "UPDATE accounts SET balance = 6 WHERE id = 1");
                }
                return null;
            });

            assertThatThrownBy(() -> as(lock, stale, () -> { update(a, "UPDATE accounts SET balance = 555 WHERE id = 1"); return null; }))
                    .as(ender).isInstanceOf(StaleFenceException.class);
            if (!a.getAutoCommit()) {
                a.rollback();
            }
            assertThat(balance(1)).as(ender).isEqualTo(6);
            sql("DROP TABLE IF EXISTS epoch_ddl_probe");
            fence += 10;
        }
    }

    @Test
    void aStaleHoldersInsertAndItsUpdatesOfReadAndUntouchedRowsAreRejected() throws Exception {
        account(1, 100);
        account(2, 200);
        Connection a = connection(process());
        Connection b = connection(process());

        assertThat(as(lock, 33, () -> query(a, "SELECT balance FROM accounts WHERE id = 1"))).isEqualTo(100);
        assertThat(epochRow(lock)).isEqualTo(33);
        // the lock passes to B, who only reads account 1 and never touches account 2
        assertThat(as(lock, 34, () -> query(b, "SELECT balance FROM accounts WHERE id = 1"))).isEqualTo(100);
        assertThat(epochRow(lock)).isEqualTo(34);

        for (String write : List.of("INSERT INTO accounts (id, balance) VALUES (3, 300)",
                "UPDATE accounts SET balance = 101 WHERE id = 1",
                "UPDATE accounts SET balance = 201 WHERE id = 2",
                "DELETE FROM accounts WHERE id = 2")) {
            StaleFenceException stale = catchThrowableOfType(StaleFenceException.class,
                    () -> as(lock, 33, () -> { update(a, write); return null; }));
            assertThat((Throwable) stale).as(write).isNotNull();
            assertThat(stale.attemptedFence()).isEqualTo(33);
            assertThat(stale.currentFence()).hasValue(34);
            assertThat(stale.getMessage()).contains(lock);
            assertThat(a.getAutoCommit()).isTrue();
        }
        assertThat(balance(1)).isEqualTo(100);
        assertThat(balance(2)).isEqualTo(200);
        assertThat(balance(3)).isNull();
        assertThat(epochRow(lock)).isEqualTo(34);
        assertEpochRowNotLocked(lock);

        // the new holder writes as usual
        as(lock, 34, () -> { update(b, "UPDATE accounts SET balance = balance + 1 WHERE id = 1"); return null; });
        assertThat(balance(1)).isEqualTo(101);
    }

    @Test
    void aStaleHoldersFirstStatementThroughAConnectionIsNotSentEvenARead() throws Exception {
        account(1, 100);
        Connection b = connection(process());
        as(lock, 34, () -> query(b, "SELECT balance FROM accounts WHERE id = 1"));

        Connection a = connection(process());
        StaleFenceException stale = catchThrowableOfType(StaleFenceException.class,
                () -> as(lock, 33, () -> query(a, "SELECT balance FROM accounts WHERE id = 1")));
        assertThat((Throwable) stale).isNotNull();
        assertThat(stale.currentFence()).hasValue(34);
        assertThat(stale.getSQLState()).isEqualTo(StaleFenceException.SQL_STATE);
        assertThat(epochRow(lock)).isEqualTo(34);
    }

    @Test
    void withinOneDataSourceANewerClaimShutsTheOlderTenureOutWithoutAskingTheDatabase() throws Exception {
        account(1, 100);
        FencingDataSource shared = process();
        Connection b = connection(shared);
        as(lock, 34, () -> query(b, "SELECT balance FROM accounts WHERE id = 1"));
        sql("DELETE FROM fencing_epochs");   // the database forgets: only the data source can know

        Connection a = connection(shared);
        assertThatThrownBy(() -> as(lock, 33, () -> query(a, "SELECT balance FROM accounts WHERE id = 1")))
                .isInstanceOf(StaleFenceException.class);
        assertThat(epochRow(lock)).isNull();
    }

    // ---- claims ----------------------------------------------------------------------------------

    @Test
    void twoHoldersRacingAClaimEndWithTheNewerFenceAndTheOlderShutOut() throws Exception {
        for (int round = 0; round < 10; round++) {
            String name = lock + ":" + round;
            long older = 10L * round + 1;
            long newer = older + 1;
            CyclicBarrier start = new CyclicBarrier(2);
            Connection a = connection(process());
            Connection b = connection(process());
            Future<Throwable> first = threads.submit(() -> claimAfter(start, a, name, older));
            Future<Throwable> second = threads.submit(() -> claimAfter(start, b, name, newer));
            Throwable olderOutcome = first.get(10, TimeUnit.SECONDS);
            assertThat(second.get(10, TimeUnit.SECONDS)).as("the newer holder's claim").isNull();
            if (olderOutcome != null) {
                assertThat(olderOutcome).isInstanceOf(StaleFenceException.class);
            }
            assertThat(epochRow(name)).isEqualTo(newer);
            // whichever came first, the older tenure can write nothing now
            assertThatThrownBy(() -> as(name, older, () -> {
                update(a, "INSERT INTO accounts (id, balance) VALUES (1, 1)");
                return null;
            })).isInstanceOf(StaleFenceException.class);
            assertThat(balance(1)).isNull();
        }
    }

    private static Throwable claimAfter(CyclicBarrier start, Connection connection, String lockName, long fence)
            throws Exception {
        start.await(5, TimeUnit.SECONDS);
        try {
            as(lockName, fence, () -> query(connection, "SELECT COUNT(*) FROM accounts"));
            return null;
        } catch (StaleFenceException e) {
            return e;
        }
    }

    @Test
    void aWriteTransactionHoldsTheNextTenuresClaimBackUntilItEnds() throws Exception {
        account(1, 100);
        Connection a = connection(process());
        a.setAutoCommit(false);
        as(lock, 33, () -> query(a, "SELECT balance FROM accounts WHERE id = 1"));
        // the claim was committed before the read: nothing holds the epoch row yet
        assertEpochRowNotLocked(lock);
        as(lock, 33, () -> { update(a, "UPDATE accounts SET balance = 120 WHERE id = 1"); return null; });
        // the check belongs to A's write transaction: B's claim waits for it
        Future<Long> b = threads.submit(() -> {
            try (Connection connection = process().getConnection()) {
                return as(lock, 34, () -> query(connection, "SELECT balance FROM accounts WHERE id = 1"));
            }
        });
        assertThatThrownBy(() -> b.get(300, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
        as(lock, 33, () -> { update(a, "UPDATE accounts SET balance = 150 WHERE id = 1"); return null; });
        a.commit();
        // B's claim went through after A's commit, and B's read saw A's write
        assertThat(b.get(5, TimeUnit.SECONDS)).isEqualTo(150);
        assertThat(epochRow(lock)).isEqualTo(34);
        assertThatThrownBy(() -> as(lock, 33, () -> { update(a, "UPDATE accounts SET balance = 0 WHERE id = 1"); return null; }))
                .isInstanceOf(StaleFenceException.class);
        a.rollback();
        assertThat(balance(1)).isEqualTo(150);
    }

    @Test
    void aClaimAtTheStartOfATransactionIsCommittedBeforeTheStatementAndOutlivesARollback() throws Exception {
        Connection a = connection(process());
        a.setAutoCommit(false);
        as(lock, 33, () -> query(a, "SELECT COUNT(*) FROM accounts"));
        a.rollback();
        assertThat(epochRow(lock)).isEqualTo(33);
        // the same in a transaction whose first fenced statement is a write: claim committed, write rolled back
        String other = lock + ":write";
        as(other, 7, () -> { update(a, "INSERT INTO accounts (id, balance) VALUES (1, 1)"); return null; });
        a.rollback();
        assertThat(epochRow(other)).isEqualTo(7);
        assertThat(balance(1)).isNull();
        a.setAutoCommit(true);
    }

    // ---- a claim is durable before the statement it precedes is answered ----------------------------

    /** The balance of account 1, read under (lockName, fence). */
    static long readBalance(Connection connection, String lockName, long fence) throws Exception {
        return as(lockName, fence, () -> query(connection, "SELECT balance FROM accounts WHERE id = 1"));
    }

    /** Writes {@code balance} to account 1 under (lockName, fence); true when applied, false when refused as stale. */
    static boolean writeBalance(Connection connection, String lockName, long fence, long balance) throws Exception {
        try {
            as(lockName, fence, () -> { update(connection, "UPDATE accounts SET balance = " + balance + " WHERE id = 1"); return null; });
            return true;
        } catch (StaleFenceException stale) {
            return false;
        }
    }

    /**
     * A claim the driver cannot make durable is refused, not sent inside the application's
     * transaction; the refusal says how to claim in time, and the holder does so. Any other
     * outcome of the read is returned as it is.
     */
    long readOrClaimFirst(Connection connection, FencingDataSource process, String lockName, long fence,
                          Work<Void> restartTransaction, List<String> refusals) throws Exception {
        try {
            return readBalance(connection, lockName, fence);
        } catch (StaleFenceException stale) {
            throw stale;
        } catch (dev.fencing.FencingException refused) {
            assertThat(refused.getMessage()).contains("claimEpoch").contains(lockName).contains("Nothing was sent");
            refusals.add(refused.getMessage());
            restartTransaction.run();
            EpochTable.claim(process, lockName, fence);
            return readBalance(connection, lockName, fence);
        }
    }

    @Test
    void aClaimRolledBackWithTheNewHoldersTransactionStillShutsTheStaleHolderOut() throws Exception {
        for (String undo : List.of("rollback", "rollback to a savepoint taken first",
                "rollback to a savepoint taken after a read")) {
            String name = lock + ":" + undo.length();
            sql("DELETE FROM accounts");
            account(1, 100);
            long applied = 0;
            List<String> refusals = new ArrayList<>();
            // the stale holder (fence 33) reads in auto-commit, then stalls past its lease
            Connection a = connection(process());
            long aRead = readBalance(a, name, 33);
            // the new holder (fence 34) reads in a transaction, which then rolls back (or to a savepoint)
            FencingDataSource processB = process();
            Connection b = connection(processB);
            b.setAutoCommit(false);
            java.sql.Savepoint[] savepoint = {null};
            if (undo.endsWith("after a read")) {
                query(b, "SELECT COUNT(*) FROM orders");   // the transaction has begun: no claim can precede it
            }
            if (undo.contains("savepoint")) {
                savepoint[0] = b.setSavepoint();
            }
            long bRead = readOrClaimFirst(b, processB, name, 34, () -> { return null; }, refusals);
            if (savepoint[0] != null) {
                b.rollback(savepoint[0]);
            } else {
                b.rollback();
            }
            // the stale holder wakes and writes what it read plus one
            if (writeBalance(a, name, 33, aRead + 1)) {
                applied++;
            }
            // the new holder writes its own increment on the value it read
            assertThat(writeBalance(b, name, 34, bRead + 1)).as(undo).isTrue();
            b.commit();
            applied++;
            assertThat(balance(1) - 100).as(undo + ": increments kept, of " + applied + " applied").isEqualTo(applied);
            assertThat(epochRow(name)).as(undo).isEqualTo(34);
            // a claim at the start of a transaction is committed before the read; after a savepoint it is refused
            assertThat(refusals).as(undo).hasSize(undo.contains("savepoint") ? 1 : 0);
            b.setAutoCommit(true);
        }
    }

    @Test
    void aTransactionWhoseSnapshotIsFixedCannotClaimLateAndMissTheStaleHoldersCommit() throws Exception {
        account(1, 100);
        String other = lock + ":other";
        long applied = 0;
        List<String> refusals = new ArrayList<>();
        // the stale holder (fence 33) reads, then its write transaction holds the epoch row, uncommitted
        Connection a = connection(process());
        long aRead = readBalance(a, lock, 33);
        a.setAutoCommit(false);
        assertThat(writeBalance(a, lock, 33, aRead + 1)).isTrue();
        // the new holder's REPEATABLE READ transaction reads under another lock first (fixing its snapshot)
        FencingDataSource processB = process();
        Connection b = connection(processB);
        b.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        b.setAutoCommit(false);
        java.util.concurrent.CountDownLatch snapshotFixed = new java.util.concurrent.CountDownLatch(1);
        Future<Long> bRead = threads.submit(() -> {
            as(other, 1, () -> query(b, "SELECT COUNT(*) FROM accounts"));
            snapshotFixed.countDown();
            return readOrClaimFirst(b, processB, lock, 34, () -> {
                b.rollback();
                return null;
            }, refusals);
        });
        assertThat(snapshotFixed.await(5, TimeUnit.SECONDS)).isTrue();
        // B's claim (or the eager claim it was told to make) waits for A's transaction
        assertThatThrownBy(() -> bRead.get(300, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
        a.commit();
        applied++;
        long read = bRead.get(10, TimeUnit.SECONDS);
        assertThat(writeBalance(b, lock, 34, read + 1)).isTrue();
        b.commit();
        applied++;
        assertThat(balance(1) - 100).as("increments kept, of " + applied + " applied").isEqualTo(applied);
        assertThat(refusals).hasSize(1);
        b.setAutoCommit(true);
        b.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
    }

    @Test
    void aNewerTokenOnTheSameConnectionClaimsAgain() throws Exception {
        Connection a = connection(process());
        as(lock, 33, () -> query(a, "SELECT COUNT(*) FROM accounts"));
        as(lock, 35, () -> query(a, "SELECT COUNT(*) FROM accounts"));
        assertThat(epochRow(lock)).isEqualTo(35);
        assertThatThrownBy(() -> as(lock, 33, () -> query(a, "SELECT COUNT(*) FROM accounts")))
                .isInstanceOf(StaleFenceException.class);
    }

    @Test
    void anEagerClaimRaisesTheEpochRowAndServesTheDataSourcesConnections() throws Exception {
        FencingDataSource dataSource = process();
        EpochTable.claim(dataSource, lock, 40);
        assertThat(epochRow(lock)).isEqualTo(40);
        // lowered behind the data source's back (never do this): its connections claim no more
        sql("UPDATE fencing_epochs SET fence = 39 WHERE lock_name = '" + lock + "'");
        Connection connection = connection(dataSource);
        as(lock, 40, () -> query(connection, "SELECT COUNT(*) FROM accounts"));
        assertThat(epochRow(lock)).isEqualTo(39);
        // the write transaction's check raises it again
        as(lock, 40, () -> { update(connection, "INSERT INTO accounts (id, balance) VALUES (1, 1)"); return null; });
        assertThat(epochRow(lock)).isEqualTo(40);

        assertThatThrownBy(() -> EpochTable.claim(raw(), lock, 38)).isInstanceOf(StaleFenceException.class);
        EpochTable.claim(raw(), config(), lock, 41);
        assertThat(epochRow(lock)).isEqualTo(41);
    }

    @Test
    void aLeaseClaimsItsTenureRightAfterAcquiring() throws Exception {
        String lockTable = "locks_" + UniqueNames.next("t_");
        FencingDataSource process = process();
        try (dev.fencing.lock.JdbcFencedLocks locks = dev.fencing.lock.JdbcFencedLocks.builder(raw())
                .tableName(lockTable).build()) {
            locks.createTable();
            try (dev.fencing.lock.Lease first = locks.acquire(lock, java.time.Duration.ofSeconds(30),
                    java.time.Duration.ofSeconds(5))) {
                first.claimEpoch(process);
                assertThat(epochRow(lock)).isEqualTo(first.fence());
                Connection connection = connection(process);
                first.runFenced(() -> {
                    try {
                        update(connection, "INSERT INTO accounts (id, balance) VALUES (1, 1)");
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                });
                // a newer fence claimed elsewhere: the lease's own claim now finds it
                claimElsewhereAtOnce(lock, first.fence() + 1);
                assertThatThrownBy(() -> first.claimEpoch(process())).isInstanceOf(StaleFenceException.class);
            }
        } finally {
            sql("DROP TABLE " + lockTable);
        }
        assertThat(balance(1)).isEqualTo(1);
    }

    // ---- checks --------------------------------------------------------------------------------

    @Test
    void oneTransactionMixesRowAndEpochTablesAndTheCheckGuardsIt() throws Exception {
        seed(1, "new", 10, 0);
        account(1, 100);
        Connection a = connection(process());
        a.setAutoCommit(false);
        as(lock, 40, () -> {
            update(a, "UPDATE orders SET status = 'paid' WHERE id = 1");
            update(a, "INSERT INTO accounts (id, balance) VALUES (2, 5)");
            update(a, "UPDATE accounts SET balance = balance - 10 WHERE id = 1");
            update(a, "INSERT INTO notes (id, body) VALUES (1, 'x')");
            return null;
        });
        // the transaction holds the epoch row: a new tenure waits for it
        Future<Long> b = threads.submit(() -> {
            try (Connection connection = process().getConnection()) {
                return as(lock, 41, () -> query(connection, "SELECT balance FROM accounts WHERE id = 1"));
            }
        });
        assertThatThrownBy(() -> b.get(300, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
        a.commit();
        assertThat(b.get(5, TimeUnit.SECONDS)).isEqualTo(90);
        assertThat(order(1)).isEqualTo(new Order(1, "paid", 10, 40));
        assertThat(balance(2)).isEqualTo(5);

        // the next transaction checks again and finds the new tenure
        assertThatThrownBy(() -> as(lock, 40, () -> {
            update(a, "UPDATE orders SET status = 'shipped' WHERE id = 1");   // row mode: 40 is still on the row
            update(a, "UPDATE accounts SET balance = 0 WHERE id = 1");
            return null;
        })).isInstanceOf(StaleFenceException.class);
        a.rollback();
        assertThat(order(1).status()).isEqualTo("paid");
        assertThat(balance(1)).isEqualTo(90);
        assertEpochRowNotLocked(lock);
    }

    /**
     * True when a transaction whose check found a newer fence holds no lock on the epoch row
     * (InnoDB's UPDATE locks the row it examined under REPEATABLE READ, whether it matched or not,
     * and so does H2): elsewhere the stale transaction must be rolled back to let the new tenure in.
     */
    boolean staleCheckLeavesEpochRowFree() {
        return true;
    }

    @Test
    void aStaleCheckInsideATransactionRefusesTheWriteAndTheTransactionMayGoOn() throws Exception {
        account(1, 100);
        Connection a = connection(process());
        as(lock, 40, () -> query(a, "SELECT balance FROM accounts WHERE id = 1"));
        claimElsewhereAtOnce(lock, 41);
        a.setAutoCommit(false);
        assertThatThrownBy(() -> as(lock, 40, () -> { update(a, "UPDATE accounts SET balance = 0 WHERE id = 1"); return null; }))
                .isInstanceOf(StaleFenceException.class);
        if (staleCheckLeavesEpochRowFree()) {
            assertEpochRowNotLocked(lock);
            // nothing was sent that could abort the transaction: it reads on (and is rolled back)
            assertThat(query(a, "SELECT balance FROM accounts WHERE id = 1")).isEqualTo(100);
        }
        a.rollback();
        assertEpochRowNotLocked(lock);
        assertThat(balance(1)).isEqualTo(100);
    }

    @Test
    void aCheckedTransactionIsCheckedOnceAndForgottenAtCommit() throws Exception {
        account(1, 100);
        Connection a = connection(process());
        a.setAutoCommit(false);
        as(lock, 40, () -> {
            update(a, "UPDATE accounts SET balance = balance + 1 WHERE id = 1");
            update(a, "UPDATE accounts SET balance = balance + 1 WHERE id = 1");
            return null;
        });
        a.commit();
        assertEpochRowNotLocked(lock);
        assertThat(balance(1)).isEqualTo(102);
        claimElsewhereAtOnce(lock, 41);
        assertThatThrownBy(() -> as(lock, 40, () -> { update(a, "UPDATE accounts SET balance = 0 WHERE id = 1"); return null; }))
                .isInstanceOf(StaleFenceException.class);
        a.rollback();
        assertThat(balance(1)).isEqualTo(102);
    }

    @Test
    void anAutoCommitWriteLeavesAutoCommitOnAndTheEpochRowFree() throws Exception {
        account(1, 100);
        Connection a = connection(process());
        as(lock, 40, () -> { update(a, "UPDATE accounts SET balance = 120 WHERE id = 1"); return null; });
        assertThat(a.getAutoCommit()).isTrue();
        assertThat(balance(1)).isEqualTo(120);
        assertThat(epochRow(lock)).isEqualTo(40);
        assertEpochRowNotLocked(lock);
        claimElsewhereAtOnce(lock, 41);
    }

    @Test
    void aFailedAutoCommitWriteRollsBackItsShortTransactionAndFreesTheEpochRow() throws Exception {
        account(1, 100);
        Connection a = connection(process());
        assertThatThrownBy(() -> as(lock, 40, () -> {
            update(a, "INSERT INTO accounts (id, balance) VALUES (1, 1)");   // duplicate key
            return null;
        })).isInstanceOf(SQLException.class).isNotInstanceOf(StaleFenceException.class);
        assertThat(a.getAutoCommit()).isTrue();
        // the claim was committed before the write's short transaction began; the write was rolled back
        assertThat(epochRow(lock)).isEqualTo(40);
        assertEpochRowNotLocked(lock);
        assertThat(balance(1)).isEqualTo(100);
        as(lock, 40, () -> query(a, "SELECT COUNT(*) FROM accounts"));
        claimElsewhereAtOnce(lock, 41);
    }

    @Test
    void aFenceWithoutALockNameCannotWriteAnEpochTable() throws Exception {
        account(1, 100);
        Connection a = connection(process());
        try (Fence.Scope scope = Fence.enter(40)) {
            MissingFenceException missing = catchThrowableOfType(MissingFenceException.class,
                    () -> update(a, "UPDATE accounts SET balance = 0 WHERE id = 1"));
            assertThat((Throwable) missing).isNotNull();
            assertThat(missing.table()).isEqualTo("accounts");
            assertThat(missing.getMessage()).contains("Fence.enter(lockName, token)").contains("epoch mode");
            assertThatThrownBy(() -> a.prepareStatement("INSERT INTO accounts (id, balance) VALUES (?, ?)").executeUpdate())
                    .isInstanceOf(MissingFenceException.class);
            // reads need no lock name, and row-mode tables keep working with a plain fence
            assertThat(query(a, "SELECT balance FROM accounts WHERE id = 1")).isEqualTo(100);
        }
        assertThatThrownBy(() -> update(a, "DELETE FROM accounts")).isInstanceOf(MissingFenceException.class)
                .hasMessageContaining("no fence in scope");
        assertThat(balance(1)).isEqualTo(100);
        assertThat(a.getAutoCommit()).isTrue();
        assertThat(epochRow(lock)).isNull();
    }

    @Test
    void aMissingEpochTableIsExplained() throws Exception {
        sql("DROP TABLE fencing_epochs");
        Connection a = connection(process());
        assertThatThrownBy(() -> as(lock, 40, () -> query(a, "SELECT COUNT(*) FROM accounts")))
                .isInstanceOf(dev.fencing.FencingException.class)
                .hasMessageContaining("fencing_epochs does not exist")
                .hasMessageContaining("EpochTable.createTable");
        EpochTable.createTable(raw(), config());
        assertThat((Long) as(lock, 40, () -> query(a, "SELECT COUNT(*) FROM accounts"))).isZero();
        assertThat(epochRow(lock)).isEqualTo(40);
    }

    @Test
    void aReadOnlyTransactionCannotClaimButAClaimedTenureReadsInIt() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(readOnlyTransactions(), "no read-only transactions here");
        account(1, 100);
        FencingDataSource process = process();
        Connection a = connection(process);
        a.setAutoCommit(false);
        a.setReadOnly(true);
        assertThatThrownBy(() -> as(lock, 40, () -> query(a, "SELECT balance FROM accounts WHERE id = 1")))
                .isInstanceOf(dev.fencing.FencingException.class)
                .hasMessageContaining("read-only")
                .hasMessageContaining("claimEpoch");
        // refused before sending: the transaction goes on
        assertThat(query(a, "SELECT balance FROM accounts WHERE id = 1")).isEqualTo(100);
        a.rollback();
        EpochTable.claim(process, lock, 40);
        assertThat((Long) as(lock, 40, () -> query(a, "SELECT balance FROM accounts WHERE id = 1"))).isEqualTo(100);
        a.rollback();
    }

    @Test
    void aTextThatWritesAnEpochTableAndEndsTheTransactionIsRefused() throws Exception {
        Connection a = connection(process());
        assertThatThrownBy(() -> as(lock, 40, () -> {
            update(a, "INSERT INTO accounts (id, balance) VALUES (1, 1); COMMIT");
            return null;
        })).isInstanceOf(UnfenceableStatementException.class);
        assertThat(balance(1)).isNull();
    }

    @Test
    void aBatchChecksEveryLockItsEntriesCarryBeforeItIsSent() throws Exception {
        String other = lock + ":other";
        Connection a = connection(process());
        try (Statement batch = a.createStatement()) {
            as(lock, 50, () -> { batch.addBatch("INSERT INTO accounts (id, balance) VALUES (1, 1)"); return null; });
            as(other, 60, () -> { batch.addBatch("INSERT INTO accounts (id, balance) VALUES (2, 2)"); return null; });
            claimElsewhereAtOnce(other, 61);
            // executed under the first entry's fence: a batch needs a fence in scope when it runs
            assertThatThrownBy(() -> as(lock, 50, batch::executeBatch)).isInstanceOf(StaleFenceException.class);
            assertThat(a.getAutoCommit()).isTrue();
            assertThat(balance(1)).isNull();
            assertThat(balance(2)).isNull();
            assertEpochRowNotLocked(lock);
            // the refused entries were dropped with the batch
            assertThat(batch.executeBatch()).isEmpty();
        }
    }

    @Test
    void everyExecutePathEndsItsShortTransaction() throws Exception {
        Connection a = connection(process());
        List<String> paths = new ArrayList<>();
        long[] id = {0};
        List<Work<Object>> writes = List.of(
                () -> statement(a, s -> s.executeUpdate(insert(++id[0]))),
                () -> statement(a, s -> s.executeUpdate(insert(++id[0]), Statement.NO_GENERATED_KEYS)),
                () -> statement(a, s -> s.executeLargeUpdate(insert(++id[0]))),
                () -> statement(a, s -> s.execute(insert(++id[0]))),
                () -> statement(a, s -> { s.addBatch(insert(++id[0])); s.addBatch(insert(++id[0])); return s.executeBatch(); }),
                () -> statement(a, s -> { s.addBatch(insert(++id[0])); return s.executeLargeBatch(); }),
                () -> prepared(a, p -> { bind(p, ++id[0]); return p.executeUpdate(); }),
                () -> prepared(a, p -> { bind(p, ++id[0]); return p.executeLargeUpdate(); }),
                () -> prepared(a, p -> { bind(p, ++id[0]); return p.execute(); }),
                () -> prepared(a, p -> { bind(p, ++id[0]); p.addBatch(); bind(p, ++id[0]); p.addBatch(); return p.executeBatch(); }),
                () -> prepared(a, p -> { bind(p, ++id[0]); p.addBatch(); return p.executeLargeBatch(); }));
        List<Work<Object>> all = new ArrayList<>(writes);
        if (returningInsert() != null) {
            all.add(() -> returning(a, ++id[0]));
        }
        if (callableDml()) {
            all.add(() -> callable(a, ++id[0]));
        }
        int path = 0;
        for (Work<Object> write : all) {
            path++;
            long before = id[0];
            as(lock, 40, write);
            assertThat(a.getAutoCommit()).as("path " + path).isTrue();
            assertEpochRowNotLocked(lock);
            assertThat(balance(id[0])).as("path " + path + " wrote").isEqualTo(id[0]);
            assertThat(rows("accounts")).as("path " + path).isEqualTo(id[0]);
            paths.add("path " + path + " wrote " + (id[0] - before));
        }
        // and the same paths with a stale fence: refused, nothing written, nothing left open
        claimElsewhereAtOnce(lock, 41);
        long written = id[0];
        path = 0;
        for (Work<Object> write : all) {
            path++;
            assertThatThrownBy(() -> as(lock, 40, write)).as("stale path " + path).isInstanceOf(StaleFenceException.class);
            assertThat(a.getAutoCommit()).as("stale path " + path).isTrue();
            assertEpochRowNotLocked(lock);
        }
        assertThat(rows("accounts")).isEqualTo(written);
    }

    static String insert(long id) {
        return "INSERT INTO accounts (id, balance) VALUES (" + id + ", " + id + ")";
    }

    @FunctionalInterface
    interface StatementWork<S, T> {
        T run(S statement) throws SQLException;
    }

    static Object statement(Connection connection, StatementWork<Statement, Object> work) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            return work.run(statement);
        }
    }

    static Object prepared(Connection connection, StatementWork<PreparedStatement, Object> work) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(
                "INSERT INTO accounts (id, balance) VALUES (?, ?)")) {
            return work.run(statement);
        }
    }

    static void bind(PreparedStatement statement, long id) throws SQLException {
        statement.setLong(1, id);
        statement.setLong(2, id);
    }

    Object returning(Connection connection, long id) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(returningInsert())) {
            statement.setLong(1, id);
            statement.setLong(2, id);
            try (ResultSet rows = statement.executeQuery()) {
                assertThat(rows.next()).isTrue();
                assertThat(rows.getLong(1)).isEqualTo(id);
            }
        }
        return null;
    }

    Object callable(Connection connection, long id) throws SQLException {
        try (var statement = connection.prepareCall("INSERT INTO accounts (id, balance) VALUES (?, ?)")) {
            statement.setLong(1, id);
            statement.setLong(2, id);
            return statement.executeUpdate();
        }
    }
}
