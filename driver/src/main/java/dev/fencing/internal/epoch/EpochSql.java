package dev.fencing.internal.epoch;

import dev.fencing.FencingException;
import dev.fencing.internal.sql.Dialect;

/**
 * The statements on the epoch table, one set per dialect. The epoch table holds one row per
 * lock: {@code lock_name} (primary key) and {@code fence}, the newest fence whose tenure has been
 * claimed. The row only ever grows.
 *
 * <ul>
 *   <li>{@link #raise()}: {@code UPDATE .. SET fence = ? WHERE lock_name = ? AND fence <= ?}; both the
 *       claim and the per-transaction check: it raises the epoch row to the token when the token is not
 *       older, and the database locks the row until the transaction ends.</li>
 *   <li>{@link #insertIfAbsent()}: creates the row, doing nothing (and raising no error inside the
 *       application's transaction) when it exists.</li>
 *   <li>{@link #read()}: the epoch row's fence, after a raise changed no row: to tell a newer fence
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
        this.read = "SELECT fence FROM " + table + " WHERE lock_name = ?" + (dialect.epochReadLocks() ? " FOR UPDATE" : "");
    }

    /**
     * The statements for {@code dialect} on epoch table {@code table}.
     *
     * @throws FencingException for a database other than PostgreSQL, MariaDB/MySQL or H2
     */
    public static EpochSql of(Dialect dialect, String table) throws FencingException {
        String insertIfAbsent = dialect.epochInsertIfAbsent(table);
        if (insertIfAbsent == null) {
            throw unsupported(table);
        }
        return new EpochSql(dialect, table, insertIfAbsent);
    }

    private static FencingException unsupported(String table) {
        return new FencingException("epoch mode needs PostgreSQL, MariaDB/MySQL or H2: the epoch"
                + " table " + table + " cannot be claimed and checked on this database without an error"
                + " inside the application's transaction; use fencing.mode=row for its tables");
    }

    /** The DDL of the epoch table (idempotent: {@code IF NOT EXISTS}). */
    public static String createTable(Dialect dialect, String table) throws FencingException {
        String ddl = dialect.epochTableDdl(table);
        if (ddl == null) {
            throw unsupported(table);
        }
        return ddl;
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
     * {@code useAffectedRows=true} counts changed rows, and an epoch row already at the fence is not changed.
     */
    public boolean raiseMayMatchUnchanged() {
        return dialect.countsChangedRowsOnly();
    }

    /** True when a duplicate key on {@link #insertIfAbsent()} can still surface as an error to ignore. */
    public boolean duplicateKeyIsAnError() {
        return dialect.epochDuplicateKeyIsAnError();
    }
}
