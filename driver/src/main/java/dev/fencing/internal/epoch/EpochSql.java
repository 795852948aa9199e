package dev.fencing.internal.epoch;

import dev.fencing.FencingException;
import dev.fencing.internal.sql.Dialect;

/**
 * The statements on the epoch guard table, one set per dialect. The guard table holds one row per
 * lock: {@code lock_name} (primary key) and {@code fence}, the newest fence whose tenure has been
 * claimed. The row only ever grows.
 *
 * <ul>
 *   <li>{@link #raise()}: {@code UPDATE .. SET fence = ? WHERE lock_name = ? AND fence <= ?}; both the
 *       claim and the per-transaction check: it raises the guard to the token when the token is not
 *       older, and the database locks the row until the transaction ends.</li>
 *   <li>{@link #insertIfAbsent()}: creates the row, doing nothing (and raising no error inside the
 *       application's transaction) when it exists.</li>
 *   <li>{@link #read()}: the guard's fence, after a raise changed no row: to tell a newer fence
 *       (stale) from a race with a concurrent insert. On PostgreSQL and H2 a plain read (a raise
 *       that found the row sees what it sees; a stale transaction should not lock the row the new
 *       tenure needs); on MariaDB a locking read, since InnoDB's UPDATE already locked the row it
 *       examined and a plain read there may see an older snapshot.</li>
 * </ul>
 */
public final class EpochSql {

    private final Dialect dialect;
    private final String table;
    private final String raise;
    private final String insertIfAbsent;
    private final String read;

    private EpochSql(Dialect dialect, String table, String insertIfAbsent) {
        this.dialect = dialect;
        this.table = table;
        this.raise = "UPDATE " + table + " SET fence = ? WHERE lock_name = ? AND fence <= ?";
        this.insertIfAbsent = insertIfAbsent;
        this.read = "SELECT fence FROM " + table + " WHERE lock_name = ?"
                + (dialect == Dialect.MARIADB ? " FOR UPDATE" : "");
    }

    /**
     * The statements for {@code dialect} on guard table {@code table}.
     *
     * @throws FencingException for a database other than PostgreSQL, MariaDB/MySQL or H2
     */
    public static EpochSql of(Dialect dialect, String table) throws FencingException {
        return switch (dialect) {
            // ON CONFLICT DO NOTHING: a row that exists is not an error, so the transaction goes on
            case POSTGRESQL -> new EpochSql(dialect, table,
                    "INSERT INTO " + table + " (lock_name, fence) VALUES (?, ?) ON CONFLICT (lock_name) DO NOTHING");
            // INSERT IGNORE turns the duplicate key into a warning; the lock name's length is
            // checked before (IGNORE would also truncate a long one)
            case MARIADB -> new EpochSql(dialect, table,
                    "INSERT IGNORE INTO " + table + " (lock_name, fence) VALUES (?, ?)");
            // H2 rolls back only the failed statement on a duplicate key, never the transaction;
            // MERGE .. WHEN NOT MATCHED avoids the error in all but a concurrent insert
            case H2 -> new EpochSql(dialect, table,
                    "MERGE INTO " + table + " g USING (VALUES (CAST(? AS VARCHAR(255)), CAST(? AS BIGINT)))"
                            + " AS v (lock_name, fence) ON g.lock_name = v.lock_name"
                            + " WHEN NOT MATCHED THEN INSERT (lock_name, fence) VALUES (v.lock_name, v.fence)");
            case GENERIC -> throw new FencingException("epoch mode needs PostgreSQL, MariaDB/MySQL or H2: the guard"
                    + " table " + table + " cannot be claimed and checked on this database without an error"
                    + " inside the application's transaction; use fencing.mode=row for its tables");
        };
    }

    /** The DDL of the guard table (idempotent: {@code IF NOT EXISTS}). */
    public static String createTable(Dialect dialect, String table) throws FencingException {
        return switch (dialect) {
            case POSTGRESQL, H2 -> "CREATE TABLE IF NOT EXISTS " + table
                    + " (lock_name VARCHAR(255) PRIMARY KEY, fence BIGINT NOT NULL)";
            // binary collation: lock names compare exactly, as in the other databases
            case MARIADB -> "CREATE TABLE IF NOT EXISTS " + table
                    + " (lock_name VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PRIMARY KEY,"
                    + " fence BIGINT NOT NULL) ENGINE=InnoDB";
            case GENERIC -> {
                of(dialect, table);
                throw new AssertionError();
            }
        };
    }

    public Dialect dialect() {
        return dialect;
    }

    public String table() {
        return table;
    }

    /** Binds (token, lock, token). */
    public String raise() {
        return raise;
    }

    /** Binds (lock, token). */
    public String insertIfAbsent() {
        return insertIfAbsent;
    }

    /** Binds (lock). */
    public String read() {
        return read;
    }

    /**
     * True when a raise that changed no row may still have matched (and locked) it: MariaDB with
     * {@code useAffectedRows=true} counts changed rows, and a guard already at the fence is not changed.
     */
    public boolean raiseMayMatchUnchanged() {
        return dialect == Dialect.MARIADB;
    }

    /** True when a duplicate key on {@link #insertIfAbsent()} can still surface as an error to ignore. */
    public boolean duplicateKeyIsAnError() {
        return dialect == Dialect.H2;
    }
}
