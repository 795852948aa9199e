package dev.fencing.internal.guard;

import dev.fencing.internal.txn.TransactionState;
import dev.fencing.internal.txn.TransactionText;
import dev.fencing.internal.txn.ShortTransaction;
import dev.fencing.internal.txn.PostgresTransactionStatus;
import dev.fencing.FencingConfig;
import dev.fencing.FencingException;
import dev.fencing.internal.guard.GuardErrors;
import dev.fencing.internal.guard.SessionFence;
import dev.fencing.internal.sql.Dialect;
import dev.fencing.internal.sql.FencePlan;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;

/**
 * The database guard's step of the pipeline ({@code fencing.database-guard=required}): before any
 * statement is sent it refuses what relies on the guard where the guard is missing or outdated
 * (fenced writes, and the forms the analyzer lets through only because the triggers check them),
 * then makes the triggers see the admitted fence for that statement, and nothing the driver set
 * outlives the transaction it was set for or the driver's hold of the connection. After a failure it
 * turns the triggers' {@code ZF001}/{@code ZF002} into {@link dev.fencing.StaleFenceException} /
 * {@link dev.fencing.MissingFenceException}.
 *
 * <p><b>PostgreSQL</b> (transaction-local values): a spliced write carries its fence in its own
 * text (zero extra round trips). Any other statement under a fence gets it with
 * {@code set_config(.., true)} inside its transaction: in the application's transaction once per
 * transaction and fence; in auto-commit inside a short transaction the hook opens around the
 * statement and commits after it (two extra round trips: the set, sent with BEGIN, and the COMMIT).
 * Session-level values a raw script may have left ({@code set_config(.., false)}) are cleared once
 * per hold: by the first statement without a fence in auto-commit, or with the first set, kept
 * when its transaction commits. What the hook knows of the transaction-local values is only a
 * saving: it is forgotten at every end of a transaction, every failure and every rollback to a
 * savepoint, and then set again.
 *
 * <p><b>MariaDB, H2</b> (session variables): set when they differ from what this connection set
 * last (forgotten after any failure), and cleared by {@link #release} before the connection leaves
 * the driver; a connection whose clearing fails is aborted, never handed back to its pool.
 */
public final class GuardHook implements SendHook {

    /** The guard's check of this database (null refusal: current). */
    private final GuardStates.State state;
    /** Null when the database is none the guard supports. */
    private final SessionFence session;
    private final Connection database;
    private final TransactionState transaction;
    /** What texts sent without a fence may run, read once per data source. */
    private final CodeInTexts codeInTexts;

    /** True while the values below are what the triggers see (PostgreSQL: in {@link #knownIn}). */
    private boolean known;
    private long knownFence;
    private String knownLock;
    /** PostgreSQL: the transaction generation the known values belong to. */
    private long knownIn;
    /**
     * PostgreSQL: a spliced write carried this fence in a transaction whose value was none: the
     * value is now none or this fence (a write that reached no row never evaluated its subquery).
     * 0 when the known value is exact.
     */
    private long carriedOver;
    /**
     * PostgreSQL: the generation of the transaction in which this hook last set the values (which
     * also empties the migration mark and hides session-level values for that transaction).
     */
    private long neutralisedIn = -1;
    /** PostgreSQL: the session-level values were cleared in this hold. */
    private boolean sessionClean;
    /** PostgreSQL: the open transaction cleared them; they stay cleared when it commits. */
    private boolean sessionCleanAtCommit;
    /** PostgreSQL: the short transaction opened around an auto-commit statement is open. */
    private boolean shortTransaction;
    /** The last statement ran in a short transaction (its failure may need explaining). */
    private boolean ranInShortTransaction;

    private GuardHook(GuardStates.State state, SessionFence session, Connection database, TransactionState transaction,
                      CodeInTexts codeInTexts) {
        this.codeInTexts = codeInTexts;
        this.state = state;
        this.session = session;
        this.database = database;
        this.transaction = transaction;
        if (session != null && session.transactionLocal()) {
            // a new hold starts with no transaction-local values: the last holder's ended with its
            // transaction, or were emptied when it closed the connection
            known = true;
            knownIn = transaction.generation();
            transaction.addListener(this::transactionEnded);
        }
    }

    /** The hook of one connection; {@code codeInTexts} is shared by the connections of one data source. */
    public static GuardHook of(Connection database, Dialect dialect, TransactionState transaction, FencingConfig config,
                        CodeInTexts codeInTexts) {
        try {
            SessionFence session = SessionFence.of(database, dialect);
            return new GuardHook(GuardStates.of(database, dialect, config), session, database, transaction, codeInTexts);
        } catch (FencingException unsupported) {
            return new GuardHook(new GuardStates.State(unsupported.getMessage()), null, database, transaction,
                    codeInTexts);
        }
    }

    /** True when the guard is verified here: the database checks every write itself. */
    public boolean holds() {
        return state.refusal() == null && session != null;
    }

    @Override
    public void beforePrepare(FencePlan plan) throws SQLException {
        refuseWithoutTheGuard(plan, plan.kind() == FencePlan.Kind.FENCED ? plan.fencedTable() : null);
    }

