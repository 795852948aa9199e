package dev.fencing.internal.jdbc;

import dev.fencing.internal.sql.FencePlan;

import java.io.InputStream;
import java.io.Reader;
import java.math.BigDecimal;
import java.net.URL;
import java.sql.Array;
import java.sql.Blob;
import java.sql.Clob;
import java.sql.Date;
import java.sql.NClob;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.Ref;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.RowId;
import java.sql.SQLException;
import java.sql.SQLType;
import java.sql.SQLXML;
import java.sql.Time;
import java.sql.Timestamp;
import java.util.Calendar;

/**
 * A prepared statement planned once, at prepare time: the driver prepared the plan's text, with
 * the fence check spliced in. The application keeps its own parameter indexes, which are mapped
 * to the database's; an index outside the application's text is refused, so no setter can reach
 * a fence slot. The fence is bound by this class alone, from the fence {@link Pipeline#admit}
 * admitted, before each execution and each {@code addBatch}.
 */
class FencedPreparedStatement extends DelegatingStatement implements PreparedStatement {

    private final PreparedStatement statement;
    /** The plan made at prepare time (the last execution's, admitted, is {@link Execution#plan}). */
    final FencePlan prepared;
    /** The application's values, kept only when the zero-row diagnosis re-runs them; else null. */
    private final BoundValues values;
    /** What this statement's text does to the transaction, decided once. */
    private final TransactionText.Effect effect;

    FencedPreparedStatement(FencedConnection connection, PreparedStatement statement, FencePlan plan) {
        super(connection, statement);
        this.statement = statement;
        this.prepared = plan;
        this.values = BoundValues.forPlan(plan, connection.config());
        this.effect = pipeline.effectOf(plan);
    }

