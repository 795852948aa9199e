package dev.fencing.internal.jdbc;

import dev.fencing.internal.txn.TransactionState;
import dev.fencing.internal.txn.TransactionText;
import dev.fencing.internal.epoch.EpochGuard;
import dev.fencing.internal.guard.GuardHook;
import dev.fencing.internal.diagnosis.ZeroRowDiagnosis;
import dev.fencing.internal.diagnosis.ReturningCheck;
import dev.fencing.Fence;
import dev.fencing.FencingException;
import dev.fencing.MissingFenceException;
import dev.fencing.StaleFenceException;
import dev.fencing.UnfenceableStatementException;
import dev.fencing.events.FencingListener;
import dev.fencing.events.Refusal;
import dev.fencing.events.Rejection;
import dev.fencing.internal.sql.FencePlan;
import dev.fencing.internal.sql.StatementAnalyzer;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.OptionalLong;

/**
 * The one path every statement of a fenced connection takes, in the order the steps run. The
 * wrappers only route into it: each execute method of a statement is
 *
 * <pre>{@code
 * Execution e = pipeline.admit(this, plan, values, effect);       // 1. the fence, read once; refusals
 * (bind e.fence into the plan's fence slots)                      //    prepared statements
 * pipeline.beforeSend(e);                                         // 2. session hook, epoch guard
 * try {
 *     result = pipeline.counted(e, delegate.executeUpdate());     // 3. send; 4. zero-row diagnosis
 *     pipeline.sent(e);                                           // 5. settle: epoch, transaction state
 * } catch (Throwable failure) {
 *     pipeline.failed(e, failure);                                // 5'. settle after a failure
 *     throw failure;
 * }
 * }</pre>
 *
 * Only {@link #admit} reads the thread's {@link Fence}; every later step takes the
 * {@link Execution} it returned. Extension points: {@link SendHook} (step 2, before anything is
 * sent: the database guard's session fence), the {@link FencingListener}s (events, at no cost when
 * none is registered), and {@link #plan}, where plans come from (plans by shape plug in there).
 *
 * <p>One per connection; used by one thread at a time, like the connection.
 */
final class Pipeline {

    private final FencedConnection connection;
    private final StatementAnalyzer analyzer;
    private final TransactionState transaction;
    /** Null when no fenced table is in epoch mode. */
    private final EpochGuard epoch;
    /** Null when no hook was configured. */
    private final SendHook sendHook;
    private final Listeners listeners;
    /** True when statements that write no fenced table still need the fence (epoch claims, the hook). */
    private final boolean everyStatementNeedsTheFence;

    Pipeline(FencedConnection connection, StatementAnalyzer analyzer, TransactionState transaction, EpochGuard epoch,
             SendHook sendHook, Listeners listeners) {
        this.connection = connection;
        this.analyzer = analyzer;
        this.transaction = transaction;
        this.epoch = epoch;
        this.sendHook = sendHook;
        this.listeners = listeners;
        this.everyStatementNeedsTheFence = epoch != null || sendHook != null;
    }

    // ---- 0. planning -----------------------------------------------------------------------------

    /**
     * The plan of a text: from the analyzer's cache, or analysed now. Bad SQL is no exception (it is
     * a refused plan); the connection's metadata that could not be read is.
     */
    FencePlan plan(String sql) throws SQLException {
        FencingListener[] listening = listeners.current();
        return listening.length == 0 ? analyzer.plan(sql, connection.database()) : planTold(sql, listening);
    }

    /** {@link #plan}, timed and told to the listeners. */
    private FencePlan planTold(String sql, FencingListener[] listening) throws SQLException {
        long analysesBefore = analyzer.analyses();
        long start = System.nanoTime();
        FencePlan plan = analyzer.plan(sql, connection.database());
        long nanos = System.nanoTime() - start;
        Listeners.planned(listening, nanos, analyzer.analyses() == analysesBefore, analyzer.cachedPlans());
        return plan;
    }