    @Override
    public void beforeSend(FencePlan plan, String fencedTable, TransactionText.Effect effect, long fence, String lock)
            throws SQLException {
        refuseWithoutTheGuard(plan, fencedTable);
        if (!controlsTransactionOnly(effect)) {
            // BEGIN, COMMIT, ROLLBACK, savepoints write no row: nothing to hand over
            handOver(plan != null && plan.carriesTheFence() && !state.runsCodeFirst(plan.fencedTable()),
                    plan != null && (plan.checkedByGuard() || fence == 0 && mayRunCode(plan)), fence, lock);
        }
    }

    @Override
    public void beforeBatch(java.util.Set<String> fencedTables, boolean everyEntryCarriesItsFence,
                            boolean everyEntryAddedUnderTheFence, long fence, String lock) throws SQLException {
        refuseWithoutTheGuard(null, fencedTables.isEmpty() ? null : fencedTables.iterator().next());
        if (!everyEntryAddedUnderTheFence) {
            // the entries run one after another in one transaction: code an entry runs before its
            // own fence is evaluated (a default, a domain check, a trigger) would see the entry's before
            throw new FencingException("the entries of this batch were added under different fences (or none), or"
                    + " under another fence than the one in scope now, and the database guard checks a batch under"
                    + " one fence: an entry would run with a fence it was not added under. Add and execute a batch"
                    + " in one fence scope; the batch was cleared and nothing was sent.");
        }
        boolean carried = everyEntryCarriesItsFence;
        for (String table : fencedTables) {
            carried &= !state.runsCodeFirst(table);
        }
        handOver(carried, !carried, fence, lock);
    }

    /**
     * True when the text of {@code plan}, sent without a fence, may run code that writes (PostgreSQL
     * only: elsewhere the session's values are set before every statement anyway).
     */
    private boolean mayRunCode(FencePlan plan) {
        return session != null && session.transactionLocal() && plan.sql() != null && codeInTexts.mayRunCode(plan.sql());
    }

    /**
     * Makes the triggers see {@code fence}/{@code lock} for what is sent next; {@code carried}: its
     * text does; {@code writesUnseen}: it may write what the front door cannot see (a procedure
     * call, dynamic SQL, a form the guard checks), so even without a fence it gets the empty values
     * (in its transaction; in auto-commit the session-level ones cleared just before it): behind a
     * transaction-mode pooler another client may have left a session-level mark on the server
     * session it runs in.
     */
    private void handOver(boolean carried, boolean writesUnseen, long fence, String lock) throws SQLException {
        ranInShortTransaction = false;
        if (session == null) {
            return;
        }
        try {
            if (session.transactionLocal()) {
                handOverTransactionLocal(carried && fence != 0, writesUnseen, fence, lock);
            } else if (!matches(fence, lock)) {
                set(fence, lock);
            }
        } catch (SQLException | RuntimeException e) {
            known = false;
            throw e;
        }
    }

    private static boolean controlsTransactionOnly(TransactionText.Effect effect) {
        return switch (effect) {
            case BEGIN, COMMIT, ROLLBACK, SAVEPOINT, ROLLBACK_TO_SAVEPOINT, RELEASE_SAVEPOINT -> true;
            case NONE, IMPLICIT_COMMIT, MAY_END -> false;
        };
    }

    private void refuseWithoutTheGuard(FencePlan plan, String fencedTable) throws FencingException {
        if (state.refusal() != null && (fencedTable != null || plan != null && plan.checkedByGuard())) {
            throw state.refuse(fencedTable != null ? fencedTable
                    : plan.fencedTable() != null ? plan.fencedTable() : "(any, through a procedure call)");
        }
    }

    private void handOverTransactionLocal(boolean carried, boolean writesUnseen, long fence, String lock)
            throws SQLException {
        if (!transaction.inTransaction()) {
            if (!carried && fence != 0) {
                // the set in the short transaction clears the session-level values too (kept at its commit)
                ShortTransaction.open(database);
                shortTransaction = true;
                ranInShortTransaction = true;
                set(fence, lock);
                return;
            }
            if (!sessionClean || fence == 0 && writesUnseen) {
                // a raw script's session-level mark or fence must not cover what this hold sends, not
                // even code a carrying write runs before its own fence is evaluated (a column
                // default, a domain check, a trigger): once per hold, and before each statement
                // without a fence that visibly runs code (behind a transaction-mode pooler another
                // client may have left one since). Outside a transaction, so that a procedure
                // that commits by itself still runs.
                session.clearSession();
                sessionClean = true;
            }
            // the text hands its fence over, or there is none to hand over; whatever runs before
            // that sees no value, so its writes are refused, never let through
            return;
        }
        long generation = transaction.generation();
        if (known && knownIn != generation) {
            known = false;
        }
        boolean hidden = sessionClean || neutralisedIn == generation;
        if (carried) {
            // trusted only where anything the text runs before its own fence sees that fence and
            // lock, or none at all: never another holder's, a raw script's, or another lock's
            boolean noneOrSame = knownFence == 0 && knownLock == null
                    || knownFence == fence && Objects.equals(knownLock, lock);
            if (hidden && known && noneOrSame && (carriedOver == 0 || carriedOver == fence)) {
                if (knownFence == 0) {
                    carriedOver = fence;
                }
            } else {
                set(fence, lock);
            }
            return;
        }
        if (!matches(fence, lock) || carriedOver != 0 || (!sessionClean || writesUnseen) && neutralisedIn != generation) {
            set(fence, lock);
        }
    }

