package dev.fencing.jdbc;

import dev.fencing.Fence;
import dev.fencing.FencingException;
import dev.fencing.MissingFenceException;
import dev.fencing.UnfenceableStatementException;
import dev.fencing.guard.GuardErrors;
import dev.fencing.sql.FencePlan;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.OptionalLong;

/**
 * A plain statement whose texts carry the fence check. Each text given to {@code execute*} or
 * {@code addBatch} is planned (from the analyzer's cache): texts that write no fenced table are
 * sent unchanged; refused texts, and fenced writes with no fence in scope, are refused before
 * anything is sent; fenced writes are sent with the current fence rendered into the text.
 *
 * <p>Also the base of the prepared and callable wrappers: it holds what one execution needs
 * afterwards (its plan, fence and values for the zero-row diagnosis, the fenced result sets it
 * produced, the batch log) so that every execute path shares one implementation.
 */
class FencedStatement implements Statement {

    final FencedConnection connection;
    private final Statement delegate;
    private boolean closed;

    /** The plan of the last execution, the fence it carried and the application's values (or null). */
    private FencePlan executionPlan;
    private long executionFence;
    private Object[] executionValues;
    /** The zero-row check waiting for the result set of a fenced write that returned rows. */
    private ReturningCheck pendingCheck;
    private FencedResultSet lastResult;
    private BatchLog batch;

    FencedStatement(FencedConnection connection, Statement delegate) {
        this.connection = connection;
        this.delegate = delegate;
    }

    // ---- shared execution logic ----------------------------------------------------------

    final void checkOpen() throws SQLException {
        if (closed) {
            throw Wrappers.closed("statement");
        }
    }

    /**
     * Admits a plan for sending: the fence it must carry (0 when it needs none).
     *
     * @throws java.sql.SQLException {@link dev.fencing.UnfenceableStatementException} for a refused
     *         plan, {@link MissingFenceException} for a fenced write with no fence in scope
     */
    static long admit(FencePlan plan) throws SQLException {
        switch (plan.kind()) {
            case FENCED -> {
                OptionalLong current = Fence.current();
                if (current.isEmpty()) {
                    throw new MissingFenceException(plan.fencedTable());
                }
                if (plan.writesEpochTable()) {
                    admitEpoch(plan, current.getAsLong());
                }
                return current.getAsLong();
            }
            case REFUSED -> throw plan.refusal();
            default -> {
                return 0;
            }
        }
    }

    /**
     * A write to an epoch-mode table needs the lock the fence belongs to (its guard row), and must
     * not end the transaction its guard check is in.
     */
    private static void admitEpoch(FencePlan plan, long fence) throws SQLException {
        if (Fence.currentLock().isEmpty()) {
            throw new MissingFenceException(plan.fencedTable(), "the fence in scope (" + fence + ") names no lock,"
                    + " and fenced table " + plan.fencedTable() + " is in epoch mode: its writes are checked against"
                    + " the guard row of the lock the fence belongs to. Enter the fence with Fence.enter(lockName,"
                    + " token), or run the write in a lease's scope (lease.enterFence(), lease.runFenced(..));"
                    + " nothing was sent.");
        }
        if (plan.controlsTransaction()) {
            throw new UnfenceableStatementException(plan.fencedTable(), "a text that writes epoch-mode table "
                    + plan.fencedTable() + " must not also begin, commit or roll back the transaction: the guard"
                    + " check and the write must share one transaction. Send the transaction control on its own,"
                    + " or use Connection.commit()/rollback(); nothing was sent.");
        }
    }

    /**
     * Before a planned text is sent: the epoch guard's claim, or its check for a write to an
     * epoch-mode table (which may open the short transaction that {@link #sent} or {@link #failed}
     * ends). A no-op without epoch tables.
     */
    final void guard(FencePlan plan) throws SQLException {
        sessionFence(plan, plan.kind() == FencePlan.Kind.FENCED ? plan.fencedTable() : null,
                plan.controlsTransaction() && plan.kind() != FencePlan.Kind.FENCED);
        EpochGuard epoch = connection.epoch();
        if (epoch != null) {
            epoch.beforeSend(plan, Fence.current().orElse(0), Fence.currentLock().orElse(null));
        }
    }

