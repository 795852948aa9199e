package dev.fencing.jdbc;

import dev.fencing.FencingConfig;
import dev.fencing.FencingException;
import dev.fencing.sql.Dialect;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The guard table of {@code epoch} mode, and eager claims of it.
 *
 * <p>In {@code epoch} mode ({@code fencing.mode=epoch}, or per table
 * {@code fencing.table.<name>.mode=epoch}) a fenced table needs no fence column. Instead each lock
 * has one row in the guard table ({@code fencing.epoch-table}, default {@code fencing_epochs}) that
 * holds the newest fence whose tenure has started. Every fenced connection claims that row for
 * the fence in scope before the tenure's first statement through it (raising the row to the
 * fence), and every transaction that writes an epoch-mode table checks and locks the row in the
 * same transaction before its first write. A holder whose lock has passed on finds a newer fence
 * there and gets {@link dev.fencing.StaleFenceException}: its reads, its inserts, and its writes of
 * rows the new holder never touched or only read are all refused. Fences must be entered with
 * their lock's name: {@link dev.fencing.Fence#enter(String, long)}, or a lease's
 * {@code enterFence()}.
 *
 * <h2>The table</h2>
 * PostgreSQL and H2:
 * <pre>
 * CREATE TABLE IF NOT EXISTS fencing_epochs (
 *     lock_name VARCHAR(255) PRIMARY KEY,   -- the lock (a lease's resource)
 *     fence     BIGINT       NOT NULL)      -- the newest fence claimed; only ever grows
 * </pre>
 * MariaDB and MySQL:
 * <pre>
 * CREATE TABLE IF NOT EXISTS fencing_epochs (
 *     lock_name VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PRIMARY KEY,
 *     fence     BIGINT NOT NULL) ENGINE=InnoDB
 * </pre>
 * {@link #createTable(DataSource, FencingConfig)} runs the right one. Rows are created by the
 * first claim of each lock. Never delete a row or lower its fence: that would let a stale holder
 * in again. The guard table must not itself be a fenced table (the configuration refuses it).
 */
public final class EpochGuards {

    /** The default guard table name ({@code fencing.epoch-table}). */
    public static final String DEFAULT_TABLE = "fencing_epochs";

    private EpochGuards() {
    }

    /**
     * The DDL of guard table {@code table} on {@code dialect}'s database.
     *
     * @throws FencingException for a database other than PostgreSQL, MariaDB/MySQL or H2
     */
    public static String createTableSql(Dialect dialect, String table) throws FencingException {
        return EpochSql.createTable(Objects.requireNonNull(dialect, "dialect"), Objects.requireNonNull(table, "table"));
    }

    /** Creates the guard table of {@code config} ({@code fencing.epoch-table}) if it does not exist. */
    public static void createTable(DataSource dataSource, FencingConfig config) throws SQLException {
        createTable(dataSource, config.epochTable());
    }

    /** Creates the guard table of the fencing data source's configuration if it does not exist. */
    public static void createTable(FencingDataSource dataSource) throws SQLException {
        createTable(dataSource, dataSource.config().epochTable());
    }

    private static void createTable(DataSource dataSource, String table) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            Connection database = raw(connection);
            String ddl = EpochSql.createTable(ConnectionContext.dialectOf(database), table);
            boolean autoCommit = database.getAutoCommit();
            try (Statement statement = database.createStatement()) {
                statement.execute(ddl);
                if (!autoCommit) {
                    database.commit();
                }
            }
        }
    }

    /**
     * Claims the guard of {@code lockName} for {@code fence} now, in a transaction of its own, so that
     * the tenure starts at the database before its first statement: {@code lease.claimEpoch(dataSource)}
     * right after acquiring does this. Through a {@link FencingDataSource} the claim is remembered, and
     * its connections send no claim of their own for this fence; so it is when the data source hands out
     * connections fenced by the {@code jdbc:fencing:} driver or the agent (the claim is remembered by
     * their configuration's context, the guard table is theirs). With any other data source the
     * guard table is {@value #DEFAULT_TABLE}.
     *
     * @throws dev.fencing.StaleFenceException when the guard already holds a newer fence: the lock has
     *         passed on
     */
    public static void claim(DataSource dataSource, String lockName, long fence) throws SQLException {
        FencingDataSource fencing = fencingOf(dataSource);
        claim(dataSource, fencing == null ? null : fencing.config().epochTable(), fencing, lockName, fence);
    }

    /** Like {@link #claim(DataSource, String, long)}, with the guard table of {@code config}. */
    public static void claim(DataSource dataSource, FencingConfig config, String lockName, long fence)
            throws SQLException {
        claim(dataSource, config.epochTable(), fencingOf(dataSource), lockName, fence);
    }

    private static void claim(DataSource dataSource, String table, FencingDataSource fencing, String lockName,
                              long fence) throws SQLException {
        Objects.requireNonNull(lockName, "lockName");
        if (lockName.isBlank()) {
            throw new IllegalArgumentException("lockName must not be blank");
        }
        if (fence <= 0) {
            throw new IllegalArgumentException("a fencing token must be > 0, got " + fence);
        }
        try (Connection connection = dataSource.getConnection()) {
            FencedConnection fenced = fencedOf(connection);
            Connection database = fenced == null ? connection : fenced.database();
            EpochGuard fencedGuard = fenced == null ? null : fenced.epoch();
            EpochClaims claims = fencing != null ? fencing.context().claimsFor(database)
                    : fencedGuard != null ? fencedGuard.claims() : new EpochClaims();
            Dialect dialect = ConnectionContext.dialectOf(database);
            String guardTable = table != null ? table : fencedGuard != null ? fencedGuard.guardTable() : DEFAULT_TABLE;
            EpochGuard guard = new EpochGuard(database, dialect, guardTable, claims, new TransactionState(database, dialect));
            boolean autoCommit = database.getAutoCommit();
            try {
                guard.raise(lockName, fence, null);
                if (!autoCommit) {
                    database.commit();
                }
            } catch (SQLException | RuntimeException | Error e) {
                if (!autoCommit) {
                    try {
                        database.rollback();
                    } catch (SQLException suppressed) {
                        e.addSuppressed(suppressed);
                    }
                }
                throw e;
            } finally {
                guard.close();
            }
            claims.committed(lockName, fence);
        }
    }

    /**
     * The fenced connection behind {@code connection} (itself, or under a pool's proxy: the
     * {@code jdbc:fencing:} driver and the agent hand those out, sharing claims per configuration
     * and database), or null for an unfenced one. The claim is remembered in the claims of the
     * fencing data source's context, else of the fenced connection's, else nowhere.
     */
    private static FencedConnection fencedOf(Connection connection) {
        if (connection instanceof FencedConnection fenced) {
            return fenced;
        }
        try {
            return connection.isWrapperFor(FencedConnection.class) ? connection.unwrap(FencedConnection.class) : null;
        } catch (SQLException cannotTell) {
            return null;   // an unfenced connection whose wrapper cannot answer: nothing to share the claim with
        }
    }

    private static FencingDataSource fencingOf(DataSource dataSource) throws SQLException {
        Objects.requireNonNull(dataSource, "dataSource");
        if (dataSource instanceof FencingDataSource fencing) {
            return fencing;
        }
        return null;
    }

    /** The driver's connection behind a fenced one: the guard's own statements are not analysed. */
    private static Connection raw(Connection connection) throws SQLException {
        FencedConnection fenced = fencedOf(connection);
        return fenced == null ? connection : fenced.database();
    }
}
