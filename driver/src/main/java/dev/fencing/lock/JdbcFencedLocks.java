package dev.fencing.lock;

import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import dev.fencing.internal.lock.JdbcLockStore;
import dev.fencing.lock.spi.FencedLocksBuilder;
import dev.fencing.lock.spi.StoreLocks;
import javax.sql.DataSource;

/**
 * Fenced locks kept in a database table: the fences are as durable as the database (they
 * survive restarts, and failovers of a database with synchronous replication), and every
 * acquire takes the lock and increments its fence in one conditional statement.
 *
 * <pre>{@code
 * JdbcFencedLocks locks = JdbcFencedLocks.create(lockDataSource);
 * locks.createTable();   // once, or run the DDL below in a migration
 * try (Lease lease = locks.acquire("order:42", Duration.ofSeconds(30), Duration.ofSeconds(5))) {
 *     lease.runFenced(() -> orders.markPaid(42));
 * }
 * }</pre>
 *
 * <h2>The table</h2>
 * One row per lock, never deleted (default name {@code fencing_locks}):
 * <pre>
 * CREATE TABLE IF NOT EXISTS fencing_locks (
 *     lock_name  VARCHAR(255) PRIMARY KEY,   -- the resource
 *     owner      VARCHAR(64)  NULL,          -- the holder's ownership token; NULL when free
 *     fence      BIGINT       NOT NULL,      -- the last fence issued; only ever grows
 *     expires_at BIGINT       NOT NULL)      -- epoch millis by the database clock
 * </pre>
 * That is the PostgreSQL and H2 statement; on MariaDB and MySQL {@code lock_name} is
 * {@code VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin} (names compare exactly),
 * {@code owner} is {@code CHARACTER SET ascii COLLATE ascii_bin}, and the table is
 * {@code ENGINE=InnoDB}. {@link #createTable()} runs the right one, detected from
 * {@link java.sql.DatabaseMetaData#getDatabaseProductName()}. Deleting a row, or lowering its
 * fence, lets fences be issued again: don't.
 *
 * <h2>The statements</h2>
 * Acquire: {@code UPDATE fencing_locks SET owner = ?, fence = fence + 1, expires_at = now + ttl
 * WHERE lock_name = ? AND (owner IS NULL OR expires_at <= now)}; when it takes nothing, one
 * read returns the holder's remaining TTL (a hint for waiters), and only a lock without a row
 * yet is inserted (no duplicate-key errors on contended attempts). The database serializes
 * concurrent updates of the row, and the condition is checked again after waiting, so exactly
 * one claim wins and each winner's fence is one more than the last. The new fence is read
 * back from the same statement: by {@code RETURNING} (PostgreSQL), by
 * {@code SELECT .. FROM FINAL TABLE (UPDATE ..)} (H2), or (MariaDB, MySQL) by setting
 * {@code fence = LAST_INSERT_ID(fence + 1)}, which the server reports in the update's reply
 * as its generated key. A lock never taken before
 * is created by one {@code INSERT} with fence 1 ({@code ON CONFLICT DO NOTHING},
 * {@code INSERT IGNORE}, {@code WHERE NOT EXISTS}); of two racing inserts, the primary key
 * lets one through. Release and renewal are updates conditional on {@code owner} and
 * {@code fence}: a holder whose lock expired cannot free or extend its successor's.
 *
 * <h2>Clocks</h2>
 * {@code now} is always the database's clock ({@code clock_timestamp()} on PostgreSQL,
 * {@code UTC_TIMESTAMP(6)} on MariaDB/MySQL, {@code CURRENT_TIMESTAMP} on H2), in epoch
 * milliseconds: application servers whose clocks disagree still agree on expiry. Each lease
 * judges {@link Lease#isHeld()} by this process's monotonic clock from before the acquire was
 * sent, which errs towards "lost".
 *
 * <h2>Durability and time limits</h2>
 * A fence is only as durable as the commit that issued it. On PostgreSQL every lock
 * statement asks for a synchronous commit of its own ({@code set_config('synchronous_commit',
 * 'on', true)} in the same transaction), so a server running with {@code synchronous_commit =
 * off} cannot lose an issued fence in a crash. MariaDB and MySQL choose durability for the whole
 * server ({@code innodb_flush_log_at_trx_commit}, global): run it with 1 (the default); the
 * store warns once when it is not. H2 commits as its {@code WRITE_DELAY} says (database-wide).
 * Each statement gets the operation timeout ({@link Builder#operationTimeout}) at the server:
 * {@code statement_timeout} on PostgreSQL, {@code SET STATEMENT max_statement_time} on
 * MariaDB, H2's own {@code LOCK_TIMEOUT}; plus a network timeout a second longer.
 *
 * <h2>The data source</h2>
 * Use a data source that is <em>not</em> fenced for the lock table: the lock table must not
 * be one of the {@code fencing.tables}, since its writes carry no fence (they issue them).
 * Statements run in auto-commit. Up to {@link Builder#idleConnections} connections (default
 * 4) are kept open between operations (each for at most 10 s unused), so a plain driver data
 * source works without a pool. A
 * database that serializes conflicting transactions (serialization failures, deadlocks, lock
 * timeouts on the lock row) makes that attempt count as "held", and a waiting acquire tries
 * again.
 *
 * <h2>Waiting and renewal</h2>
 * A waiting {@link #acquire} tries again when a lease of this instance releases the lock,
 * otherwise after the poll interval (jittered), until {@code maxWait} has passed; releases by
 * other processes are noticed by polling. With {@link Builder#watchdog(boolean)}, leases are
 * extended by their TTL every third of it until closed, as with {@link RedisFencedLocks}:
 * each lease on its own, so a renewal stuck behind another session's row lock loses only its
 * own lease.
 *
 * <p>Thread-safe.
 */
