package dev.fencing.internal.jdbc;

import dev.fencing.internal.guard.SendHook;
import dev.fencing.internal.txn.TransactionState;
import dev.fencing.internal.txn.TransactionText;
import dev.fencing.internal.epoch.EpochRows;
import dev.fencing.internal.guard.GuardHook;
import dev.fencing.internal.diagnosis.DiagnosedConnection;
import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.MissingFenceException;
import dev.fencing.UnfenceableStatementException;
import dev.fencing.events.FencingListener;
import dev.fencing.internal.sql.FencePlan;
import dev.fencing.internal.sql.StatementAnalyzer;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.OptionalLong;

/**
 * The one path every statement of a fenced connection takes. Each execute method of a statement
 * is one call here ({@link #query}, {@link #update}, {@link #execute}, {@link #add},
 * {@link #batch}) that names only the driver call, as a function; the pipeline runs the steps
 * around it ({@link #run}): plan a text and {@link #admit} it (the fence, read once from the
 * thread; refusals; the bytes the server will read, {@link SessionEncoding}; the fence into the
 * text or the fence slots), {@link #beforeSend} (the {@link SendHook}, the epoch claim and check),
 * the send, the results ({@link WriteResults}: the zero-row diagnosis of a fenced write), and
 * settling: {@link #sent} after success, {@link #failed} after any failure.
 *
 * Only {@link #admit} reads the thread's {@link Fence}; every later step takes the
 * {@link Execution} it filled. Extension points: {@link SendHook} (before anything is sent: the
 * database guard's session fence), the {@link FencingListener}s (events, at no cost when none is
 * registered), and {@link #plan}, where plans come from.
 *
 * <p>One per connection; used by one thread at a time, like the connection.
 */
final class Pipeline implements DiagnosedConnection {

    private final FencedConnection connection;
    private final StatementAnalyzer analyzer;
    private final TransactionState transaction;
    /** Null when no fenced table is in epoch mode. */
    private final EpochRows epoch;
    /** Null when no hook was configured. */
    private final SendHook sendHook;
    private final Listeners listeners;
    /** True when statements that write no fenced table still need the fence (epoch claims, the hook). */
    private final boolean everyStatementNeedsTheFence;
    /** Whether the server reads the bytes of a text as the analysis read its characters. */
    private final SessionEncoding encoding;

    Pipeline(FencedConnection connection, Connection database, StatementAnalyzer analyzer, TransactionState transaction,
             EpochRows epoch, SendHook sendHook, Listeners listeners) {
        this.connection = connection;
        this.encoding = new SessionEncoding(analyzer.dialect(), database);
        this.analyzer = analyzer;
        this.transaction = transaction;
        this.epoch = epoch;
        this.sendHook = sendHook;
        this.listeners = listeners;
        this.everyStatementNeedsTheFence = epoch != null || sendHook != null;
    }

    // ---- what the zero-row diagnosis reaches: only through the pipeline, never handed out --------

    /** The driver's connection, for the diagnosis's query in the write's own transaction. */
    @Override
    public Connection database() throws SQLException {
        return connection.database();
    }