    /**
     * The plan of a text about to be prepared: a refused plan is refused here, before anything is
     * prepared, and so is what the {@link SendHook} refuses (preparing runs nothing, so it sets nothing).
     */
    FencePlan planForPrepare(String sql) throws SQLException {
        FencePlan plan = plan(sql);
        if (plan.kind() == FencePlan.Kind.REFUSED || sendHook != null) {
            beforePrepare(plan);
        }
        return plan;
    }

    private void beforePrepare(FencePlan plan) throws SQLException {
        if (plan.kind() == FencePlan.Kind.REFUSED) {
            throw refused(plan.refusal());
        }
        sendHook.beforePrepare(plan);
    }

    /** The fence read for a prepare (no statement exists yet to own an execution). */
    private final Execution preparing = new Execution();

    /**
     * The one read of the thread's fence: {@code into.fence} (0 when none is in scope) and, when
     * {@code withLock}, {@code into.lock} (null when the fence names none).
     */
    private static void readFence(Execution into, boolean withLock) {
        OptionalLong current = Fence.current();
        into.fence = current.orElse(0);
        into.lock = withLock && current.isPresent() ? Fence.currentLock().orElse(null) : null;
    }

    /** The last plan whose transaction effect was read, with that effect: a text prepared again costs nothing. */
    private record EffectOfPlan(FencePlan plan, TransactionText.Effect effect) {
    }

    /** One object, so that a statement used from another thread never pairs one plan with another's effect. */
    private EffectOfPlan lastEffect;

    /** What {@code plan}'s text does to the transaction ({@link TransactionText}), for {@link #admit}. */
    TransactionText.Effect effectOf(FencePlan plan) {
        EffectOfPlan last = lastEffect;
        if (last == null || last.plan() != plan) {
            last = new EffectOfPlan(plan, TransactionText.of(plan.sql(), analyzer.dialect()));
            lastEffect = last;
        }
        return last.effect();
    }

    // ---- 1. admit --------------------------------------------------------------------------------

    /**
     * Admits {@code plan} for one execution: reads the thread's fence (the only step that does),
     * refuses what must not be sent, and fills {@code into} for the steps that follow.
     *
     * @param values the application's values as they are bound now, or null
     * @param effect what the text does to the transaction
     * @throws SQLException {@link UnfenceableStatementException} for a refused plan,
     *         {@link MissingFenceException} for a fenced write with no fence in scope; nothing was sent
     */
    Execution admit(Execution into, FencePlan plan, Object[] values, TransactionText.Effect effect)
            throws SQLException {
        FencePlan.Kind kind = plan.kind();
        boolean fenced = kind == FencePlan.Kind.FENCED;
        if (fenced || kind == FencePlan.Kind.REFUSED || everyStatementNeedsTheFence) {
            admitFence(into, plan, fenced);
        } else {
            // the common case, kept small enough to be inlined: nothing to refuse, no fence needed
            into.fence = 0;
            into.lock = null;
        }
        into.plan = plan;
        into.fenced = fenced;
        into.values = values;
        into.effect = effect;
        into.pendingCheck = null;
        into.lastResult = null;
        FencingListener[] listening = listeners.current();
        if (listening.length != 0) {
            if (fenced) {
                Listeners.fenced(listening, plan.fencedTable());
            } else {
                Listeners.passedThrough(listening);
            }
        }
        return into;
    }

    /** The part of {@link #admit} that reads the fence and refuses. */
    private void admitFence(Execution into, FencePlan plan, boolean fenced) throws SQLException {
        if (plan.kind() == FencePlan.Kind.REFUSED) {
            throw refused(plan.refusal());
        }
        readFence(into, everyStatementNeedsTheFence || plan.writesEpochTable());
        if (fenced) {
            if (into.fence == 0) {
                throw refused(new MissingFenceException(plan.fencedTable()));
            }
            if (plan.writesEpochTable()) {
                admitEpoch(plan, into.fence, into.lock);
            }
        }
    }