    /**
     * A transaction ended: its transaction-local values with it. A whole end leaves none; a rollback
     * to a savepoint, or an end that may not have happened, leaves them unknown.
     */
    private void transactionEnded(TransactionState.End end) {
        if (end == TransactionState.End.COMMITTED && sessionCleanAtCommit) {
            sessionClean = true;
        }
        // a rollback, to a savepoint too, restores what the transaction cleared
        sessionCleanAtCommit = false;
        carriedOver = 0;
        if (end == TransactionState.End.COMMITTED || end == TransactionState.End.ROLLED_BACK) {
            known = true;
            knownFence = 0;
            knownLock = null;
            knownIn = transaction.generation();
        } else {
            known = false;
        }
    }

    private boolean matches(long fence, String lock) {
        return known && knownFence == fence && Objects.equals(knownLock, lock);
    }

    private void set(long fence, String lock) throws SQLException {
        known = false;
        if (session.transactionLocal() && !sessionClean) {
            // a raw script's session-level values go too, for good once this transaction commits
            session.setAndClearSession(fence, lock);
            sessionCleanAtCommit = true;
        } else {
            session.set(fence, lock);
        }
        known = true;
        knownFence = fence;
        knownLock = lock;
        knownIn = transaction.generation();
        neutralisedIn = knownIn;
        carriedOver = 0;
    }

    @Override
    public void afterSend() throws SQLException {
        if (shortTransaction) {
            endShortTransaction(null);
        }
    }

    @Override
    public void afterFailure(Throwable failure) {
        known = false;
        if (shortTransaction) {
            try {
                // a refusal the driver raised after the server ran the statement (a zero-row
                // diagnosis, a batch's stale entry) leaves what the server did standing, as it
                // would without the guard: the short transaction commits it
                endShortTransaction(failure instanceof FencingException ? null : failure);
            } catch (SQLException | RuntimeException e) {
                failure.addSuppressed(e);
            }
        }
    }

    /** Commits (or after {@code failure} rolls back) the short transaction, and turns auto-commit back on. */
    private void endShortTransaction(Throwable failure) throws SQLException {
        shortTransaction = false;
        known = false;
        ShortTransaction.end(database, transaction, failure);
    }

    @Override
    public void release(Connection connection) throws SQLException {
        if (session == null) {
            return;
        }
        try {
            if (shortTransaction) {
                endShortTransaction(new IllegalStateException("released"));
            }
            if (session.transactionLocal()) {
                // a transaction left open keeps its values until it ends: end it now, in case
                // whoever gets the connection next goes on in that transaction. Setting them empty is not
                // enough: a rollback to a savepoint set before would bring them back. Rolled back.
                boolean none = known && knownIn == transaction.generation() && knownFence == 0 && knownLock == null
                        && carriedOver == 0;
                if (!none && !Boolean.FALSE.equals(PostgresTransactionStatus.open(database))
                        && transaction.inTransaction()) {
                    boolean rolledBack = false;
                    try {
                        database.rollback();
                        rolledBack = true;
                    } finally {
                        transaction.afterRollback(rolledBack);
                    }
                }
            } else if (!known || knownFence != 0 || knownLock != null) {
                session.clearSession();
            }
            known = false;
        } catch (SQLException | RuntimeException e) {
            SessionFence.discard(connection, e);
            throw new FencingException("the database guard's session fence could not be cleared when the connection"
                    + " was closed, so the connection was aborted rather than handed back to its pool", e);
        } finally {
            session.close();
        }
    }

    @Override
    public void abandon(Connection connection) {
        if (session != null && !session.transactionLocal() && (!known || knownFence != 0 || knownLock != null)) {
            // PostgreSQL's values end with the aborted transaction; session variables only with the session
            SessionFence.discard(connection, new SQLException("the connection was aborted"));
        }
        known = false;
    }

    @Override
    public SQLException translate(Throwable failure) {
        SQLException mapped = GuardErrors.translate(failure);
        if (mapped != null) {
            known = false;
            return mapped;
        }
        if (ranInShortTransaction && failure instanceof SQLException sql && "2D000".equals(sql.getSQLState())) {
            return new FencingException("the statement tried to commit or roll back the transaction it ran in: with"
                    + " the database guard on PostgreSQL, a statement sent in auto-commit under a fence runs in a short"
                    + " transaction that carries the fence (transaction-local, so that no pooler or pooled"
                    + " connection keeps it), and a procedure that commits or rolls back itself cannot run there."
                    + " Call it without a fence, or change it to leave transaction control to its caller; it was"
                    + " rolled back.", sql);
        }
        return null;
    }
}