    @Override
    public FencingConfig config() {
        return connection.config();
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

    // ---- the execute template -------------------------------------------------------------------

    /** The driver call of one execution: {@code text} is the text to send (null for a prepared statement). */
    @FunctionalInterface
    interface Send<R> {
        R run(StatementCore statement, String text) throws SQLException;
    }

    /** The driver call that adds the admitted text (null: the prepared one) to the statement's batch. */
    @FunctionalInterface
    interface Add {
        void run(StatementCore statement, String text) throws SQLException;
    }

    /** The driver call that runs a statement's pending batch. */
    @FunctionalInterface
    interface BatchSend<R> {
        R run(StatementCore statement) throws SQLException;
    }

    /** What the pipeline makes of the driver's answer (step 4), before settling. */
    @FunctionalInterface
    private interface Result<R, T> {
        T of(Pipeline pipeline, Execution e, StatementCore statement, R answer) throws SQLException;
    }

    /** {@code executeQuery}: the rows, fenced, with the zero-row check of a fenced write that returns rows. */
    ResultSet query(StatementCore statement, String sql, Send<ResultSet> send) throws SQLException {
        return run(statement, sql, send, (pipeline, e, core, rows) ->
                core.rows(rows, e.fenced() ? WriteResults.rowsCheck(pipeline, e, rows) : null));
    }

    /** {@code executeUpdate}/{@code executeLargeUpdate}: the count, after the zero-row check of a fenced write. */
    long update(StatementCore statement, String sql, Send<? extends Number> send) throws SQLException {
        return run(statement, sql, send, (pipeline, e, core, count) ->
                WriteResults.counted(pipeline, e, count.longValue()));
    }

    /** {@code execute}: an update count is checked now, a result set's rows when they are read. */
    boolean execute(StatementCore statement, String sql, Send<Boolean> send) throws SQLException {
        return run(statement, sql, send, (pipeline, e, core, resultSet) ->
                WriteResults.executed(pipeline, e, resultSet, core.delegate));
    }

    /**
     * The template every execution of a statement runs: plans {@code sql} (null: the prepared text)
     * and admits it (1), prepares the send (2), sends ({@code send}, 3), makes the {@code result}
     * of the driver's answer (4), settles after success or any failure (5).
     */
    private <R, T> T run(StatementCore statement, String sql, Send<R> send, Result<? super R, T> result)
            throws SQLException {
        Execution e = admitForSend(statement, sql, false);
        String text = textOf(e, sql);
        beforeSend(e);
        try {
            T answer = result.of(this, e, statement, send.run(statement, text));
            sent(e);
            return answer;
        } catch (Throwable failure) {
            failed(e, failure);
            throw failure;
        }
    }

    /** {@code addBatch}: the entry is admitted now and carries the fence admitted now. */
    void add(StatementCore statement, String sql, Add send) throws SQLException {
        Execution e = admitForSend(statement, sql, true);
        send.run(statement, textOf(e, sql));
        statement.added(e, sql != null || statement.values == null ? null : statement.values.snapshot());
    }

    /**
     * {@code executeBatch}/{@code executeLargeBatch}: the statement's pending batch (it forgets
     * it), checked before it is sent ({@link #beforeBatch}), its counts diagnosed after, settled
     * like a statement.
     */
    <R> R batch(StatementCore statement, BatchSend<R> send) throws SQLException {
        statement.checkOpen();
        SessionEncoding.BatchBytes bytes = statement.batchBytes();
        BatchLog log = statement.takeBatch();
        boolean changesTransaction = statement.takeBatchChangesTransaction();
        beforeBatch(statement, log, bytes, statement.delegate);
        try {
            R counts = send.run(statement);
            if (log != null) {
                // R is int[] (executeBatch) or long[] (executeLargeBatch)
                if (counts instanceof int[] ints) {
                    log.check(this, ints);
                } else {
                    log.check(this, (long[]) counts);
                }
            }
            sentBatch(changesTransaction);
            return counts;
        } catch (Throwable failure) {
            failedBatch(changesTransaction, failure);
            throw failure;
        }
    }

    /**
     * Step 1 for one execution of {@code statement}: plans {@code sql} (null: the prepared text),
     * checks its bytes ({@link SessionEncoding}) and admits it; the fence goes into the fence slots.
     */
    private Execution admitForSend(StatementCore statement, String sql, boolean adding) throws SQLException {
        statement.checkOpen();
        FencePlan plan = sql != null ? plan(sql) : statement.prepared;
        try {
            if (sql != null) {
                encoding.admitText(statement, sql, adding);
            } else {
                encoding.admitPrepared(statement, adding);
            }
        } catch (UnfenceableStatementException refusal) {
            throw refused(refusal);
        }
        if (sql != null) {
            return admit(statement, plan, null, effectOf(plan));
        }
        Execution e = admit(statement, plan, statement.values == null ? null : statement.values.live(),
                statement.preparedEffect);
        if (e.fenced()) {
            for (int slot : plan.fenceIndexes()) {
                statement.preparedDelegate.setLong(slot, e.fence);
            }
        }
        return e;
    }

    /** The text to send for {@code sql}: with the admitted fence rendered into a fenced write; null for a prepared statement. */
    private static String textOf(Execution e, String sql) {
        return sql == null || !e.fenced() ? sql : e.plan.renderWithFence(e.fence);
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
    private Execution admit(Execution into, FencePlan plan, Object[] values, TransactionText.Effect effect)
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
            analyzer.fenceColumns().require(plan, connection.database());
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
    private void beforeSend(Execution e) throws SQLException {
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

    // ---- 5. settling -----------------------------------------------------------------------------

    /** After the execution succeeded: commits the epoch guard's short transaction; notes what the text did. */
    private void sent(Execution e) throws SQLException {
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
    private void failed(Execution e, Throwable failure) throws SQLException {
        settleFailure(e.effect, failure);
        translated(failure);
        Listeners.rowFenceRejected(listeners.current(), failure);
    }

    /** Throws the {@link SendHook}'s translation of {@code failure}, when it has one (after telling the listeners). */
    private void translated(Throwable failure) throws SQLException {
        SQLException translation = sendHook == null ? null : sendHook.translate(failure);
        if (translation != null) {
            Listeners.rowFenceRejected(listeners.current(), translation);
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

    /**
     * Before a batch is sent: reads the fence in scope now (for a batch, the admission step), refuses
     * a batch of fenced entries whose fence scope is over, runs the {@link SendHook}, then the epoch
     * guard's checks of every lock its entries carry and its claim. When it refuses, the driver's
     * batch is cleared: its entries are never sent unchecked.
     */
    private void beforeBatch(Execution e, BatchLog log, SessionEncoding.BatchBytes bytes, Statement delegate)
            throws SQLException {
        try {
            encoding.admitBatch(bytes);
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
    private void sentBatch(boolean changesTransaction) throws SQLException {
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
    private void failedBatch(boolean changesTransaction, Throwable failure) throws SQLException {
        settleFailure(changesTransaction ? TransactionText.Effect.MAY_END : TransactionText.Effect.NONE, failure);
        translated(failure);
        Listeners.rowFenceRejected(listeners.current(), failure);
    }

    // ---- rows written back through an updatable result set ------------------------------------------

    /** True when the database guard is required and verified here: its triggers check rows written back. */
    boolean guardChecksWriteBack() {
        return sendHook instanceof GuardHook guard && guard.holds();
    }

    /** Before {@code updateRow}/{@code insertRow}/{@code deleteRow} sends the row: the session's fence, read now. */
    void beforeWriteBack() throws SQLException {
        try {
            encoding.admitWriteBack();
        } catch (UnfenceableStatementException refusal) {
            throw refused(refusal);
        }
        if (sendHook != null) {
            readFence(preparing, true);
            sendHook.beforeSend(null, null, TransactionText.Effect.NONE, preparing.fence, preparing.lock);
        }
    }

    /** True when the driver may write prepared statements' values into their texts ({@link SessionEncoding}). */
    boolean inlinesValues() {
        return encoding.inlinesValues();
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
        Listeners.refused(listeners.current(), refusal);
        return refusal;
    }

    /** A failure of step 2 (nothing was sent), after telling the listeners what kind it was. */
    private void tellBeforeSendFailure(Throwable failure) {
        Listeners.beforeSendFailed(listeners.current(), failure);
    }
}
