package dev.fencing.internal.jdbc;

import dev.fencing.internal.txn.TransactionText;
import dev.fencing.internal.sql.FencePlan;

import java.sql.Array;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * A prepared statement planned once, at prepare time: the driver prepared the plan's text, with
 * the fence check spliced in. The application keeps its own parameter indexes, which are mapped
 * to the database's by {@link #parameterIndex}; an index outside the application's text is
 * refused, so no setter can reach a fence slot. The fence is bound by this class alone, from the
 * fence {@link Pipeline#admit} admitted, before each execution and each {@code addBatch}.
 *
 * <p>The setters that take plain values are generated ({@link PreparedStatementDelegate}) and route
 * through {@link #parameterIndex} and {@link #keep}; the ones written here take an {@code Object}
 * or a JDBC object, which the generator leaves to the wrapper.
 */
class FencedPreparedStatement extends PreparedStatementDelegate {

    /** The plan made at prepare time (the last execution's, admitted, is {@link Execution#plan}). */
    final FencePlan prepared;
    /** The application's values, kept only when the zero-row diagnosis re-runs them; else null. */
    private final BoundValues values;
    /** What this statement's text does to the transaction, decided once. */
    private final TransactionText.Effect effect;

    FencedPreparedStatement(FencedConnection connection, FencePlan plan, PreparedStatement statement) {
        super(connection, statement);
        this.prepared = plan;
        this.values = BoundValues.forPlan(plan, connection.config());
        this.effect = pipeline.effectOf(plan);
    }

    @Override
    final int parameterIndex(int parameterIndex) throws SQLException {
        return databaseIndex(prepared, parameterIndex);
    }

    @Override
    final boolean keepsValues() {
        return values != null;
    }

    @Override
    final void keepValue(int parameterIndex, Object value) {
        values.set(parameterIndex, value);
    }

    @Override
    final void keep(int parameterIndex, Replay replay) {
        values.set(parameterIndex, replay);
    }

    @Override
    final void keepUnrepeatable(int parameterIndex) {
        values.setUnrepeatable(parameterIndex);
    }

    /**
     * The database's index of the application's parameter {@code parameterIndex} in {@code plan};
     * an index the application's text does not have is refused (SQLState 07009, invalid descriptor
     * index), so that no application call reaches a fence slot.
     */
    static int databaseIndex(FencePlan plan, int parameterIndex) throws SQLException {
        int index = plan.databaseIndex(parameterIndex);
        if (index < 0) {
            throw new SQLException("parameter index " + parameterIndex + " out of range (1.."
                    + plan.parameterCount() + ")", "07009");
        }
        return index;
    }

    /** Step 1 of the pipeline, and the admitted fence bound to the plan's fence slots. */
    private Execution admit() throws SQLException {
        checkOpen();
        Execution e = pipeline.admit(this, prepared, values == null ? null : values.live(), effect);
        if (e.fenced()) {
            for (int slot : prepared.fenceIndexes()) {
                delegate.setLong(slot, e.fence);
            }
        }
        return e;
    }

    @Override
    public ResultSet executeQuery() throws SQLException {
        Execution e = admit();
        pipeline.beforeSend(e);
        try {
            ResultSet rows = pipeline.queried(e, this, delegate.executeQuery());
            pipeline.sent(e);
            return rows;
        } catch (Throwable failure) {
            pipeline.failed(e, failure);
            throw failure;
        }
    }

    @Override
    public int executeUpdate() throws SQLException {
        Execution e = admit();
        pipeline.beforeSend(e);
        try {
            long count = pipeline.counted(e, delegate.executeUpdate());
            pipeline.sent(e);
            return (int) count;
        } catch (Throwable failure) {
            pipeline.failed(e, failure);
            throw failure;
        }
    }

    @Override
    public long executeLargeUpdate() throws SQLException {
        Execution e = admit();
        pipeline.beforeSend(e);
        try {
            long count = pipeline.counted(e, delegate.executeLargeUpdate());
            pipeline.sent(e);
            return count;
        } catch (Throwable failure) {
            pipeline.failed(e, failure);
            throw failure;
        }
    }

    @Override
    public boolean execute() throws SQLException {
        Execution e = admit();
        pipeline.beforeSend(e);
        try {
            boolean resultSet = pipeline.executed(e, delegate.execute(), delegate);
            pipeline.sent(e);
            return resultSet;
        } catch (Throwable failure) {
            pipeline.failed(e, failure);
            throw failure;
        }
    }

    /** The entry carries the fence admitted now, whatever is in scope when the batch runs. */
    @Override
    public void addBatch() throws SQLException {
        Execution e = admit();
        delegate.addBatch();
        added(e, values == null ? null : values.snapshot());
    }

    @Override
    public void clearParameters() throws SQLException {
        delegate.clearParameters();
        if (values != null) {
            values.clear();
        }
    }

    @Override
    public ParameterMetaData getParameterMetaData() throws SQLException {
        checkOpen();
        return new FencedParameterMetaData(delegate.getParameterMetaData(), prepared);
    }

    @Override
    <T> T toDriver(T value) {
        return Wrappers.toDriver(value);
    }
}