    /**
     * A write to an epoch-mode table needs the lock the fence belongs to (its guard row), and must
     * not end the transaction its guard check is in.
     */
    private void admitEpoch(FencePlan plan, long fence, String lock) throws SQLException {
        if (lock == null) {
            throw refused(new MissingFenceException(plan.fencedTable(), "the fence in scope (" + fence + ") names no"
                    + " lock, and fenced table " + plan.fencedTable() + " is in epoch mode: its writes are checked"
                    + " against the guard row of the lock the fence belongs to. Enter the fence with"
                    + " Fence.enter(lockName, token), or run the write in a lease's scope (lease.enterFence(),"
                    + " lease.runFenced(..)); nothing was sent."));
        }
        if (plan.controlsTransaction()) {
            throw refused(new UnfenceableStatementException(plan.fencedTable(), "a text that writes epoch-mode table "
                    + plan.fencedTable() + " must not also begin, commit or roll back the transaction: the guard"
                    + " check and the write must share one transaction. Send the transaction control on its own,"
                    + " or use Connection.commit()/rollback(); nothing was sent."));
        }
    }

    // ---- 2. before sending -----------------------------------------------------------------------

    /**
     * Before the admitted statement is sent: the {@link SendHook} (session fence), then the epoch
     * guard's claim, or its check of a write to an epoch-mode table (which may open the short
     * transaction that {@link #sent} or {@link #failed} ends). What it throws means nothing was sent.
     */
    void beforeSend(Execution e) throws SQLException {
        if (e.effect == TransactionText.Effect.COMMIT) {
            transaction.beforeCommit();
        }
        try {
            if (epoch != null) {
                // first: a claim at the start of a transaction commits it
                epoch.claimBeforeSend(e.plan, e.fence, e.lock, e.effect);
            }
            if (sendHook != null) {
                sendHook.beforeSend(e.plan, e.fenced() ? e.plan.fencedTable() : null, e.effect, e.fence, e.lock);
            }
            if (epoch != null) {
                epoch.beforeSend(e.plan, e.fence, e.lock);
            }
        } catch (SQLException | RuntimeException | Error failure) {
            if (sendHook != null) {
                sendHook.afterFailure(failure);
            }
            transaction.afterFailure(failure);
            tellBeforeSendFailure(failure);
            throw failure;
        }
    }

    // ---- 3. sending is the wrapper's: delegate.execute*(..) ---------------------------------------

    // ---- 4. results ------------------------------------------------------------------------------

    /** The update count of the execution just done, after the zero-row check of a fenced write. */
    long counted(Execution e, long count) throws SQLException {
        if (e.fenced()) {
            ZeroRowDiagnosis.afterWrite(connection, e.plan, e.fence, count, e.values);
        }
        return count;
    }

    /** The result of {@code execute}: checks an update count now, a result set's rows when they are read. */
    boolean executed(Execution e, boolean resultSet, Statement delegate) throws SQLException {
        if (e.fenced()) {
            if (resultSet) {
                e.pendingCheck = returningCheck(e);
            } else {
                counted(e, delegate.getUpdateCount());
            }
        }
        return resultSet;
    }

    /** The fenced view of the result set of {@code executeQuery}. */
    ResultSet queried(Execution e, DelegatingStatement statement, ResultSet rows) {
        e.lastResult = new FencedResultSet(connection, statement, rows, e.plan, e.fenced() ? returningCheck(e) : null);
        return e.lastResult;
    }

    private ReturningCheck returningCheck(Execution e) {
        return new ReturningCheck(connection, e.plan, e.fence, e.values == null ? null : e.values.clone());
    }

    // ---- 5. settling -----------------------------------------------------------------------------

