package dev.fencing.internal.jdbc;

import dev.fencing.UnfenceableStatementException;
import dev.fencing.internal.diagnosis.BoundValues;
import dev.fencing.internal.diagnosis.ReturningCheck;
import dev.fencing.internal.sql.FencePlan;
import dev.fencing.internal.txn.TransactionText;

import java.sql.Connection;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * What the three statement wrappers do by hand, written once: each statement wrapper is a
 * generated delegate ({@link StatementDelegate}, {@link PreparedStatementDelegate},
 * {@link CallableStatementDelegate}) composed with one core, to which the generator forwards every
 * method of {@code Statement} and {@code PreparedStatement} it refuses to pass through, and every
 * hook. Each execute method is one call of the connection's {@link Pipeline}, which owns the
 * execution (admission, the fence, the steps before sending, settling, failures); the core only
 * names the driver call.
 *
 * <p>It is also the statement's {@link Execution}: the pipeline fills it again at each execution,
 * so the hot path allocates nothing for it (a separate execution object cost every prepared
 * statement +40 B and about +20 % on the wrapper benchmark's prepare-and-execute).
 *
 * <p>The {@code execute*(String)} methods are here for prepared statements too, because JDBC lets
 * a prepared statement be asked for them; such texts are planned like those of a plain statement.
 */
final class StatementCore extends Execution {

    /**
     * Sets a kept value again, with the setter the application used, on another statement (the
     * generated setters' name for {@link BoundValues.Replay}).
     */
    @FunctionalInterface
    interface Replay extends BoundValues.Replay {
    }

    final FencedConnection connection;
    final Pipeline pipeline;
    /** The driver's statement. */
    final Statement delegate;
    /** The driver's statement as a prepared one; null for a plain statement. */
    final PreparedStatement preparedDelegate;
    /** The plan made at prepare time; null for a plain statement (the last execution's is {@link Execution#plan}). */
    final FencePlan prepared;
    /** What the prepared text does to the transaction, decided once; null for a plain statement. */
    final TransactionText.Effect preparedEffect;
    /** The application's values, kept only when the zero-row diagnosis re-runs them; else null. */
    final BoundValues values;
    /** True when the prepared text holds a non-ASCII character the session's encoding could move ({@link SessionEncoding}). */
    final boolean preparedTextNonAscii;
    /** True when the driver writes this prepared statement's values into its text, so they are watched. */
    private final boolean watchesValues;
    /**
     * True when the driver writes this prepared statement's values into its text and the text may
     * hold several statements: an earlier one may switch the client encoding before the server
     * reads the values written into a later one ({@link SessionEncoding}).
     */
    final boolean valuesMayFollowASwitch;
    /**
     * Bit {@code i} (1..63): parameter {@code i} is bound now to a value that may hold non-ASCII
     * bytes; bit 0: a parameter past 63 was, until the parameters are cleared.
     */
    private long nonAsciiValues;
    /** The wrapper the application holds: what back-references and {@code unwrap} answer with. */
    private Statement owner;
    private boolean closed;

    private BatchLog batch;
    /** True when an entry of the pending batch may begin or end the transaction. */
    private boolean batchChangesTransaction;
    /** What the pending batch's entries need of the session's encoding. */
    private SessionEncoding.BatchBytes batchBytes = SessionEncoding.BatchBytes.NONE;

    /** The core of a plain statement. */
    StatementCore(FencedConnection connection, Statement delegate) {
        this.connection = connection;
        this.pipeline = connection.pipeline();
        this.delegate = delegate;
        this.preparedDelegate = null;
        this.prepared = null;
        this.preparedEffect = null;
        this.values = null;
        this.preparedTextNonAscii = false;
        this.watchesValues = false;
        this.valuesMayFollowASwitch = false;
    }

    /** The core of a prepared or callable statement, planned once, at prepare time. */
    StatementCore(FencedConnection connection, FencePlan plan, PreparedStatement delegate) {
        this.connection = connection;
        this.pipeline = connection.pipeline();
        this.delegate = delegate;
        this.preparedDelegate = delegate;
        this.prepared = plan;
        this.preparedEffect = pipeline.effectOf(plan);
        this.values = BoundValues.forPlan(plan, connection.config());
        this.preparedTextNonAscii = plan.sql() != null && connection.analyzer().dialect().checksClientEncoding()
                && SessionEncoding.hasNonAscii(plan.sql());
        this.watchesValues = pipeline.inlinesValues();
        this.valuesMayFollowASwitch = watchesValues && plan.sql() != null && plan.mayHoldSeveralStatements();
    }

    /** Called once by the wrapper's constructor. */
    StatementCore ownedBy(Statement wrapper) {
        this.owner = wrapper;
        return this;
    }

    final void checkOpen() throws SQLException {
        if (closed) {
            throw Wrappers.closed("statement");
        }
    }

    // ---- texts ------------------------------------------------------------------------------------

    public ResultSet executeQuery(String sql) throws SQLException {
        return pipeline.query(this, sql, (core, text) -> core.delegate.executeQuery(text));
    }

    public int executeUpdate(String sql) throws SQLException {
        return (int) pipeline.update(this, sql, (core, text) -> core.delegate.executeUpdate(text));
    }

    public int executeUpdate(String sql, int autoGeneratedKeys) throws SQLException {
        return (int) pipeline.update(this, sql, (core, text) -> core.delegate.executeUpdate(text, autoGeneratedKeys));
    }

    public int executeUpdate(String sql, int[] columnIndexes) throws SQLException {
        return (int) pipeline.update(this, sql, (core, text) -> core.delegate.executeUpdate(text, columnIndexes));
    }

    public int executeUpdate(String sql, String[] columnNames) throws SQLException {
        return (int) pipeline.update(this, sql, (core, text) -> core.delegate.executeUpdate(text, columnNames));
    }

    public long executeLargeUpdate(String sql) throws SQLException {
        return pipeline.update(this, sql, (core, text) -> core.delegate.executeLargeUpdate(text));
    }

    public long executeLargeUpdate(String sql, int autoGeneratedKeys) throws SQLException {
        return pipeline.update(this, sql, (core, text) -> core.delegate.executeLargeUpdate(text, autoGeneratedKeys));
    }

    public long executeLargeUpdate(String sql, int[] columnIndexes) throws SQLException {
        return pipeline.update(this, sql, (core, text) -> core.delegate.executeLargeUpdate(text, columnIndexes));
    }

    public long executeLargeUpdate(String sql, String[] columnNames) throws SQLException {
        return pipeline.update(this, sql, (core, text) -> core.delegate.executeLargeUpdate(text, columnNames));
    }

    public boolean execute(String sql) throws SQLException {
        return pipeline.execute(this, sql, (core, text) -> core.delegate.execute(text));
    }

    public boolean execute(String sql, int autoGeneratedKeys) throws SQLException {
        return pipeline.execute(this, sql, (core, text) -> core.delegate.execute(text, autoGeneratedKeys));
    }

    public boolean execute(String sql, int[] columnIndexes) throws SQLException {
        return pipeline.execute(this, sql, (core, text) -> core.delegate.execute(text, columnIndexes));
    }

    public boolean execute(String sql, String[] columnNames) throws SQLException {
        return pipeline.execute(this, sql, (core, text) -> core.delegate.execute(text, columnNames));
    }

    /** Plans the entry now: a fenced write carries the fence current at {@code addBatch}. */
    public void addBatch(String sql) throws SQLException {
        pipeline.add(this, sql, (core, text) -> core.delegate.addBatch(text));
    }

    // ---- the prepared text ------------------------------------------------------------------------

    public ResultSet executeQuery() throws SQLException {
        return pipeline.query(this, null, (core, text) -> core.preparedDelegate.executeQuery());
    }

    public int executeUpdate() throws SQLException {
        return (int) pipeline.update(this, null, (core, text) -> core.preparedDelegate.executeUpdate());
    }

    public long executeLargeUpdate() throws SQLException {
        return pipeline.update(this, null, (core, text) -> core.preparedDelegate.executeLargeUpdate());
    }

    public boolean execute() throws SQLException {
        return pipeline.execute(this, null, (core, text) -> core.preparedDelegate.execute());
    }

    /** The entry carries the fence admitted now, whatever is in scope when the batch runs. */
    public void addBatch() throws SQLException {
        pipeline.add(this, null, (core, text) -> core.preparedDelegate.addBatch());
    }

    public void clearParameters() throws SQLException {
        preparedDelegate.clearParameters();
        nonAsciiValues = 0;
        if (values != null) {
            values.clear();
        }
    }

    public ParameterMetaData getParameterMetaData() throws SQLException {
        checkOpen();
        return new FencedParameterMetaData(preparedDelegate.getParameterMetaData(), prepared);
    }

    // ---- batches ----------------------------------------------------------------------------------

    /** Records an entry the delegate has just accepted (the pipeline's {@code add}). */
    void added(Execution e, Object[] valuesSnapshot) {
        if (batch == null) {
            batch = new BatchLog();
        }
        batch.add(e.plan, e.fence, e.lock, valuesSnapshot);
        batchChangesTransaction |= e.effect != TransactionText.Effect.NONE;
    }

    /** How many entries the pending batch holds. */
    int pendingBatchEntries() {
        return batch == null ? 0 : batch.size();
    }

    /** Notes what an entry about to be added needs of the session's encoding. */
    void addingBytes(SessionEncoding.BatchBytes entry) {
        batchBytes = batchBytes.and(entry);
    }

    /** What the pending batch's entries need of the session's encoding. */
    SessionEncoding.BatchBytes batchBytes() {
        return batchBytes;
    }

    /** The pending batch, handed to the pipeline to run: the statement forgets it. */
    BatchLog takeBatch() {
        BatchLog log = batch;
        batch = null;
        batchBytes = SessionEncoding.BatchBytes.NONE;
        return log;
    }

    /** True when an entry of the batch just taken may begin or end the transaction; forgotten with it. */
    boolean takeBatchChangesTransaction() {
        boolean changes = batchChangesTransaction;
        batchChangesTransaction = false;
        return changes;
    }

    public void clearBatch() throws SQLException {
        checkOpen();
        delegate.clearBatch();
        batch = null;
        batchChangesTransaction = false;
        batchBytes = SessionEncoding.BatchBytes.NONE;
    }

    public int[] executeBatch() throws SQLException {
        return pipeline.batch(this, core -> core.delegate.executeBatch());
    }

    public long[] executeLargeBatch() throws SQLException {
        return pipeline.batch(this, core -> core.delegate.executeLargeBatch());
    }

    // ---- back-references and results: always wrappers ----------------------------------------------

    public Connection getConnection() throws SQLException {
        checkOpen();
        return connection;
    }

    public ResultSet getResultSet() throws SQLException {
        checkOpen();
        ResultSet rows = delegate.getResultSet();
        if (rows == null) {
            return null;
        }
        if (lastResult == null || !lastResult.wraps(rows)) {
            ReturningCheck check = pendingCheck;
            pendingCheck = null;
            lastResult = new FencedResultSet(connection, owner, rows, plan, check);
        }
        return lastResult;
    }

    /** The fenced view of the rows an {@code executeQuery} returned. */
    FencedResultSet rows(ResultSet rows, ReturningCheck check) {
        lastResult = new FencedResultSet(connection, owner, rows, plan, check);
        return lastResult;
    }

    public boolean getMoreResults() throws SQLException {
        checkOpen();
        pendingCheck = null;
        return delegate.getMoreResults();
    }

    public boolean getMoreResults(int current) throws SQLException {
        checkOpen();
        pendingCheck = null;
        return delegate.getMoreResults(current);
    }

    public ResultSet getGeneratedKeys() throws SQLException {
        checkOpen();
        ResultSet keys = delegate.getGeneratedKeys();
        return keys == null ? null : new FencedResultSet(connection, owner, keys, plan, null);
    }

    public void close() throws SQLException {
        if (!closed) {
            closed = true;
            batch = null;
            pendingCheck = null;
            lastResult = null;
            delegate.close();
        }
    }

    public boolean isClosed() throws SQLException {
        return closed || delegate.isClosed();
    }

    public <T> T unwrap(Class<T> iface) throws SQLException {
        checkOpen();
        return Wrappers.unwrap(owner, iface);
    }

    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        checkOpen();
        return Wrappers.isWrapperFor(owner, iface);
    }

    @Override
    public String toString() {
        return owner.getClass().getSimpleName() + "[" + delegate + "]";
    }

    // ---- hooks of the generated setters and getters -----------------------------------------------

    /**
     * The database's index of the application's parameter {@code parameterIndex}; an index the
     * application's text does not have is refused (SQLState 07009, invalid descriptor index), so
     * that no application call reaches a fence slot.
     */
    int parameterIndex(int parameterIndex) throws SQLException {
        return databaseIndex(prepared, parameterIndex);
    }

    /** {@link #parameterIndex} in {@code plan}. */
    static int databaseIndex(FencePlan plan, int parameterIndex) throws SQLException {
        int index = plan.databaseIndex(parameterIndex);
        if (index < 0) {
            throw new SQLException("parameter index " + parameterIndex + " out of range (1.."
                    + plan.parameterCount() + ")", "07009");
        }
        return index;
    }

    boolean keepsValues() {
        return values != null || watchesValues;
    }

    void keepValue(int parameterIndex, Object value) {
        if (values != null) {
            values.set(parameterIndex, value);
        }
        if (watchesValues) {
            watchValue(parameterIndex, mayHoldNonAscii(value));
        }
    }

    void keep(int parameterIndex, Object value, Replay replay) {
        if (values != null) {
            values.set(parameterIndex, replay);
        }
        if (watchesValues) {
            watchValue(parameterIndex, mayHoldNonAscii(value));
        }
    }

    void keepUnrepeatable(int parameterIndex) {
        if (values != null) {
            values.setUnrepeatable(parameterIndex);
        }
        if (watchesValues) {
            watchValue(parameterIndex, true); // a stream's bytes are not known before it is sent
        }
    }

    // ---- values the driver writes into the text ----------------------------------------------------

    /** Notes whether parameter {@code parameterIndex} is bound now to a value that may hold non-ASCII bytes. */
    private void watchValue(int parameterIndex, boolean nonAscii) {
        if (parameterIndex > 0 && parameterIndex < 64) {
            long bit = 1L << parameterIndex;
            nonAsciiValues = nonAscii ? nonAsciiValues | bit : nonAsciiValues & ~bit;
        } else if (nonAscii) {
            nonAsciiValues |= 1L; // an index past 63: kept until the parameters are cleared
        }
    }

    /** True when a value bound now may hold non-ASCII bytes that the driver writes into the text it sends. */
    boolean boundNonAsciiValues() {
        return nonAsciiValues != 0;
    }

    /**
     * True when {@code value} may be written as non-ASCII bytes: text and bytes are looked at;
     * numbers, booleans, dates and times are written in ASCII; anything else may be anything.
     */
    static boolean mayHoldNonAscii(Object value) {
        if (value == null || value instanceof Number || value instanceof Boolean || value instanceof java.util.Date
                || value instanceof java.time.temporal.TemporalAccessor || value instanceof java.util.UUID) {
            return false;
        }
        if (value instanceof CharSequence text) {
            return SessionEncoding.hasNonAscii(text);
        }
        if (value instanceof byte[] bytes) {
            return SessionEncoding.hasNonAscii(bytes);
        }
        if (value instanceof Character c) {
            return c >= 0x80;
        }
        return true;
    }

    /** Refuses binding by name on a fenced write: the driver's numbering is not the application's. */
    String parameterName(String parameterName) throws SQLException {
        checkOpen();
        if (prepared.kind() == FencePlan.Kind.FENCED) {
            throw new UnfenceableStatementException(prepared.fencedTable(), "parameters cannot be bound by name on a"
                    + " write to fenced table " + prepared.fencedTable() + ": its parameters are renumbered around the"
                    + " fence check. Bind them by index.");
        }
        return parameterName;
    }

    <T> T toDriver(T value) {
        return Wrappers.toDriver(value);
    }

    /** An array, LOB or nested result set read through a callable statement: wrapped as a result set wraps them. */
    @SuppressWarnings("unchecked")
    <T> T toApplication(T value) {
        return (T) FencedResultSet.fencedValue(connection, owner, value);
    }
}