public final class JdbcFencedLocks implements FencedLocks {

    /** The default table name. */
    public static final String DEFAULT_TABLE = "fencing_locks";

    private final JdbcLockStore store;
    private final StoreLocks issuer;

    private JdbcFencedLocks(JdbcLockStore store, StoreLocks issuer) {
        this.store = store;
        this.issuer = issuer;
    }

    /** Fenced locks in table {@code fencing_locks} of {@code dataSource}, without renewal. */
    public static JdbcFencedLocks create(DataSource dataSource) {
        return builder(dataSource).build();
    }

    /** Starts configuring fenced locks in {@code dataSource}. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /**
     * Creates the lock table if it does not exist (see the class description for the DDL).
     *
     * @throws SQLException if the database refuses, or is not PostgreSQL, MariaDB, MySQL or H2
     */
    public void createTable() throws SQLException {
        store.createTable();
    }

    /**
     * Takes the lock on {@code resource} for {@code ttl} if it is free or expired: one
     * attempt, no waiting.
     *
     * @return the lease, or empty when the lock is held by someone else
     * @throws LockAcquisitionException if the database cannot be reached or fails
     * @throws IllegalArgumentException if the resource is blank or longer than 255
     *         characters, or the TTL not positive
     */
    public Optional<Lease> tryAcquire(String resource, Duration ttl) {
        return issuer.tryAcquire(resource, ttl);
    }

    /**
     * Takes the lock on {@code resource} for {@code ttl}, waiting up to {@code maxWait} for
     * it to be released or to expire, and for the database to answer again when it cannot be
     * reached meanwhile. The lease time comes first and the wait second: the opposite order to
     * Redisson's {@code tryLock(waitTime, leaseTime, unit)}.
     *
     * @throws LockAcquisitionException with reason
     *         {@link LockAcquisitionException.Reason#TIMED_OUT TIMED_OUT} when the lock stayed
     *         held for {@code maxWait}, or another reason when the database failed
     * @throws IllegalArgumentException if the resource is blank or too long, the TTL not
     *         positive or {@code maxWait} negative
     */
    public Lease acquire(String resource, Duration ttl, Duration maxWait) {
        return issuer.acquire(resource, ttl, maxWait);
    }

    /** Stops renewing leases. The data source stays open: it is the application's. */
    @Override
    public void close() {
        issuer.close();
    }

    @Override
    public String toString() {
        return "JdbcFencedLocks[" + store.address() + "]";
    }

    /**
     * Settings of a {@link JdbcFencedLocks}: those of every store ({@link FencedLocksBuilder}:
     * watchdog, poll interval (default 100 ms), operation timeout, renewal schedule) and the
     * table's own; {@link #build()} checks them.
     */
    public static final class Builder extends FencedLocksBuilder<Builder> {
        private final DataSource dataSource;
        private String tableName = DEFAULT_TABLE;
        private int idleConnections = 4;
        private Duration idleTimeout = JdbcLockStore.DEFAULT_IDLE_TIMEOUT;

        private Builder(DataSource dataSource) {
            super(Duration.ofMillis(100));
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /**
         * The lock table (default {@code fencing_locks}): an unquoted identifier, optionally
         * schema-qualified.
         */
        public Builder tableName(String tableName) {
            this.tableName = Objects.requireNonNull(tableName, "tableName");
            return this;
        }

        /**
         * How many connections to keep open between lock operations (default 4), so that a
         * data source that opens a new connection on every call does not cost one per
         * operation. Each goes back to the data source after 10 s unused. Over a pool they are
         * connections the pool has lent out meanwhile: 0 borrows a connection per operation
         * instead (for a small pool, or one whose leak detection fires within seconds).
         */
        public Builder idleConnections(int count) {
            if (count < 0) {
                throw new IllegalArgumentException("idleConnections must be >= 0, got " + count);
            }
            this.idleConnections = count;
            return this;
        }

        /** How long an unused kept connection stays open (default 10 s); for tests. */
        Builder idleTimeout(Duration timeout) {
            this.idleTimeout = Objects.requireNonNull(timeout, "idleTimeout");
            return this;
        }

        /**
         * The operation timeout (see {@link FencedLocksBuilder#operationTimeout(Duration)}) is enforced by
         * the database: a statement timeout on PostgreSQL, {@code max_statement_time} on
         * MariaDB, the JDBC query timeout (whole seconds) on H2; plus a network timeout one
         * second longer. A renewal gets less when its lease has less time left, so a renewal
         * stuck behind a row lock gives up by the time its lease would be lost anyway.
         *
         * @throws IllegalArgumentException naming the setting whose value is not allowed
         */
        public JdbcFencedLocks build() {
            checkSettings();
            JdbcLockStore store = new JdbcLockStore(dataSource, tableName, idleConnections, idleTimeout);
            System.getLogger(JdbcFencedLocks.class.getName()).log(System.Logger.Level.DEBUG, () -> "JdbcFencedLocks on "
                    + store.address() + ": idleConnections=" + idleConnections + ", " + describeSettings());
            return new JdbcFencedLocks(store, startMachinery(store));
        }
    }
}
