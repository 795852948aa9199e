package dev.fencing.internal.lock;

import dev.fencing.internal.sql.Dialect;

import dev.fencing.lock.spi.Attempt;
import dev.fencing.lock.spi.LockStore;
import dev.fencing.lock.spi.LockStoreException;
import dev.fencing.lock.spi.Tenure;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * Fenced locks in a database table, one row per lock that is never deleted, so its fence
 * keeps growing across tenures and survives restarts. Acquiring is one conditional
 * statement that takes a free or expired row and increments its fence; when it takes
 * nothing, one read tells a held lock (and how long its holder's TTL runs) from a lock never
 * taken, which one insert creates with fence 1. Release and renewal are conditional on the
 * owner and fence. Every statement runs in auto-commit, with a durable commit where the
 * database lets a session ask for one, and with the operation's timeout at the server. The store
 * of {@code dev.fencing.lock.JdbcFencedLocks}.
 */
public final class JdbcLockStore implements LockStore {

    private static final System.Logger LOG = System.getLogger(JdbcLockStore.class.getName());

    /** An optionally schema-qualified name: it is spliced into SQL, so nothing else is let in. */
    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");

    static final int MAX_RESOURCE_LENGTH = 255;
    /** The default of how long an unused connection is kept open. */
    public static final Duration DEFAULT_IDLE_TIMEOUT = JdbcConnections.IDLE_TIMEOUT;

    private final JdbcConnections connections;
    private final String table;
    private volatile Dialect dialect;
    private volatile String productName;

    /**
     * @param idleConnections how many connections to keep open between operations
     * @param idleTimeout how long an unused one is kept
     */
    public JdbcLockStore(DataSource dataSource, String table, int idleConnections, Duration idleTimeout) {
        if (!TABLE_NAME.matcher(table).matches()) {
            throw new IllegalArgumentException("tableName must be an unquoted SQL identifier, optionally"
                    + " schema-qualified ([A-Za-z_][A-Za-z0-9_]*), got '" + table + "'");
        }
        this.connections = new JdbcConnections(dataSource, idleConnections, idleTimeout);
        this.table = table;
    }

    @Override
    public Attempt tryAcquire(String resource, String owner, long ttlMillis, Duration timeout) {
        try {
            return run(timeout, (connection, sql, millis) -> {
                long fence = claim(connection, sql, resource, owner, ttlMillis, millis);
                if (fence > 0) {
                    return Attempt.acquired(fence);
                }
                Long holderTtl = remainingTtl(connection, sql, resource, millis);
                if (holderTtl != null) {
                    return Attempt.held(holderTtl);
                }
                if (insertFirst(connection, sql, resource, owner, ttlMillis, millis)) {
                    return Attempt.acquired(1);
                }
                return Attempt.held(0); // another acquirer created the row first
            });
        } catch (SQLException e) {
            if (isContention(e)) {
                return Attempt.held(0);
            }
            throw failure("acquire", resource, timeout, e);
        }
    }

    /** Takes an existing free or expired row; returns its new fence, or 0 when none was taken. */
    private long claim(Connection connection, Dialect sql, String resource, String owner, long ttlMillis,
            long timeoutMillis) throws SQLException {
        String text = sql.lockLimited(sql.lockClaim(table), timeoutMillis);
        if (sql.lockClaimReportsGeneratedKey()) {
            try (PreparedStatement claim = connection.prepareStatement(text, Statement.RETURN_GENERATED_KEYS)) {
                bindClaim(claim, resource, owner, ttlMillis);
                if (updateCount(claim, sql) != 1) {
                    return 0;
                }
                try (ResultSet key = claim.getGeneratedKeys()) {
                    if (!key.next() || key.getLong(1) <= 0) {
                        // Taken, but the fence is unknown: fail, and the lock expires by its TTL.
                        throw new SQLException("the claim of lock '" + resource + "' in " + table
                                + " did not report the fence it set");
                    }
                    return key.getLong(1);
                }
            }
        }
        try (PreparedStatement claim = connection.prepareStatement(text)) {
            bindClaim(claim, resource, owner, ttlMillis);
            try (ResultSet row = resultSet(claim, sql)) {
                return row.next() ? row.getLong(1) : 0;
            }
        }
    }

    private static void bindClaim(PreparedStatement claim, String resource, String owner, long ttlMillis)
            throws SQLException {
        claim.setString(1, owner);
        claim.setLong(2, ttlMillis);
        claim.setString(3, resource);
    }

    /** The holder's remaining TTL in milliseconds (0 when past), or null when the lock has no row yet. */
    private Long remainingTtl(Connection connection, Dialect sql, String resource, long timeoutMillis)
            throws SQLException {
        try (PreparedStatement read = connection.prepareStatement(sql.lockRemainingTtl(table))) {
            read.setString(1, resource);
            try (ResultSet row = read.executeQuery()) {
                return row.next() ? Math.max(0, row.getLong(1)) : null;
            }
        }
    }

    /** Creates the row of a lock never taken before; false when another acquirer created it first. */
    private boolean insertFirst(Connection connection, Dialect sql, String resource, String owner, long ttlMillis,
            long timeoutMillis) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(sql.lockLimited(sql.lockInsertIfAbsent(table), timeoutMillis))) {
            insert.setString(1, resource);
            insert.setString(2, owner);
            insert.setLong(3, ttlMillis);
            if (sql.lockInsertRepeatsName()) {
                insert.setString(4, resource);
            }
            return updateCount(insert, sql) == 1;
        } catch (SQLException e) {
            if (isDuplicateKey(e)) {
                return false; // a racing first acquire: the lock is taken
            }
            throw e;
        }
    }

    @Override
    public boolean release(Tenure tenure, Duration timeout) {
        try {
            return run(timeout, (connection, sql, millis) -> {
                try (PreparedStatement release = connection.prepareStatement(sql.lockLimited(sql.lockRelease(table), millis))) {
                    release.setString(1, tenure.resource());
                    release.setString(2, tenure.owner());
                    release.setLong(3, tenure.fence());
                    return updateCount(release, sql) == 1;
                }
            });
        } catch (SQLException e) {
            throw failure("release", tenure.resource(), timeout, e);
        }
    }

    /** Every TTL: {@link #extend} sets the lock's TTL to the tenure's. */
    @Override
    public void checkExtension(Tenure tenure, long ttlMillis) {
    }

    @Override
    public boolean extend(Tenure tenure, Duration timeout) {
        try {
            return run(timeout, (connection, sql, millis) -> {
                try (PreparedStatement extend = connection.prepareStatement(sql.lockLimited(sql.lockExtend(table), millis))) {
                    extend.setLong(1, tenure.ttlMillis());
                    extend.setString(2, tenure.resource());
                    extend.setString(3, tenure.owner());
                    extend.setLong(4, tenure.fence());
                    return updateCount(extend, sql) == 1;
                }
            });
        } catch (SQLException e) {
            throw failure("extend", tenure.resource(), timeout, e);
        }
    }

    /** Runs a statement that {@link Dialect#lockLimited} may have prefixed; returns the caller's update count. */
    private static int updateCount(PreparedStatement statement, Dialect sql) throws SQLException {
        statement.execute();
        if (sql.lockLimitLeadsWithAStatement()) {
            statement.getMoreResults();
        }
        return statement.getUpdateCount();
    }

    /** Runs a query that {@link Dialect#lockLimited} may have prefixed; returns the caller's rows. */
    private static ResultSet resultSet(PreparedStatement statement, Dialect sql) throws SQLException {
        statement.execute();
        if (sql.lockLimitLeadsWithAStatement()) {
            statement.getMoreResults();
        }
        ResultSet rows = statement.getResultSet();
        if (rows == null) {
            throw new SQLException("the claiming statement returned no rows to read the fence from");
        }
        return rows;
    }

    /** Creates the lock table if it does not exist. */
    public void createTable() throws SQLException {
        run(Duration.ofMinutes(1), (connection, sql, millis) -> {
            try (Statement ddl = connection.createStatement()) {
                return ddl.execute(sql.lockTableDdl(table));
            }
        });
    }

    /** Work on one borrowed connection, with the operation's timeout in milliseconds. */
    private interface ConnectionWork<T> {
        T run(Connection connection, Dialect sql, long timeoutMillis) throws SQLException;
    }

    private <T> T run(Duration timeout, ConnectionWork<T> work) throws SQLException {
        long timeoutMillis = Math.max(1, timeout.toMillis());
        JdbcConnections.Kept kept = connections.borrow(timeoutMillis);
        boolean reusable = false;
        try {
            T result = work.run(kept.connection, dialect(kept.connection), timeoutMillis);
            reusable = true;
            return result;
        } catch (SQLException e) {
            reusable = isContention(e) || isTimeout(e) || isDuplicateKey(e);
            throw e;
        } finally {
            connections.giveBack(kept, reusable);
        }
    }

    @Override
    public void checkResourceName(String resource) {
        if (resource.codePointCount(0, resource.length()) > MAX_RESOURCE_LENGTH) {
            throw new IllegalArgumentException("resource names are at most " + MAX_RESOURCE_LENGTH
                    + " characters (the lock_name column), got " + resource.length());
        }
    }

    @Override
    public String address() {
        String product = productName;
        return "table " + table + (product != null ? " in " + product : "");
    }

    @Override
    public void close() {
        // The data source is the application's: it stays open; the connections kept go back to it.
        connections.close();
    }

    private Dialect dialect(Connection connection) throws SQLException {
        Dialect known = dialect;
        if (known != null) {
            return known;
        }
        DatabaseMetaData metaData = connection.getMetaData();
        String product = metaData.getDatabaseProductName();
        Dialect detected = Dialect.fromProductName(product);
        if (!detected.supportsLocks()) {
            throw new SQLException("JdbcFencedLocks supports PostgreSQL, MariaDB, MySQL and H2, not " + product);
        }
        productName = product;
        if (detected == Dialect.MARIADB) {
            warnUnlessDurable(connection);
        }
        dialect = detected;
        return detected;
    }

    /**
     * MariaDB and MySQL choose durability for the whole server: with
     * {@code innodb_flush_log_at_trx_commit} other than 1, a crash can lose committed fences,
     * and a fence can be issued again. Nothing per session can change that; say so once.
     */
    private void warnUnlessDurable(Connection connection) {
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT @@innodb_flush_log_at_trx_commit")) {
            if (row.next() && row.getInt(1) != 1) {
                LOG.log(System.Logger.Level.WARNING, "JdbcFencedLocks on " + address()
                        + ": innodb_flush_log_at_trx_commit is " + row.getInt(1) + ", so a crash of the database can"
                        + " lose committed fences and a fence can be issued twice; set it to 1 on the server"
                        + " (it cannot be chosen per session)");
            }
        } catch (SQLException e) {
            LOG.log(System.Logger.Level.WARNING, "JdbcFencedLocks on " + address()
                    + ": could not read innodb_flush_log_at_trx_commit (" + e.getMessage() + ")");
        }
    }

    private LockStoreException failure(String doing, String resource, Duration timeout, SQLException e) {
        String what = isTimeout(e) ? " did not " + doing + " lock '" + resource + "' within " + timeout.toMillis() + " ms"
                : " failed to " + doing + " lock '" + resource + "'";
        return new LockStoreException(address() + what + ": " + e.getMessage() + " (SQLState " + e.getSQLState() + ")", e);
    }

    /** A statement stopped by its time limit (the server's statement timeout, or the JDBC query timeout). */
    private static boolean isTimeout(SQLException e) {
        String state = e.getSQLState();
        return e instanceof java.sql.SQLTimeoutException
                || "57014".equals(state)                 // PostgreSQL: canceling statement due to statement timeout
                || "70100".equals(state)                 // MariaDB: max_statement_time exceeded
                || e.getErrorCode() == 1969;             // MariaDB: ER_STATEMENT_TIMEOUT
    }

    private static boolean isDuplicateKey(SQLException e) {
        String state = e.getSQLState();
        return state != null && state.startsWith("23");
    }

    /**
     * Whether a failure only means that another acquirer got in the way (a serialization
     * failure, deadlock or lock timeout over the same row): the lock is busy, not the store
     * broken, and a waiting acquire tries again.
     */
    private static boolean isContention(SQLException e) {
        String state = e.getSQLState();
        if (state == null) {
            return false;
        }
        return state.startsWith("40")            // serialization failure, deadlock
                || state.equals("HYT00")         // H2: lock timeout
                || state.equals("90131")         // H2: concurrent update of the same row
                || e.getErrorCode() == 1205;     // MariaDB/MySQL: lock wait timeout
    }
}
