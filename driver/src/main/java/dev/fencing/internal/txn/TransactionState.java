package dev.fencing.internal.txn;

import dev.fencing.FencingException;
import dev.fencing.internal.sql.Dialect;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * What the driver knows about the transaction of one fenced connection, kept in one place: whether
 * a transaction is open, its savepoints, and every way it ends.
 *
 * <p><b>Sources</b>, each reported by the code that sees it:
 * <ul>
 *   <li>JDBC calls on the fenced connection: {@code commit}, {@code rollback},
 *       {@code rollback(Savepoint)}, {@code setSavepoint}, {@code releaseSavepoint},
 *       {@code setAutoCommit};</li>
 *   <li>transaction control sent as SQL text ({@code BEGIN}, {@code COMMIT}, {@code ROLLBACK},
 *       {@code SAVEPOINT}, {@code ROLLBACK TO}, {@code RELEASE}, DDL that MariaDB and H2 commit
 *       implicitly), classified by {@link TransactionText} and reported after the text ran;</li>
 *   <li>errors with which the server ends the transaction: SQLState class 40 (deadlock,
 *       serialization failure), MariaDB error 1205 when the server runs with
 *       {@code innodb_rollback_on_timeout=ON} (asked once, at the first 1205), a lost connection;</li>
 *   <li>the driver's own short transactions (the epoch guard's).</li>
 * </ul>
 *
 * <p><b>For whoever caches something per transaction</b> (the epoch guard's checks and claims,
 * the database guard's transaction-local values):
 * <ul>
 *   <li>{@link #generation()} changes at every end, partial ones (rollback to a savepoint) and
 *       possible ones included: a value noted with the generation is still true while it is equal;</li>
 *   <li>{@link #undoGeneration()} changes only when something may have been undone (a rollback,
 *       full or to a savepoint, or an end whose outcome is unknown): for values a commit keeps,
 *       such as a session setting made inside a transaction;</li>
 *   <li>a {@link Listener} hears each end with its {@link End}: only {@link End#COMMITTED} means
 *       that what the transaction did is durable;</li>
 *   <li>{@link #inTransaction()} says whether statements now run inside a transaction that stays
 *       open after them. When the driver cannot know it asks the database, and when that fails too it
 *       throws: the caller fails closed.</li>
 * </ul>
 * Used by one thread at a time, like the connection.
 */
public final class TransactionState {

    /** How a transaction, or part of it, ended. */
    public enum End {
        /** Committed: what it did is durable. */
        COMMITTED,
        /** Rolled back as a whole. */
        ROLLED_BACK,
        /** Rolled back to a savepoint: what came after it is undone, the transaction goes on. */
        ROLLED_BACK_TO_SAVEPOINT,
        /** It may have ended, committed or rolled back, or not: treat it as rolled back and ended. */
        UNKNOWN
    }

    /** Told of every end, in the order they happen. */
    @FunctionalInterface
    public interface Listener {
        void transactionEnded(End end);
    }

    private static final Listener[] NO_LISTENERS = new Listener[0];

    private final Connection database;
    private final Dialect dialect;
    private Listener[] listeners = NO_LISTENERS;

    private long generation;
    private long undoGeneration;
    /** A transaction opened by BEGIN text while JDBC auto-commit is on (the driver's flag does not show it). */
    private boolean textTransaction;
    /** Whether a transaction is open cannot be told from what the driver saw: ask the database. */
    private boolean opennessUnknown;
    /** Savepoints of the open transaction, oldest first: JDBC {@link Savepoint}s or names sent as text. */
    private List<Object> savepoints;
    /** MariaDB's innodb_rollback_on_timeout, once asked; null until then. */
    private Boolean rollbackOnTimeout;
    /**
     * PostgreSQL: a statement failed in the open transaction, so the server ends it with a rollback
     * whatever ends it (COMMIT, END, {@code commit()}, {@code setAutoCommit(true)}): pgjdbc raises
     * nothing and the command tag says ROLLBACK. Asked of pgjdbc before such an end where it can
     * tell ({@link PostgresTransactionStatus}); else what the driver saw.
     */
    private boolean failed;
    /** The end about to happen is a commit of a failed transaction: report it as a rollback. */
    private boolean commitIsRollback;

    public TransactionState(Connection database, Dialect dialect) {
        this.database = database;
        this.dialect = dialect;
    }

    /** Adds a listener of transaction ends. */
    public void addListener(Listener listener) {
        Listener[] more = java.util.Arrays.copyOf(listeners, listeners.length + 1);
        more[listeners.length] = listener;
        listeners = more;
    }

    /** Changes at every end of a transaction, partial and possible ones included. */
    public long generation() {
        return generation;
    }

    /** Changes whenever something done in a transaction may have been undone. */
    public long undoGeneration() {
        return undoGeneration;
    }

    /** How many savepoints the open transaction has, as far as the driver saw them set. */
    public int savepoints() {
        return savepoints == null ? 0 : savepoints.size();
    }

    /**
     * True when statements run inside a transaction that stays open after them: JDBC auto-commit
     * is off, or a {@code BEGIN} sent as text opened one. When what the driver saw cannot tell (a
     * text that may have begun or ended one), the database is asked.
     *
     * @throws FencingException when it cannot be known: the caller must not rely on either answer
     */
    public boolean inTransaction() throws SQLException {
        if (!database.getAutoCommit()) {
            return true;
        }
        if (opennessUnknown) {
            textTransaction = askDatabaseInTransaction();
            opennessUnknown = false;
        }
        return textTransaction;
    }

    /** True while the driver cannot tell, without asking the database, whether a transaction is open. */
    public boolean opennessUnknown() {
        return opennessUnknown;
    }

    // ---- JDBC calls ------------------------------------------------------------------------------

    /**
     * Before a commit is sent ({@code commit()}, {@code setAutoCommit(true)}, a COMMIT or END text):
     * on PostgreSQL, whether the server will roll back instead, asked of pgjdbc where it can tell.
     */
    public void beforeCommit() {
        if (!dialect.errorFailsTheTransaction()) {
            return;
        }
        Boolean serverFailed = PostgresTransactionStatus.failed(database);
        commitIsRollback = serverFailed != null ? serverFailed : failed;
    }

    /** The end a commit had: a rollback when the transaction had failed. */
    private End commitEnd() {
        boolean rolledBack = commitIsRollback;
        commitIsRollback = false;
        return rolledBack ? End.ROLLED_BACK : End.COMMITTED;
    }

    /** {@code Connection.commit()} returned, or threw ({@code succeeded} false). */
    public void afterCommit(boolean succeeded) {
        if (succeeded) {
            // MariaDB Connector/J commits a BEGIN text's transaction even under auto-commit
            textTransaction = false;
        } else {
            opennessUnknown = true;
        }
        ended(succeeded ? commitEnd() : End.UNKNOWN);
    }

    /** {@code Connection.rollback()} returned, or threw. */
    public void afterRollback(boolean succeeded) {
        if (succeeded) {
            textTransaction = false;
        } else {
            opennessUnknown = true;
        }
        ended(succeeded ? End.ROLLED_BACK : End.UNKNOWN);
    }

    /** {@code Connection.rollback(savepoint)} returned, or threw. */
    public void afterRollbackTo(Object savepoint, boolean succeeded) {
        if (succeeded) {
            dropAfter(savepoint, false);
            ended(End.ROLLED_BACK_TO_SAVEPOINT);
        } else {
            ended(End.UNKNOWN);
        }
    }

    /** A savepoint was set (by {@code setSavepoint}, or {@code SAVEPOINT name} as text). */
    public void savepointSet(Object savepoint) {
        if (savepoints == null) {
            savepoints = new ArrayList<>(4);
        }
        savepoints.add(savepoint);
    }

    /** A savepoint was released: it and the ones set after it are gone, nothing is undone. */
    public void savepointReleased(Object savepoint) {
        dropAfter(savepoint, true);
    }

    /**
     * {@code setAutoCommit(now)} returned (or threw, {@code succeeded} false) on a connection whose
     * auto-commit was {@code before}. Switching it on commits the open transaction.
     */
    public void afterSetAutoCommit(boolean before, boolean now, boolean succeeded) {
        if (!succeeded) {
            ended(End.UNKNOWN);
            opennessUnknown = true;
        } else if (!before && now) {
            ended(commitEnd());
        } else if (before && !now && textTransaction) {
            // the BEGIN text's transaction goes on, now under the JDBC flag
            textTransaction = false;
        }
    }

    // ---- SQL text --------------------------------------------------------------------------------

    /** A statement text with {@code effect} ran, successfully or not. */
    public void afterText(TransactionText.Effect effect, boolean succeeded) throws SQLException {
        if (effect == TransactionText.Effect.NONE) {
            return;
        }
        if (!succeeded) {
            ended(End.UNKNOWN);
            opennessUnknown = true;
            return;
        }
        switch (effect) {
            case BEGIN -> {
                if (database.getAutoCommit()) {
                    textTransaction = true;
                    opennessUnknown = false;
                }
            }
            case COMMIT, IMPLICIT_COMMIT -> {
                textTransaction = false;
                ended(commitEnd());
            }
            case ROLLBACK -> {
                textTransaction = false;
                ended(End.ROLLED_BACK);
            }
            case SAVEPOINT -> savepointSet(TEXT_SAVEPOINT);
            case ROLLBACK_TO_SAVEPOINT -> ended(End.ROLLED_BACK_TO_SAVEPOINT);
            case RELEASE_SAVEPOINT -> {
                // savepoints named in text are not told apart: the count is only what the driver saw
                if (savepoints != null && !savepoints.isEmpty()) {
                    savepoints.remove(savepoints.size() - 1);
                }
            }
            default -> {
                ended(End.UNKNOWN);
                opennessUnknown = true;
            }
        }
    }

    /** Marks a savepoint set by text (its name is not kept). */
    private static final Object TEXT_SAVEPOINT = new Object();

    // ---- errors --------------------------------------------------------------------------------

    /**
     * A statement failed with {@code failure}: when the server ends the transaction with such an
     * error, that end is reported (class 40: rolled back; a lost connection: unknown; MariaDB's
     * lock wait timeout: rolled back when the server rolls back on timeout).
     */
    public void afterFailure(Throwable failure) {
        if (dialect.errorFailsTheTransaction()) {
            failed |= failedInTransaction();
        }
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql) {
                String state = sql.getSQLState();
                if (state != null && state.startsWith("40")) {
                    textTransaction = false;
                    opennessUnknown = true;
                    ended(End.ROLLED_BACK);
                    return;
                }
                if (state != null && state.startsWith("08")) {
                    opennessUnknown = true;
                    ended(End.UNKNOWN);
                    return;
                }
                if (dialect.isLockWaitTimeout(sql)) {
                    afterLockWaitTimeout();
                    return;
                }
            }
        }
    }

    private void afterLockWaitTimeout() {
        Boolean rollsBack = rollbackOnTimeout;
        if (rollsBack == null) {
            try (Statement ask = database.createStatement();
                 ResultSet rows = ask.executeQuery("SELECT @@innodb_rollback_on_timeout")) {
                rollsBack = rows.next() && rows.getBoolean(1);
                rollbackOnTimeout = rollsBack;
            } catch (SQLException | RuntimeException e) {
                opennessUnknown = true;
                ended(End.UNKNOWN);
                return;
            }
        }
        if (rollsBack) {
            textTransaction = false;
            ended(End.ROLLED_BACK);
        }
        // else: only the statement was rolled back; the transaction and what it holds go on
    }

    /** True when a statement that just failed was inside a transaction block (PostgreSQL then aborts it). */
    private boolean failedInTransaction() {
        try {
            return textTransaction || !database.getAutoCommit();
        } catch (SQLException | RuntimeException cannotTell) {
            return true;
        }
    }

    // ---- ---------------------------------------------------------------------------------------

    private void ended(End end) {
        failed = false;
        commitIsRollback = false;
        generation++;
        if (end != End.COMMITTED) {
            undoGeneration++;
        }
        if (end != End.ROLLED_BACK_TO_SAVEPOINT) {
            savepoints = null;
        }
        for (Listener listener : listeners) {
            listener.transactionEnded(end);
        }
    }

    /** Removes the savepoints set after {@code savepoint}, and it too when {@code inclusive}. */
    private void dropAfter(Object savepoint, boolean inclusive) {
        if (savepoints == null) {
            return;
        }
        int at = savepoints.indexOf(savepoint);
        if (at < 0) {
            return;
        }
        int keep = inclusive ? at : at + 1;
        savepoints.subList(keep, savepoints.size()).clear();
    }

    /** Asks the database whether a transaction is open on this connection (JDBC auto-commit is on). */
    private boolean askDatabaseInTransaction() throws SQLException {
        if (dialect.autoCommitReportsTextTransactions()) {
            return false; // getAutoCommit() would have reported a BEGIN, and it was true
        }
        if (dialect.inTransactionQuery() != null) {
            return askWithQuery(dialect.inTransactionQuery());
        }
        if (dialect.savepointProbesTheTransaction()) {
            return askPostgresInTransaction();
        }
        throw cannotTell(null);
    }

    /**
     * pgjdbc's own reading of the server's transaction status, else a savepoint: the server accepts
     * one only inside a transaction block (25P01 outside; 25P02 inside a failed one). Comparing
     * {@code now()} with {@code statement_timestamp()} cannot tell: under the extended protocol the
     * two differ in a single auto-commit statement too.
     */
    private boolean askPostgresInTransaction() throws SQLException {
        Boolean open = PostgresTransactionStatus.open(database);
        if (open != null) {
            return open;
        }
        try (Statement ask = database.createStatement()) {
            ask.execute("SAVEPOINT fencing_probe");
            ask.execute("RELEASE SAVEPOINT fencing_probe");
            return true;
        } catch (SQLException e) {
            if ("25P01".equals(e.getSQLState())) {
                return false;
            }
            if ("25P02".equals(e.getSQLState())) {
                return true;
            }
            throw cannotTell(e);
        }
    }

    private boolean askWithQuery(String probe) throws SQLException {
        try (Statement ask = database.createStatement(); ResultSet rows = ask.executeQuery(probe)) {
            if (rows.next()) {
                return rows.getBoolean(1);
            }
            throw cannotTell(null);
        } catch (SQLException e) {
            throw cannotTell(e);
        }
    }

    private static FencingException cannotTell(SQLException cause) {
        return new FencingException("fencing-jdbc cannot tell whether a transaction is open on this connection: a"
                + " statement text may have begun or ended one, and the database could not be asked. Nothing was"
                + " sent. Use Connection.setAutoCommit(false) with commit()/rollback() instead of transaction"
                + " control in SQL text, or end the transaction with commit() or rollback() first.", cause);
    }
}