    /** After the execution succeeded: commits the epoch guard's short transaction; notes what the text did. */
    void sent(Execution e) throws SQLException {
        if (sendHook != null) {
            sendHook.afterSend();
        }
        if (epoch != null) {
            try {
                epoch.afterSend();
            } finally {
                try {
                    transaction.afterText(e.effect, true);
                } finally {
                    epoch.settled();
                }
            }
        } else if (e.effect != TransactionText.Effect.NONE) {
            transaction.afterText(e.effect, true);
        }
    }

    /**
     * After the execution failed: rolls the short transaction back and notes the failure; rethrow it,
     * unless the {@link SendHook} translates it (the database guard's refusals), which is thrown here.
     */
    void failed(Execution e, Throwable failure) throws SQLException {
        settleFailure(e.effect, failure);
        translated(failure);
        FencingListener[] listening = listeners.current();
        if (listening.length != 0 && failure instanceof StaleFenceException stale) {
            Listeners.rejected(listening, Rejection.ROW_FENCE, stale.table());
        }
    }

    /** Throws the {@link SendHook}'s translation of {@code failure}, when it has one (after telling the listeners). */
    private void translated(Throwable failure) throws SQLException {
        SQLException translation = sendHook == null ? null : sendHook.translate(failure);
        if (translation != null) {
            FencingListener[] listening = listeners.current();
            if (listening.length != 0 && translation instanceof StaleFenceException stale) {
                Listeners.rejected(listening, Rejection.ROW_FENCE, stale.table());
            }
            throw translation;
        }
    }

    private void settleFailure(TransactionText.Effect effect, Throwable failure) {
        if (epoch != null) {
            epoch.afterFailure(failure);
        }
        if (sendHook != null) {
            sendHook.afterFailure(failure);
        }
        transaction.afterFailure(failure);
        try {
            transaction.afterText(effect, false);
        } catch (SQLException | RuntimeException e) {
            failure.addSuppressed(e);
        }
        if (epoch != null) {
            epoch.settled();
        }
    }

    // ---- batches ---------------------------------------------------------------------------------

    /** An admitted entry joins {@code log}: it keeps the fence and lock admitted now, and a copy of the values. */
    void added(BatchLog log, Execution e, Object[] valuesSnapshot) {
        log.add(e.plan, e.fence, e.lock, valuesSnapshot);
    }

    /**
     * Before a batch is sent: reads the fence in scope now (for a batch, the admission step), refuses
     * a batch of fenced entries whose fence scope is over, runs the {@link SendHook}, then the epoch
     * guard's checks of every lock its entries carry and its claim. When it refuses, the driver's
     * batch is cleared: its entries are never sent unchecked.
     */
    void beforeBatch(Execution e, BatchLog log, Statement delegate) throws SQLException {
        try {
            readFence(e, everyStatementNeedsTheFence);
            String fencedTable = log == null ? null : log.firstFencedTable();
            if (fencedTable != null && e.fence == 0) {
                // each entry carries the fence it was added under, but the scope that issued it is over
                throw new MissingFenceException(fencedTable, "no fence in scope when the batch that writes"
                        + " fenced table " + fencedTable + " was executed; the batch was cleared and nothing was"
                        + " sent. Keep the fence's scope open until executeBatch returns.");
            }
            if (epoch != null) {
                epoch.claimBeforeBatch(log, e.fence, e.lock);
            }
            if (sendHook != null) {
                sendHook.beforeBatch(log == null ? java.util.Set.of() : log.fencedTables(),
                        log != null && log.everyEntryCarriesItsFence(), log == null || log.everyEntryAddedUnder(e.fence),
                        e.fence, e.lock);
            }
            if (epoch != null) {
                epoch.beforeBatch(log, e.fence, e.lock);
            }
        } catch (SQLException | RuntimeException | Error failure) {
            if (sendHook != null) {
                sendHook.afterFailure(failure);
            }
            transaction.afterFailure(failure);
            try {
                delegate.clearBatch();
            } catch (SQLException suppressed) {
                failure.addSuppressed(suppressed);
            }
            tellBeforeSendFailure(failure);
            throw failure;
        }
    }

