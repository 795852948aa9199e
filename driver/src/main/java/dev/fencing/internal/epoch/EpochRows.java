package dev.fencing.internal.epoch;

import dev.fencing.internal.txn.TransactionState;
import dev.fencing.internal.txn.TransactionText;
import dev.fencing.internal.txn.ShortTransaction;
import dev.fencing.FencingException;
import dev.fencing.StaleFenceException;
import dev.fencing.internal.sql.Dialect;
import dev.fencing.internal.sql.FencePlan;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The epoch rows of one fenced connection (only when some fenced table is in {@code epoch} mode):
 * it claims the row of a tenure's lock and checks it in every transaction that writes.
 *
 * <p><b>Claim.</b> Before the first statement a tenure sends through this connection (a read too),
 * the epoch row of the fence's lock is raised to the fence ({@link EpochSql#raise()}, creating the
 * row when absent), and <em>committed before that statement is sent</em>: a claim that the
 * application's transaction could still roll back (to a savepoint too) would let the stale holder
 * in again after the new holder has read. So the claim runs in a transaction of its own on this
 * connection: in auto-commit as one statement; in a transaction that has sent nothing yet, as
 * that transaction, committed at once (the application's transaction then begins with its
 * statement, its snapshot taken after the claim). Anywhere else (the transaction has sent
 * statements, set a savepoint, or was begun by SQL text) no claim can be made durable without a
 * second connection, which a saturated pool or {@code DriverManager} under the agent may not
 * have: the statement is refused and the message says how to claim in time. An epoch row that
 * already holds a newer fence means the tenure is over: {@link StaleFenceException}, and the
 * statement is not sent. Claims are remembered in {@link EpochClaims} (shared by the connection
 * context's connections to the same database, so one claim serves every connection of a pool).
 *
 * <p><b>Check.</b> Every transaction that writes an epoch-mode table raises the epoch row again
 * before its first write, in the same transaction: the row is locked until the transaction ends,
 * so a stale holder's transaction is ordered entirely before the new tenure's claim (and is then
 * visible to its reads) or entirely after it (and is rejected). An auto-commit write runs in a
 * short transaction with its check: auto-commit off, check, write, commit (rollback on any
 * failure), auto-commit back on.
 *
 * <p>What this connection checked is forgotten at every end of the transaction that
 * {@link TransactionState} reports (JDBC calls, transaction control sent as text, errors with which
 * the server ends it, implicit commits); claims made in it are remembered as durable only when it
 * reports {@link TransactionState.End#COMMITTED}. Whether a write runs in the application's
 * transaction or needs a short one of its own is {@link TransactionState#inTransaction()}'s answer,
 * so a transaction opened by {@code BEGIN} text under auto-commit is the one checked.
 *
 * <p>Its statements run on the driver's own connection (no analysis) and are prepared once per
 * connection. Used by one thread at a time, like the connection.
 */
public final class EpochRows {

    /** The epoch table's {@code lock_name} column length. */
    public static final int MAX_LOCK_NAME = 255;

    private final Connection database;
    private final Dialect dialect;
    private final String epochTable;
    private final EpochClaims claims;
    private final TransactionState transaction;

    private EpochSql sql;
    private PreparedStatement raise;
    private PreparedStatement insert;
    private PreparedStatement read;

    /** Locks checked (and locked) in the open transaction, with the fence; null when none. */
    private Map<String, Long> checked;
    /** Claims made inside the open transaction, durable once it commits; null when none. */
    private Map<String, Long> pending;
    /** True while the short transaction of an auto-commit write is open. */
    private boolean shortTransaction;
    /**
     * True when the open transaction has sent something (or may have): committing it for a claim
     * would commit the application's work, or end a transaction it began by text.
     */
    private boolean sentInTransaction;

    public EpochRows(Connection database, Dialect dialect, String epochTable, EpochClaims claims,
               TransactionState transaction) {
        this.database = database;
        this.dialect = dialect;
        this.epochTable = epochTable;
        this.claims = claims;
        this.transaction = transaction;
        transaction.addListener(end -> {
            if (end == TransactionState.End.COMMITTED || end == TransactionState.End.ROLLED_BACK) {
                sentInTransaction = false;
            }
            transactionEnded(end == TransactionState.End.COMMITTED);
        });
    }

    // ---- before and after a statement is sent ----------------------------------------------

    /**
     * First of all before a statement is sent under the admitted {@code fence} of {@code lock}
     * (0 and null when none is in scope): makes the tenure's claim durable, unless it is known to
     * be. Runs before anything else is sent for the statement (the database guard's send hook included),
     * since a claim made at the start of a transaction commits that transaction. Texts that only
     * end or undo (part of) the transaction claim nothing: they read no data, and a stale holder
     * must be able to roll back.
     */
    public void claimBeforeSend(FencePlan plan, long fence, String lock, TransactionText.Effect effect)
            throws SQLException {
        if (lock != null && !endsOrUndoes(effect)) {
            claim(lock, fence, plan.writesEpochTable() ? plan.fencedTable() : null);
        }
    }

    private static boolean endsOrUndoes(TransactionText.Effect effect) {
        return effect == TransactionText.Effect.COMMIT || effect == TransactionText.Effect.ROLLBACK
                || effect == TransactionText.Effect.ROLLBACK_TO_SAVEPOINT
                || effect == TransactionText.Effect.RELEASE_SAVEPOINT;
    }

    /**
     * Before {@code plan} is sent, after {@link #claimBeforeSend}: checks the epoch row when it writes
     * an epoch-mode table (opening the short transaction in auto-commit). Anything it throws means
     * nothing was sent and no short transaction is left open.
     */
    public void beforeSend(FencePlan plan, long fence, String lock) throws SQLException {
        // admission refused such a write without a fence naming its lock
        if (plan.writesEpochTable() && !isChecked(lock, fence, plan.fencedTable())) {
            check(new String[] {lock}, new long[] {fence}, 1, plan.fencedTable());
        }
    }

    /**
     * First of all before a batch is sent: makes the claim of every distinct (lock, fence) its
     * entries carry durable, and the claim of the fence in scope now.
     */
    public void claimBeforeBatch(EpochBatch log, long fence, String lock) throws SQLException {
        if (log != null && log.epochWrites() > 0 && !log.controlsTransaction()) {
            String[] locks = log.epochLocks();
            long[] fences = log.epochFences();
            for (int i = 0; i < locks.length; i++) {
                claim(locks[i], fences[i], log.epochModeTable());
            }
        }
        if (lock != null) {
            claim(lock, fence, null);
        }
    }

    /**
     * After a statement or batch was settled (sent or failed, and {@link TransactionState} told):
     * whatever it was, a transaction still open after it has sent something.
     */
    public void settled() {
        try {
            // under auto-commit no claim commits anything but itself (a transaction begun by text is refused)
            sentInTransaction = !database.getAutoCommit();
        } catch (SQLException | RuntimeException e) {
            sentInTransaction = true;   // cannot tell: no claim will commit a transaction that may hold work
        }
    }

    /** Before a batch is sent, after {@link #claimBeforeBatch}: checks the epoch row of every distinct (lock, fence) its entries carry. */
    public void beforeBatch(EpochBatch log, long fence, String lock) throws SQLException {
        if (log != null && log.epochWrites() > 0) {
            if (log.controlsTransaction()) {
                throw new dev.fencing.UnfenceableStatementException(log.epochModeTable(), "a batch that writes epoch-mode"
                        + " table " + log.epochModeTable() + " must not also begin, commit or roll back the transaction in"
                        + " its SQL: the epoch row's check and the write must share one transaction. Use"
                        + " Connection.commit()/rollback() instead; nothing was sent.");
            }
            String[] locks = log.epochLocks();
            long[] fences = log.epochFences();
            int n = 0;
            for (int i = 0; i < locks.length; i++) {
                if (!isChecked(locks[i], fences[i], log.epochModeTable())) {
                    locks[n] = locks[i];
                    fences[n] = fences[i];
                    n++;
                }
            }
            if (n > 0) {
                check(locks, fences, n, log.epochModeTable());
            }
        }
    }

    /** After a statement or batch was sent and its result checked: commits the short transaction. */
    public void afterSend() throws SQLException {
        if (shortTransaction) {
            endShortTransaction(null);
        }
    }

    /**
     * After sending failed (or its result was rejected): rolls the short transaction back; what
     * goes wrong doing so is added to {@code failure}. (What the failure did to the application's
     * transaction is {@link TransactionState}'s to tell.)
     */
    public void afterFailure(Throwable failure) {
        if (shortTransaction) {
            try {
                endShortTransaction(failure);
            } catch (SQLException e) {
                failure.addSuppressed(e);
            }
        }
    }

    /**
     * A transaction ended ({@link TransactionState} tells): what was checked in it is forgotten;
     * claims made in it are remembered only when it {@code committed}.
     */
    private void transactionEnded(boolean committed) {
        if (committed && pending != null) {
            pending.forEach(claims::committed);
        }
        pending = null;
        checked = null;
    }

    // ---- claim and check ----------------------------------------------------------------------

    /**
     * Raises the epoch row of {@code lock} to {@code fence} and commits it, unless it is known to be
     * committed there already; refuses when it cannot be committed without committing the
     * application's work.
     */
    public void claim(String lock, long fence, String table) throws SQLException {
        if (isClaimed(lock, fence, table)) {
            return;
        }
        if (!transaction.inTransaction()) {
            raiseForClaim(lock, fence, table);
            claims.committed(lock, fence);
            return;
        }
        if (database.isReadOnly()) {
            // refused before sending: a failed UPDATE would abort the application's transaction
            throw readOnly(lock, fence, null);
        }
        if (sentInTransaction || shortTransaction || transaction.savepoints() > 0 || database.getAutoCommit()) {
            throw claimTooLate(lock, fence);
        }
        // nothing sent in this transaction yet: the claim is all it holds, committed before the statement
        boolean committed = false;
        try {
            raise(lock, fence, table);
            database.commit();
            committed = true;
        } catch (SQLException | RuntimeException | Error e) {
            boolean rolledBack = false;
            try {
                database.rollback();
                rolledBack = true;
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            transaction.afterRollback(rolledBack);
            throw e;
        }
        transaction.afterCommit(committed);
        claims.committed(lock, fence);
    }

    private FencingException claimTooLate(String lock, long fence) throws SQLException {
        String where = transaction.savepoints() > 0 ? "a savepoint was set in it"
                : database.getAutoCommit() ? "it was begun by SQL text" : "it has already sent statements";
        return new FencingException("no committed claim of the tenure of lock '" + lock + "' with fence " + fence
                + " is known to this connection, and it cannot claim inside the open transaction (" + where + "): a claim"
                + " the transaction could still roll back would let the previous holder write after this one has"
                + " read. Nothing was sent. Claim the tenure before the transaction: lease.claimEpoch(dataSource)"
                + " right after acquiring the lock (or EpochTable.claim(dataSource, lock, fence)) on the data"
                + " source this connection comes from, or run the tenure's first statement with auto-commit on, or"
                + " as the first statement of a transaction begun with setAutoCommit(false).");
    }

    /** An auto-commit claim; on a read-only connection its failure says what to do instead. */
    private void raiseForClaim(String lock, long fence, String table) throws SQLException {
        try {
            raise(lock, fence, table);
        } catch (StaleFenceException e) {
            throw e;
        } catch (SQLException e) {
            if (database.isReadOnly()) {
                throw readOnly(lock, fence, e);
            }
            throw e;
        }
    }

    private FencingException readOnly(String lock, long fence, SQLException cause) {
        return new FencingException("a read-only connection cannot claim the epoch row of lock '" + lock
                + "' for fence " + fence + " (the claim raises its row in " + epochTable + "); nothing was sent."
                + " Claim the tenure first on a read-write connection: lease.claimEpoch(fencingDataSource) or"
                + " EpochTable.claim(fencingDataSource, lock, fence), after which the data source's connections"
                + " need no claim of their own.", cause);
    }

    /**
     * True when the claim of (lock, fence) is known to be committed: by any connection sharing the
     * claims, or before this transaction checked it. A newer fence known for the lock, committed or
     * checked in the open transaction, means the tenure is over.
     */
    private boolean isClaimed(String lock, long fence, String table) throws StaleFenceException {
        long committed = claims.claimed(lock);
        if (committed > fence) {
            throw stale(lock, fence, OptionalLong.of(committed), table);
        }
        if (committed == fence) {
            return true;
        }
        Long inTransaction = pending == null ? null : pending.get(lock);
        if (inTransaction != null && inTransaction > fence) {
            throw stale(lock, fence, OptionalLong.of(inTransaction), table);
        }
        // checked in this transaction: every check follows its committed claim
        return inTransaction != null && inTransaction == fence;
    }

    /** True when the open transaction has checked (lock, fence); a newer fence checked in it means stale. */
    private boolean isChecked(String lock, long fence, String table) throws SQLException {
        if (checked != null && !transaction.inTransaction()) {
            // the transaction the check belonged to is not open any more
            transactionEnded(false);
        }
        Long done = checked == null ? null : checked.get(lock);
        if (done == null) {
            return false;
        }
        if (done > fence) {
            throw stale(lock, fence, OptionalLong.of(done), table);
        }
        return done == fence;
    }

    /**
     * Checks (and locks) the epoch rows of the first {@code n} (lock, fence) pairs in the current
     * transaction, opening the short transaction when the connection is in auto-commit. On
     * failure the short transaction is rolled back before the exception leaves.
     */
    private void check(String[] locks, long[] fences, int n, String table) throws SQLException {
        for (int i = 0; i < n; i++) {
            // a newer tenure known here: no statement, no transaction
            long committed = claims.claimed(locks[i]);
            if (committed > fences[i]) {
                throw stale(locks[i], fences[i], OptionalLong.of(committed), table);
            }
        }
        if (!transaction.inTransaction()) {
            ShortTransaction.open(database);
            shortTransaction = true;
        }
        try {
            for (int i = 0; i < n; i++) {
                raise(locks[i], fences[i], table);
                remember(locks[i], fences[i]);
            }
        } catch (SQLException | RuntimeException | Error e) {
            afterFailure(e);
            throw e;
        }
    }

    /** The epoch row of (lock, fence) was raised and locked in the open transaction. */
    private void remember(String lock, long fence) {
        if (checked == null) {
            checked = new HashMap<>(4);
        }
        checked.put(lock, fence);
        if (pending == null) {
            pending = new HashMap<>(4);
        }
        pending.merge(lock, fence, Math::max);
    }

    private void endShortTransaction(Throwable failure) throws SQLException {
        shortTransaction = false;
        ShortTransaction.end(database, transaction, failure);
    }

    /**
     * Raises the epoch row of {@code lock} to {@code fence} in the current transaction, creating the row
     * when absent, and leaves it locked; a newer fence on it is a {@link StaleFenceException}.
     */
    public void raise(String lock, long fence, String table) throws SQLException {
        if (lock.length() > MAX_LOCK_NAME) {
            throw new FencingException("the lock name '" + lock.substring(0, 40) + "..' is longer than "
                    + MAX_LOCK_NAME + " characters, the length of " + epochTable + ".lock_name");
        }
        try {
            statements();
        } catch (SQLException e) {
            throw missingTable(e);
        }
        for (int attempt = 0; attempt < 3; attempt++) {
            raise.setLong(1, fence);
            raise.setString(2, lock);
            raise.setLong(3, fence);
            int raised;
            try {
                raised = raise.executeUpdate();
            } catch (SQLException e) {
                throw missingTable(e);
            }
            if (raised > 0) {
                return;
            }
            if (insertIfAbsent(lock, fence)) {
                return;
            }
            OptionalLong current = readEpochRow(lock);
            if (current.isPresent()) {
                if (current.getAsLong() > fence) {
                    throw stale(lock, fence, current, table);
                }
                if (current.getAsLong() == fence && sql.raiseMayMatchUnchanged()) {
                    // matched and locked, not changed: a MariaDB connection with useAffectedRows=true says 0
                    return;
                }
            }
            // older, equal or absent now: a concurrent insert came between; raise again (and lock)
        }
        throw new FencingException("the epoch row of lock '" + lock + "' in " + epochTable
                + " could not be raised to fence " + fence + ": it changed under three attempts");
    }

    /** An epoch table that does not exist is explained; any other failure is returned as it is. */
    private SQLException missingTable(SQLException e) {
        String state = e.getSQLState();
        if ("42P01".equals(state) || "42S02".equals(state)) {
            return new FencingException("the epoch table " + epochTable + " does not exist (fencing.epoch-table):"
                    + " create it once with EpochTable.createTable(dataSource, config), or run its DDL (see"
                    + " EpochTable); nothing was sent", e);
        }
        return e;
    }

    private boolean insertIfAbsent(String lock, long fence) throws SQLException {
        insert.setString(1, lock);
        insert.setLong(2, fence);
        try {
            return insert.executeUpdate() > 0;
        } catch (SQLException e) {
            if (sql.duplicateKeyIsAnError() && "23505".equals(e.getSQLState())) {
                return false;   // a concurrent insert won (H2 undoes only this statement)
            }
            throw e;
        }
    }

    private OptionalLong readEpochRow(String lock) throws SQLException {
        read.setString(1, lock);
        try (ResultSet rows = read.executeQuery()) {
            if (rows.next()) {
                return OptionalLong.of(rows.getLong(1));
            }
        }
        return OptionalLong.empty();
    }

    private void statements() throws SQLException {
        if (raise == null) {
            if (sql == null) {
                sql = EpochSql.of(dialect, epochTable);
            }
            try {
                raise = database.prepareStatement(sql.raise());
                insert = database.prepareStatement(sql.insertIfAbsent());
                read = database.prepareStatement(sql.read());
            } catch (SQLException | RuntimeException e) {
                close();
                throw e;
            }
        }
    }

    private StaleFenceException stale(String lock, long fence, OptionalLong newer, String table) {
        String target = table == null ? epochTable : table;
        return new StaleFenceException("stale fence: the tenure of lock '" + lock + "' with fence " + fence
                + " is over: its epoch row in " + epochTable + " holds "
                + (newer.isPresent() ? "fence " + newer.getAsLong() : "a newer fence")
                + (table == null ? "" : " (the statement writes epoch-mode table " + table + ")")
                + ". Nothing was sent. The lock has passed to another holder: stop, do not retry.",
                fence, newer, target);
    }

    /** Closes the prepared statements on the epoch table (the connection is being closed). */
    public void close() {
        for (PreparedStatement statement : new PreparedStatement[] {raise, insert, read}) {
            if (statement != null) {
                try {
                    statement.close();
                } catch (SQLException ignored) {
                    // the connection is closing: nothing left to release
                }
            }
        }
        raise = null;
        insert = null;
        read = null;
    }

    /** The epoch table. */
    public String epochTable() {
        return epochTable;
    }

    /** The claims these epoch rows share (an eager claim through a fenced connection records its claim there). */
    public EpochClaims claims() {
        return claims;
    }

    /** True while the short transaction of an auto-commit write is open (tests). */
    public boolean inShortTransaction() {
        return shortTransaction;
    }
}
