package dev.fencing.lock;

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
 * statement that takes a free or expired row and increments its fence (or, for a lock never
 * taken before, one insert with fence 1); release and renewal are conditional on the owner
 * and fence. Every operation borrows a connection of its own from the data source and runs
 * in auto-commit: each is one statement (two for the first acquire of a lock).
 */
final class JdbcLockStore implements LockStore {

    /** An optionally schema-qualified name: it is spliced into SQL, so nothing else is let in. */
    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");

    static final int MAX_RESOURCE_LENGTH = 255;

    private final DataSource dataSource;
    private final String table;
    private volatile SqlDialect dialect;
    private volatile String productName;

    JdbcLockStore(DataSource dataSource, String table) {
        if (!TABLE_NAME.matcher(table).matches()) {
            throw new IllegalArgumentException("tableName must be an unquoted SQL identifier, optionally"
                    + " schema-qualified ([A-Za-z_][A-Za-z0-9_]*), got '" + table + "'");
        }
        this.dataSource = dataSource;
        this.table = table;
    }

    @Override
    public Attempt tryAcquire(String resource, String owner, long ttlMillis, Duration timeout) {
        try {
            return inAutoCommit((connection, sql) -> {
                long fence = claim(connection, sql, resource, owner, ttlMillis);
                if (fence > 0) {
                    return Attempt.acquired(fence);
                }
                if (insertFirst(connection, sql, resource, owner, ttlMillis)) {
                    return Attempt.acquired(1);
                }
                return Attempt.held(0);
            });
        } catch (SQLException e) {
            if (isContention(e)) {
                return Attempt.held(0);
            }
            throw failure("acquire", resource, e);
        }
    }

    /** Takes an existing free or expired row; returns its new fence, or 0 when none was taken. */
    private long claim(Connection connection, SqlDialect sql, String resource, String owner, long ttlMillis)
            throws SQLException {
        if (sql.reportsFenceAsGeneratedKey()) {
            try (PreparedStatement claim = connection.prepareStatement(sql.claim(table), Statement.RETURN_GENERATED_KEYS)) {
                bindClaim(claim, resource, owner, ttlMillis);
                if (claim.executeUpdate() != 1) {
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
        try (PreparedStatement claim = connection.prepareStatement(sql.claim(table))) {
            bindClaim(claim, resource, owner, ttlMillis);
            try (ResultSet row = claim.executeQuery()) {
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

    /** Creates the row of a lock never taken before; false when the row already exists. */
    private boolean insertFirst(Connection connection, SqlDialect sql, String resource, String owner, long ttlMillis)
            throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(sql.insertIfAbsent(table))) {
            insert.setString(1, resource);
            insert.setString(2, owner);
            insert.setLong(3, ttlMillis);
            return insert.executeUpdate() == 1;
        } catch (SQLException e) {
            if (isDuplicateKey(e)) {
                return false; // another acquirer created the row first: the lock is taken
            }
            throw e;
        }
    }

    @Override
    public boolean release(Tenure tenure, Duration timeout) {
        String resource = tenure.resource();
        try {
            return inAutoCommit((connection, sql) -> {
                try (PreparedStatement release = connection.prepareStatement(sql.release(table))) {
                    release.setString(1, resource);
                    release.setString(2, tenure.owner());
                    release.setLong(3, tenure.fence());
                    return release.executeUpdate() == 1;
                }
            });
        } catch (SQLException e) {
            throw failure("release", resource, e);
        }
    }

    @Override
    public boolean extend(Tenure tenure, Duration timeout) {
        String resource = tenure.resource();
        try {
            return inAutoCommit((connection, sql) -> {
                try (PreparedStatement extend = connection.prepareStatement(sql.extend(table))) {
                    extend.setLong(1, tenure.ttlMillis());
                    extend.setString(2, resource);
                    extend.setString(3, tenure.owner());
                    extend.setLong(4, tenure.fence());
                    return extend.executeUpdate() == 1;
                }
            });
        } catch (SQLException e) {
            throw failure("extend", resource, e);
        }
    }

    /** Creates the lock table if it does not exist. */
    void createTable() throws SQLException {
        inAutoCommit((connection, sql) -> {
            try (Statement ddl = connection.createStatement()) {
                return ddl.execute(sql.createTable(table));
            }
        });
    }

    /** Work on one borrowed connection. */
    private interface ConnectionWork<T> {
        T run(Connection connection, SqlDialect sql) throws SQLException;
    }

    /**
     * Runs {@code work} on a connection of its own, in auto-commit even when the pool hands
     * out connections without it: each statement must commit by itself (a pool would roll
     * back a claim left uncommitted), and the row must not stay locked past the statement.
     */
    private <T> T inAutoCommit(ConnectionWork<T> work) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            SqlDialect sql = dialect(connection);
            boolean autoCommit = connection.getAutoCommit();
            if (!autoCommit) {
                connection.setAutoCommit(true);
            }
            try {
                return work.run(connection, sql);
            } finally {
                if (!autoCommit) {
                    connection.setAutoCommit(false);
                }
            }
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
        // The data source is the application's: it stays open.
    }

    private SqlDialect dialect(Connection connection) throws SQLException {
        SqlDialect known = dialect;
        if (known != null) {
            return known;
        }
        DatabaseMetaData metaData = connection.getMetaData();
        String product = metaData.getDatabaseProductName();
        SqlDialect detected = SqlDialect.forProductName(product);
        if (detected == null) {
            throw new SQLException("JdbcFencedLocks supports PostgreSQL, MariaDB, MySQL and H2, not " + product);
        }
        productName = product;
        dialect = detected;
        return detected;
    }

    private LockStoreException failure(String doing, String resource, SQLException e) {
        return new LockStoreException(address() + " failed to " + doing + " lock '" + resource + "': "
                + e.getMessage() + " (SQLState " + e.getSQLState() + ")", e);
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