    /** The database's index of application parameter {@code parameterIndex}; refuses any other. */
    final int index(int parameterIndex) throws SQLException {
        return databaseIndex(prepared, parameterIndex);
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
                statement.setLong(slot, e.fence);
            }
        }
        return e;
    }

    @Override
    public ResultSet executeQuery() throws SQLException {
        Execution e = admit();
        pipeline.beforeSend(e);
        try {
            ResultSet rows = pipeline.queried(e, this, statement.executeQuery());
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
            long count = pipeline.counted(e, statement.executeUpdate());
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
            long count = pipeline.counted(e, statement.executeLargeUpdate());
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
            boolean resultSet = pipeline.executed(e, statement.execute(), statement);
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
        statement.addBatch();
        added(e, values == null ? null : values.snapshot());
    }

    @Override
    public void clearParameters() throws SQLException {
        statement.clearParameters();
        if (values != null) {
            values.clear();
        }
    }

    @Override
    public ParameterMetaData getParameterMetaData() throws SQLException {
        checkOpen();
        return new FencedParameterMetaData(statement.getParameterMetaData(), prepared);
    }

    @Override
    public ResultSetMetaData getMetaData() throws SQLException {
        return statement.getMetaData();
    }

    // ---- setters: the application's index mapped; the value kept when the diagnosis needs it ----

    @Override
    public void setNull(int parameterIndex, int sqlType) throws SQLException {
        int index = index(parameterIndex);
        statement.setNull(index, sqlType);
        if (values != null) {
            values.set(parameterIndex, new BoundValues.SqlNull(sqlType, null));
        }
    }

    @Override
    public void setBoolean(int parameterIndex, boolean x) throws SQLException {
        int index = index(parameterIndex);
        statement.setBoolean(index, x);
        if (values != null) {
            values.set(parameterIndex, x);
        }
    }

    @Override
    public void setByte(int parameterIndex, byte x) throws SQLException {
        int index = index(parameterIndex);
        statement.setByte(index, x);
        if (values != null) {
            values.set(parameterIndex, x);
        }
    }

    @Override
    public void setShort(int parameterIndex, short x) throws SQLException {
        int index = index(parameterIndex);
        statement.setShort(index, x);
        if (values != null) {
            values.set(parameterIndex, x);
        }
    }

    @Override
    public void setInt(int parameterIndex, int x) throws SQLException {
        int index = index(parameterIndex);
        statement.setInt(index, x);
        if (values != null) {
            values.set(parameterIndex, x);
        }
    }

    @Override
    public void setLong(int parameterIndex, long x) throws SQLException {
        int index = index(parameterIndex);
        statement.setLong(index, x);
        if (values != null) {
            values.set(parameterIndex, x);
        }
    }

    @Override
    public void setFloat(int parameterIndex, float x) throws SQLException {
        int index = index(parameterIndex);
        statement.setFloat(index, x);
        if (values != null) {
            values.set(parameterIndex, x);
        }
    }

    @Override
    public void setDouble(int parameterIndex, double x) throws SQLException {
        int index = index(parameterIndex);
        statement.setDouble(index, x);
        if (values != null) {
            values.set(parameterIndex, x);
        }
    }

    @Override
    public void setBigDecimal(int parameterIndex, BigDecimal x) throws SQLException {
        int index = index(parameterIndex);
        statement.setBigDecimal(index, x);
        if (values != null) {
            values.set(parameterIndex, x);
        }
    }

    @Override
    public void setString(int parameterIndex, String x) throws SQLException {
        int index = index(parameterIndex);
        statement.setString(index, x);
        if (values != null) {
            values.set(parameterIndex, x);
        }
    }

    @Override
    public void setBytes(int parameterIndex, byte[] x) throws SQLException {
        int index = index(parameterIndex);
        statement.setBytes(index, x);
        if (values != null) {
            values.set(parameterIndex, x);
        }
    }

    @Override
    public void setDate(int parameterIndex, Date x) throws SQLException {
        int index = index(parameterIndex);
        statement.setDate(index, x);
        if (values != null) {
            values.set(parameterIndex, x);
        }
    }

    @Override
    public void setTime(int parameterIndex, Time x) throws SQLException {
        int index = index(parameterIndex);
        statement.setTime(index, x);
        if (values != null) {
            values.set(parameterIndex, x);
        }
    }

    @Override
    public void setTimestamp(int parameterIndex, Timestamp x) throws SQLException {
        int index = index(parameterIndex);
        statement.setTimestamp(index, x);
        if (values != null) {
            values.set(parameterIndex, x);
        }
    }

    @Override
    public void setAsciiStream(int parameterIndex, InputStream x, int length) throws SQLException {
        int index = index(parameterIndex);
        statement.setAsciiStream(index, x, length);
        if (values != null) {
            values.set(parameterIndex, BoundValues.UNREPLAYABLE);
        }
    }

    @Override
    @Deprecated
    public void setUnicodeStream(int parameterIndex, InputStream x, int length) throws SQLException {
        int index = index(parameterIndex);
        statement.setUnicodeStream(index, x, length);
        if (values != null) {
            values.set(parameterIndex, BoundValues.UNREPLAYABLE);
        }
    }

    @Override
    public void setBinaryStream(int parameterIndex, InputStream x, int length) throws SQLException {
        int index = index(parameterIndex);
        statement.setBinaryStream(index, x, length);
        if (values != null) {
            values.set(parameterIndex, BoundValues.UNREPLAYABLE);
        }
    }

    @Override
    public void setObject(int parameterIndex, Object x, int targetSqlType) throws SQLException {
        int index = index(parameterIndex);
        statement.setObject(index, Wrappers.toDriver(x), targetSqlType);
        if (values != null) {
            values.set(parameterIndex, new BoundValues.Typed(Wrappers.toDriver(x), targetSqlType, -1));
        }
    }

    @Override
    public void setObject(int parameterIndex, Object x) throws SQLException {
        int index = index(parameterIndex);
        statement.setObject(index, Wrappers.toDriver(x));
        if (values != null) {
            values.set(parameterIndex, Wrappers.toDriver(x));
        }
    }

    @Override
    public void setCharacterStream(int parameterIndex, Reader reader, int length) throws SQLException {
        int index = index(parameterIndex);
        statement.setCharacterStream(index, reader, length);
        if (values != null) {
            values.set(parameterIndex, BoundValues.UNREPLAYABLE);
        }
    }

    @Override
    public void setRef(int parameterIndex, Ref x) throws SQLException {
        int index = index(parameterIndex);
        statement.setRef(index, x);
        if (values != null) {
            values.set(parameterIndex, x);
        }
    }

    @Override
    public void setBlob(int parameterIndex, Blob x) throws SQLException {
        int index = index(parameterIndex);
        statement.setBlob(index, x);
        if (values != null) {
            values.set(parameterIndex, x);
        }
    }

    @Override
    public void setClob(int parameterIndex, Clob x) throws SQLException {
        int index = index(parameterIndex);
        statement.setClob(index, x);
        if (values != null) {
            values.set(parameterIndex, x);
        }
    }

    @Override
    public void setArray(int parameterIndex, Array x) throws SQLException {
        int index = index(parameterIndex);
        statement.setArray(index, Wrappers.toDriver(x));
        if (values != null) {
            values.set(parameterIndex, Wrappers.toDriver(x));
        }
    }

    @Override
    public void setDate(int parameterIndex, Date x, Calendar cal) throws SQLException {
        int index = index(parameterIndex);
        statement.setDate(index, x, cal);
        if (values != null) {
            values.set(parameterIndex, new BoundValues.WithCalendar(x, cal));
        }
    }

    @Override
    public void setTime(int parameterIndex, Time x, Calendar cal) throws SQLException {
        int index = index(parameterIndex);
        statement.setTime(index, x, cal);
        if (values != null) {
            values.set(parameterIndex, new BoundValues.WithCalendar(x, cal));
        }
    }

    @Override
    public void setTimestamp(int parameterIndex, Timestamp x, Calendar cal) throws SQLException {
        int index = index(parameterIndex);
        statement.setTimestamp(index, x, cal);
        if (values != null) {
            values.set(parameterIndex, new BoundValues.WithCalendar(x, cal));
        }
    }

    @Override
    public void setNull(int parameterIndex, int sqlType, String typeName) throws SQLException {
        int index = index(parameterIndex);
        statement.setNull(index, sqlType, typeName);
        if (values != null) {
            values.set(parameterIndex, new BoundValues.SqlNull(sqlType, typeName));
        }
    }

    @Override
    public void setURL(int parameterIndex, URL x) throws SQLException {
        int index = index(parameterIndex);
        statement.setURL(index, x);
        if (values != null) {
            values.set(parameterIndex, x);
        }
    }

    @Override
    public void setRowId(int parameterIndex, RowId x) throws SQLException {
        int index = index(parameterIndex);
        statement.setRowId(index, x);
        if (values != null) {
            values.set(parameterIndex, x);
        }
    }

    @Override
    public void setNString(int parameterIndex, String value) throws SQLException {
        int index = index(parameterIndex);
        statement.setNString(index, value);
        if (values != null) {
            values.set(parameterIndex, new BoundValues.NString(value));
        }
    }

    @Override
    public void setNCharacterStream(int parameterIndex, Reader value, long length) throws SQLException {
        int index = index(parameterIndex);
        statement.setNCharacterStream(index, value, length);
        if (values != null) {
            values.set(parameterIndex, BoundValues.UNREPLAYABLE);
        }
    }

    @Override
    public void setNClob(int parameterIndex, NClob value) throws SQLException {
        int index = index(parameterIndex);
        statement.setNClob(index, value);
        if (values != null) {
            values.set(parameterIndex, value);
        }
    }

    @Override
    public void setClob(int parameterIndex, Reader reader, long length) throws SQLException {
        int index = index(parameterIndex);
        statement.setClob(index, reader, length);
        if (values != null) {
            values.set(parameterIndex, BoundValues.UNREPLAYABLE);
        }
    }

    @Override
    public void setBlob(int parameterIndex, InputStream inputStream, long length) throws SQLException {
        int index = index(parameterIndex);
        statement.setBlob(index, inputStream, length);
        if (values != null) {
            values.set(parameterIndex, BoundValues.UNREPLAYABLE);
        }
    }

    @Override
    public void setNClob(int parameterIndex, Reader reader, long length) throws SQLException {
        int index = index(parameterIndex);
        statement.setNClob(index, reader, length);
        if (values != null) {
            values.set(parameterIndex, BoundValues.UNREPLAYABLE);
        }
    }

    @Override
    public void setSQLXML(int parameterIndex, SQLXML xmlObject) throws SQLException {
        int index = index(parameterIndex);
        statement.setSQLXML(index, xmlObject);
        if (values != null) {
            values.set(parameterIndex, BoundValues.UNREPLAYABLE);
        }
    }

    @Override
    public void setObject(int parameterIndex, Object x, int targetSqlType, int scaleOrLength) throws SQLException {
        int index = index(parameterIndex);
        statement.setObject(index, Wrappers.toDriver(x), targetSqlType, scaleOrLength);
        if (values != null) {
            values.set(parameterIndex, new BoundValues.Typed(Wrappers.toDriver(x), targetSqlType, scaleOrLength));
        }
    }

    @Override
    public void setAsciiStream(int parameterIndex, InputStream x, long length) throws SQLException {
        int index = index(parameterIndex);
        statement.setAsciiStream(index, x, length);
        if (values != null) {
            values.set(parameterIndex, BoundValues.UNREPLAYABLE);
        }
    }

    @Override
    public void setBinaryStream(int parameterIndex, InputStream x, long length) throws SQLException {
        int index = index(parameterIndex);
        statement.setBinaryStream(index, x, length);
        if (values != null) {
            values.set(parameterIndex, BoundValues.UNREPLAYABLE);
        }
    }

    @Override
    public void setCharacterStream(int parameterIndex, Reader reader, long length) throws SQLException {
        int index = index(parameterIndex);
        statement.setCharacterStream(index, reader, length);
        if (values != null) {
            values.set(parameterIndex, BoundValues.UNREPLAYABLE);
        }
    }

    @Override
    public void setAsciiStream(int parameterIndex, InputStream x) throws SQLException {
        int index = index(parameterIndex);
        statement.setAsciiStream(index, x);
        if (values != null) {
            values.set(parameterIndex, BoundValues.UNREPLAYABLE);
        }
    }

    @Override
    public void setBinaryStream(int parameterIndex, InputStream x) throws SQLException {
        int index = index(parameterIndex);
        statement.setBinaryStream(index, x);
        if (values != null) {
            values.set(parameterIndex, BoundValues.UNREPLAYABLE);
        }
    }

    @Override
    public void setCharacterStream(int parameterIndex, Reader reader) throws SQLException {
        int index = index(parameterIndex);
        statement.setCharacterStream(index, reader);
        if (values != null) {
            values.set(parameterIndex, BoundValues.UNREPLAYABLE);
        }
    }

    @Override
    public void setNCharacterStream(int parameterIndex, Reader value) throws SQLException {
        int index = index(parameterIndex);
        statement.setNCharacterStream(index, value);
        if (values != null) {
            values.set(parameterIndex, BoundValues.UNREPLAYABLE);
        }
    }

    @Override
    public void setClob(int parameterIndex, Reader reader) throws SQLException {
        int index = index(parameterIndex);
        statement.setClob(index, reader);
        if (values != null) {
            values.set(parameterIndex, BoundValues.UNREPLAYABLE);
        }
    }

    @Override
    public void setBlob(int parameterIndex, InputStream inputStream) throws SQLException {
        int index = index(parameterIndex);
        statement.setBlob(index, inputStream);
        if (values != null) {
            values.set(parameterIndex, BoundValues.UNREPLAYABLE);
        }
    }

    @Override
    public void setNClob(int parameterIndex, Reader reader) throws SQLException {
        int index = index(parameterIndex);
        statement.setNClob(index, reader);
        if (values != null) {
            values.set(parameterIndex, BoundValues.UNREPLAYABLE);
        }
    }

    @Override
    public void setObject(int parameterIndex, Object x, SQLType targetSqlType, int scaleOrLength) throws SQLException {
        int index = index(parameterIndex);
        statement.setObject(index, Wrappers.toDriver(x), targetSqlType, scaleOrLength);
        if (values != null) {
            values.set(parameterIndex, new BoundValues.TypedAs(Wrappers.toDriver(x), targetSqlType, scaleOrLength));
        }
    }

    @Override
    public void setObject(int parameterIndex, Object x, SQLType targetSqlType) throws SQLException {
        int index = index(parameterIndex);
        statement.setObject(index, Wrappers.toDriver(x), targetSqlType);
        if (values != null) {
            values.set(parameterIndex, new BoundValues.TypedAs(Wrappers.toDriver(x), targetSqlType, -1));
        }
    }
}
