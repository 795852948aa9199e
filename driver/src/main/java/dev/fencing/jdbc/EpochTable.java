package dev.fencing.jdbc;

import dev.fencing.internal.jdbc.EpochClaim;

import dev.fencing.FencingConfig;

import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The epoch table of {@code epoch} mode, one row per lock, and eager claims of its rows.
 *
 * <p>In {@code epoch} mode ({@code fencing.mode=epoch}, or per table
 * {@code fencing.table.<name>.mode=epoch}) a fenced table needs no fence column. Instead each lock
 * has one row in the epoch table ({@code fencing.epoch-table}, default {@code fencing_epochs}) that
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
 * in again. The epoch table must not itself be a fenced table (the configuration refuses it).
 */
public final class EpochTable {

    /** The default epoch table name ({@code fencing.epoch-table}). */
    public static final String DEFAULT_TABLE = EpochClaim.DEFAULT_TABLE;

    private EpochTable() {
    }

    /** The DDL of the epoch table of {@code config} ({@code fencing.epoch-table}) on {@code dataSource}'s database. */
    public static String createTableSql(DataSource dataSource, FencingConfig config) throws SQLException {
        return EpochClaim.createTableSql(Objects.requireNonNull(dataSource, "dataSource"), config.epochTable());
    }

    /** Creates the epoch table of {@code config} ({@code fencing.epoch-table}) if it does not exist. */
    public static void createTable(DataSource dataSource, FencingConfig config) throws SQLException {
        createTable(dataSource, config.epochTable());
    }

    /** Creates the epoch table of the fencing data source's configuration if it does not exist. */
    public static void createTable(FencingDataSource dataSource) throws SQLException {
        createTable(dataSource, dataSource.config().epochTable());
    }

    private static void createTable(DataSource dataSource, String table) throws SQLException {
        EpochClaim.createTable(Objects.requireNonNull(dataSource, "dataSource"), table);
    }

    /**
     * Claims the epoch row of {@code lockName} for {@code fence} now, in a transaction of its own, so that
     * the tenure starts at the database before its first statement: {@code lease.claimEpoch(dataSource)}
     * right after acquiring does this. Through a {@link FencingDataSource} the claim is remembered, and
     * its connections send no claim of their own for this fence; so it is when the data source hands out
     * connections fenced by the {@code jdbc:fencing:} driver or the agent (the claim is remembered by
     * their configuration's context, the epoch table is theirs). With any other data source the
     * epoch table is {@value #DEFAULT_TABLE}.
     *
     * @throws dev.fencing.StaleFenceException when the epoch row already holds a newer fence: the lock has
     *         passed on
     */
    public static void claim(DataSource dataSource, String lockName, long fence) throws SQLException {
        FencingDataSource fencing = fencingOf(dataSource);
        claim(dataSource, fencing == null ? null : fencing.config().epochTable(), fencing, lockName, fence);
    }

    /** Like {@link #claim(DataSource, String, long)}, with the epoch table of {@code config}. */
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
        EpochClaim.claim(dataSource, fencing == null ? null : fencing.context(), table, lockName, fence);
    }

    private static FencingDataSource fencingOf(DataSource dataSource) throws SQLException {
        Objects.requireNonNull(dataSource, "dataSource");
        if (dataSource instanceof FencingDataSource fencing) {
            return fencing;
        }
        return null;
    }
}