    /** After the execution succeeded: commits the epoch guard's short transaction when one is open. */
    final long sent(long result) throws SQLException {
        settle();
        return result;
    }

    final boolean sent(boolean result) throws SQLException {
        settle();
        return result;
    }

    final <T> T sent(T result) throws SQLException {
        settle();
        return result;
    }

    private void settle() throws SQLException {
        EpochGuard epoch = connection.epoch();
        try {
            if (epoch != null) {
                epoch.afterSend();
            }
        } finally {
            connection.transaction().afterText(executionEffect, true);
        }
    }

    /**
     * The database guard's step before a statement or batch is sent: the one place the session's
     * fence is synchronised (see {@link FencedConnection#beforeSend}).
     */
    private void sessionFence(FencePlan plan, String fencedTable, boolean transactionControl) throws SQLException {
        connection.beforeSend(plan, fencedTable, transactionControl);
    }

    /**
     * After the execution failed: rolls the epoch guard's short transaction back, and throws the
     * driver's exception for a refusal of the database guard; else the caller rethrows {@code failure}.
     */
    final void failed(Throwable failure) throws SQLException {
        EpochGuard epoch = connection.epoch();
        if (epoch != null) {
            epoch.afterFailure(failure);
        }
        TransactionState transaction = connection.transaction();
        transaction.afterFailure(failure);
        try {
            transaction.afterText(executionEffect, false);
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
        guardFailure(failure);
    }

    /** A failure the database guard raised (ZF001/ZF002) becomes the driver's exception; the session's fence is re-set next time. */
    final void guardFailure(Throwable failure) throws SQLException {
        FencingException mapped = GuardErrors.translate(failure);
        if (mapped != null) {
            connection.sessionUnsure();
            throw mapped;
        }
    }

    /** What the text being executed does to the transaction. */
    TransactionText.Effect executionEffect = TransactionText.Effect.NONE;

    /** Records what is about to be executed, for the checks that follow it. */
    final void begin(FencePlan plan, long fence, Object[] values) {
        this.executionPlan = plan;
        this.executionFence = fence;
        this.executionValues = values;
        this.pendingCheck = null;
        this.lastResult = null;
    }

    private boolean fenced() {
        return executionPlan != null && executionPlan.kind() == FencePlan.Kind.FENCED;
    }

    /** Plans a plain text: the text to send, with the fence rendered into it when it is a fenced write. */
    private String enter(String sql) throws SQLException {
        checkOpen();
        FencePlan planned = connection.plan(sql);
        long current = admit(planned);
        begin(planned, current, null);
        executionEffect = TransactionText.of(sql, connection.analyzer().dialect());
        String text = planned.kind() == FencePlan.Kind.FENCED ? planned.renderWithFence(current) : sql;
        guard(planned);
        return text;
    }

    /** The update count of the execution just done, after the zero-row check of a fenced write. */
    final long counted(long count) throws SQLException {
        if (fenced()) {
            ZeroRowDiagnosis.afterWrite(connection, executionPlan, executionFence, count, executionValues);
        }
        return count;
    }

    /** The result of {@code execute}: checks an update count now, a result set's rows when they are read. */
    final boolean executed(boolean resultSet) throws SQLException {
        if (fenced()) {
            if (resultSet) {
                pendingCheck = returningCheck();
            } else {
                counted(delegate.getUpdateCount());
            }
        }
        return resultSet;
    }

    /** The fenced view of the result set of {@code executeQuery}. */
    final ResultSet queried(ResultSet rows) {
        lastResult = new FencedResultSet(connection, this, rows, executionPlan, fenced() ? returningCheck() : null);
        return lastResult;
    }

    private ReturningCheck returningCheck() {
        return new ReturningCheck(connection, executionPlan, executionFence,
                executionValues == null ? null : executionValues.clone());
    }

    final BatchLog batch() {
        if (batch == null) {
            batch = new BatchLog();
        }
        return batch;
    }

    private BatchLog takeBatch() {
        BatchLog taken = batch;
        batch = null;
        return taken;
    }

    // ---- plain statement execution -------------------------------------------------------

    /** One execution of a text: what the driver returns, once the text was planned and admitted. */
    @FunctionalInterface
    private interface Execution<T> {
        T run(String text) throws SQLException;
    }

    /**
     * Plans and admits {@code sql}, runs {@code execution} with the text to send, then settles the
     * epoch guard: its short transaction commits after success and rolls back after any failure.
     */
    private <T> T send(String sql, Execution<T> execution) throws SQLException {
        String text = enter(sql);
        try {
            return sent(execution.run(text));
        } catch (Throwable failure) {
            failed(failure);
            throw failure;
        }
    }

    @Override
    public ResultSet executeQuery(String sql) throws SQLException {
        return send(sql, text -> queried(delegate.executeQuery(text)));
    }

    @Override
    public int executeUpdate(String sql) throws SQLException {
        return (int) (long) send(sql, text -> counted(delegate.executeUpdate(text)));
    }

    @Override
    public int executeUpdate(String sql, int autoGeneratedKeys) throws SQLException {
        return (int) (long) send(sql, text -> counted(delegate.executeUpdate(text, autoGeneratedKeys)));
    }

    @Override
    public int executeUpdate(String sql, int[] columnIndexes) throws SQLException {
        return (int) (long) send(sql, text -> counted(delegate.executeUpdate(text, columnIndexes)));
    }

    @Override
    public int executeUpdate(String sql, String[] columnNames) throws SQLException {
        return (int) (long) send(sql, text -> counted(delegate.executeUpdate(text, columnNames)));
    }

    @Override
    public long executeLargeUpdate(String sql) throws SQLException {
        return send(sql, text -> counted(delegate.executeLargeUpdate(text)));
    }

    @Override
    public long executeLargeUpdate(String sql, int autoGeneratedKeys) throws SQLException {
        return send(sql, text -> counted(delegate.executeLargeUpdate(text, autoGeneratedKeys)));
    }

    @Override
    public long executeLargeUpdate(String sql, int[] columnIndexes) throws SQLException {
        return send(sql, text -> counted(delegate.executeLargeUpdate(text, columnIndexes)));
    }

    @Override
    public long executeLargeUpdate(String sql, String[] columnNames) throws SQLException {
        return send(sql, text -> counted(delegate.executeLargeUpdate(text, columnNames)));
    }

    @Override
    public boolean execute(String sql) throws SQLException {
        return send(sql, text -> executed(delegate.execute(text)));
    }

    @Override
    public boolean execute(String sql, int autoGeneratedKeys) throws SQLException {
        return send(sql, text -> executed(delegate.execute(text, autoGeneratedKeys)));
    }

    @Override
    public boolean execute(String sql, int[] columnIndexes) throws SQLException {
        return send(sql, text -> executed(delegate.execute(text, columnIndexes)));
    }

    @Override
    public boolean execute(String sql, String[] columnNames) throws SQLException {
        return send(sql, text -> executed(delegate.execute(text, columnNames)));
    }

    /** Plans the entry now: a fenced write carries the fence current at {@code addBatch}. */
    @Override
    public void addBatch(String sql) throws SQLException {
        checkOpen();
        FencePlan planned = connection.plan(sql);
        long current = admit(planned);
        delegate.addBatch(planned.kind() == FencePlan.Kind.FENCED ? planned.renderWithFence(current) : sql);
        batch().add(planned, current, null);
    }

    @Override
    public void clearBatch() throws SQLException {
        checkOpen();
        delegate.clearBatch();
        batch = null;
    }

    @Override
    public int[] executeBatch() throws SQLException {
        checkOpen();
        BatchLog log = takeBatch();
        guardBatch(log);
        try {
            int[] counts = delegate.executeBatch();
            if (log != null) {
                log.check(connection, counts);
            }
            return sentBatch(counts, log);
        } catch (Throwable failure) {
            failedBatch(failure, log);
            throw failure;
        }
    }

    @Override
    public long[] executeLargeBatch() throws SQLException {
        checkOpen();
        BatchLog log = takeBatch();
        guardBatch(log);
        try {
            long[] counts = delegate.executeLargeBatch();
            if (log != null) {
                log.check(connection, counts);
            }
            return sentBatch(counts, log);
        } catch (Throwable failure) {
            failedBatch(failure, log);
            throw failure;
        }
    }

    /**
     * Before a batch is sent: the epoch guard's claim and the check of every lock its entries
     * carry. When it refuses, the driver's batch is cleared: its entries are never sent unchecked.
     */
    private void guardBatch(BatchLog log) throws SQLException {
        String fencedTable = log == null ? null : log.firstFencedTable();
        try {
            sessionFence(null, fencedTable, false);
        } catch (SQLException | RuntimeException | Error e) {
            try {
                delegate.clearBatch();
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        if (fencedTable != null && Fence.current().isEmpty()) {
            // each entry carries the fence it was added under, but the scope that issued it is over
            MissingFenceException missing = new MissingFenceException(fencedTable, "no fence in scope when the batch"
                    + " that writes fenced table " + fencedTable + " was executed; the batch was cleared and nothing was"
                    + " sent. Keep the fence's scope open until executeBatch returns.");
            try {
                delegate.clearBatch();
            } catch (SQLException suppressed) {
                missing.addSuppressed(suppressed);
            }
            throw missing;
        }
        EpochGuard epoch = connection.epoch();
        if (epoch != null) {
            try {
                epoch.beforeBatch(log, Fence.current().orElse(0), Fence.currentLock().orElse(null));
            } catch (SQLException | RuntimeException | Error e) {
                try {
                    delegate.clearBatch();
                } catch (SQLException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
        }
    }

    private <T> T sentBatch(T counts, BatchLog log) throws SQLException {
        EpochGuard epoch = connection.epoch();
        try {
            if (epoch != null) {
                epoch.afterSend();
            }
        } finally {
            if (log != null && log.controlsTransaction()) {
                connection.transaction().afterText(TransactionText.Effect.MAY_END, true);
            }
        }
        return counts;
    }

    private void failedBatch(Throwable failure, BatchLog log) throws SQLException {
        EpochGuard epoch = connection.epoch();
        if (epoch != null) {
            epoch.afterFailure(failure);
        }
        connection.transaction().afterFailure(failure);
        if (log != null && log.controlsTransaction()) {
            try {
                connection.transaction().afterText(TransactionText.Effect.MAY_END, false);
            } catch (SQLException e) {
                failure.addSuppressed(e);
            }
        }
        guardFailure(failure);
    }

    // ---- back-references and results: always wrappers --------------------------------------

    @Override
    public Connection getConnection() throws SQLException {
        checkOpen();
        return connection;
    }

    @Override
    public ResultSet getResultSet() throws SQLException {
        checkOpen();
        ResultSet rows = delegate.getResultSet();
        if (rows == null) {
            return null;
        }
        if (lastResult == null || !lastResult.wraps(rows)) {
            ReturningCheck check = pendingCheck;
            pendingCheck = null;
            lastResult = new FencedResultSet(connection, this, rows, executionPlan, check);
        }
        return lastResult;
    }

    @Override
    public boolean getMoreResults() throws SQLException {
        checkOpen();
        pendingCheck = null;
        return delegate.getMoreResults();
    }

    @Override
    public boolean getMoreResults(int current) throws SQLException {
        checkOpen();
        pendingCheck = null;
        return delegate.getMoreResults(current);
    }

    @Override
    public ResultSet getGeneratedKeys() throws SQLException {
        checkOpen();
        ResultSet keys = delegate.getGeneratedKeys();
        return keys == null ? null : new FencedResultSet(connection, this, keys, executionPlan, null);
    }

    @Override
    public void close() throws SQLException {
        if (!closed) {
            closed = true;
            batch = null;
            pendingCheck = null;
            lastResult = null;
            delegate.close();
        }
    }

    @Override
    public boolean isClosed() throws SQLException {
        return closed || delegate.isClosed();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        checkOpen();
        return Wrappers.unwrap(this, iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        checkOpen();
        return Wrappers.isWrapperFor(this, iface);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + delegate + "]";
    }

    // ---- plain delegation ------------------------------------------------------------------

    @Override
    public int getMaxFieldSize() throws SQLException {
        return delegate.getMaxFieldSize();
    }

    @Override
    public void setMaxFieldSize(int max) throws SQLException {
        delegate.setMaxFieldSize(max);
    }

    @Override
    public int getMaxRows() throws SQLException {
        return delegate.getMaxRows();
    }

    @Override
    public void setMaxRows(int max) throws SQLException {
        delegate.setMaxRows(max);
    }

    @Override
    public void setEscapeProcessing(boolean enable) throws SQLException {
        delegate.setEscapeProcessing(enable);
    }

    @Override
    public int getQueryTimeout() throws SQLException {
        return delegate.getQueryTimeout();
    }

    @Override
    public void setQueryTimeout(int seconds) throws SQLException {
        delegate.setQueryTimeout(seconds);
    }

    @Override
    public void cancel() throws SQLException {
        delegate.cancel();
    }

    @Override
    public SQLWarning getWarnings() throws SQLException {
        return delegate.getWarnings();
    }

    @Override
    public void clearWarnings() throws SQLException {
        delegate.clearWarnings();
    }

    @Override
    public void setCursorName(String name) throws SQLException {
        delegate.setCursorName(name);
    }

    @Override
    public int getUpdateCount() throws SQLException {
        return delegate.getUpdateCount();
    }

    @Override
    public void setFetchDirection(int direction) throws SQLException {
        delegate.setFetchDirection(direction);
    }

    @Override
    public int getFetchDirection() throws SQLException {
        return delegate.getFetchDirection();
    }

    @Override
    public void setFetchSize(int rows) throws SQLException {
        delegate.setFetchSize(rows);
    }

    @Override
    public int getFetchSize() throws SQLException {
        return delegate.getFetchSize();
    }

    @Override
    public int getResultSetConcurrency() throws SQLException {
        return delegate.getResultSetConcurrency();
    }

    @Override
    public int getResultSetType() throws SQLException {
        return delegate.getResultSetType();
    }

    @Override
    public int getResultSetHoldability() throws SQLException {
        return delegate.getResultSetHoldability();
    }

    @Override
    public void setPoolable(boolean poolable) throws SQLException {
        delegate.setPoolable(poolable);
    }

    @Override
    public boolean isPoolable() throws SQLException {
        return delegate.isPoolable();
    }

    @Override
    public void closeOnCompletion() throws SQLException {
        delegate.closeOnCompletion();
    }

    @Override
    public boolean isCloseOnCompletion() throws SQLException {
        return delegate.isCloseOnCompletion();
    }

    @Override
    public long getLargeUpdateCount() throws SQLException {
        return delegate.getLargeUpdateCount();
    }

    @Override
    public void setLargeMaxRows(long max) throws SQLException {
        delegate.setLargeMaxRows(max);
    }

    @Override
    public long getLargeMaxRows() throws SQLException {
        return delegate.getLargeMaxRows();
    }
}