    /** After a batch ran and its counts were checked. */
    void sentBatch(boolean changesTransaction) throws SQLException {
        if (sendHook != null) {
            sendHook.afterSend();
        }
        try {
            if (epoch != null) {
                epoch.afterSend();
            }
        } finally {
            try {
                transaction.afterText(changesTransaction ? TransactionText.Effect.MAY_END : TransactionText.Effect.NONE,
                        true);
            } finally {
                if (epoch != null) {
                    epoch.settled();
                }
            }
        }
    }

    /** After a batch failed (or an entry was found stale); like {@link #failed}. */
    void failedBatch(boolean changesTransaction, Throwable failure) throws SQLException {
        settleFailure(changesTransaction ? TransactionText.Effect.MAY_END : TransactionText.Effect.NONE, failure);
        translated(failure);
        FencingListener[] listening = listeners.current();
        if (listening.length != 0 && failure instanceof StaleFenceException stale) {
            Listeners.rejected(listening, Rejection.ROW_FENCE, stale.table());
        }
    }

    // ---- rows written back through an updatable result set ------------------------------------------

    /** True when the database guard is required and verified here: its triggers check rows written back. */
    boolean guardChecksWriteBack() {
        return sendHook instanceof GuardHook guard && guard.holds();
    }

    /** Before {@code updateRow}/{@code insertRow}/{@code deleteRow} sends the row: the session's fence, read now. */
    void beforeWriteBack() throws SQLException {
        if (sendHook != null) {
            readFence(preparing, true);
            sendHook.beforeSend(null, null, TransactionText.Effect.NONE, preparing.fence, preparing.lock);
        }
    }

    /** After a row was written back. */
    void afterWriteBack() throws SQLException {
        if (sendHook != null) {
            sendHook.afterSend();
        }
    }

    /** {@code failure} of a row written back, as the {@link SendHook} translates it (or itself). */
    SQLException writeBackFailed(SQLException failure) {
        if (sendHook == null) {
            return failure;
        }
        sendHook.afterFailure(failure);
        SQLException translation = sendHook.translate(failure);
        return translation == null ? failure : translation;
    }

    // ---- the connection leaves the driver ----------------------------------------------------------

    /** The connection was aborted: the {@link SendHook} makes sure nothing it set survives in its session. */
    void abandon(java.sql.Connection database) {
        if (sendHook != null) {
            sendHook.abandon(database);
        }
    }

    /** Before the connection is closed: what the {@link SendHook} set goes with it (or the connection is aborted). */
    void release(java.sql.Connection database) throws SQLException {
        if (sendHook != null) {
            sendHook.release(database);
        }
    }

    // ---- events of refusals ----------------------------------------------------------------------

    /** {@code refusal}, after telling the listeners. */
    private <T extends SQLException> T refused(T refusal) {
        FencingListener[] listening = listeners.current();
        if (listening.length != 0) {
            String table = refusal instanceof MissingFenceException missing ? missing.table()
                    : refusal instanceof UnfenceableStatementException unfenceable ? unfenceable.table() : null;
            Refusal kind = refusal instanceof MissingFenceException ? Refusal.MISSING_FENCE
                    : refusal instanceof UnfenceableStatementException ? Refusal.UNFENCEABLE : Refusal.OTHER;
            Listeners.refused(listening, kind, table);
        }
        return refusal;
    }

    /** A failure of step 2 (nothing was sent), after telling the listeners what kind it was. */
    private void tellBeforeSendFailure(Throwable failure) {
        FencingListener[] listening = listeners.current();
        if (listening.length != 0) {
            if (failure instanceof StaleFenceException stale) {
                Listeners.rejected(listening, Rejection.EPOCH_GUARD, stale.table());
            } else if (failure instanceof FencingException fencing) {
                refused(fencing);
            }
        }
    }
}
