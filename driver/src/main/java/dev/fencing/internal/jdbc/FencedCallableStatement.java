package dev.fencing.internal.jdbc;

import dev.fencing.UnfenceableStatementException;
import dev.fencing.internal.sql.FencePlan;

import java.sql.Array;
import java.sql.Blob;
import java.sql.Clob;
import java.sql.NClob;
import java.sql.CallableStatement;
import java.sql.SQLException;
import java.util.Map;

/**
 * A callable statement, planned at prepare time like any other text. OUT
 * parameters by index use the application's numbering, like IN parameters. Parameters by name
 * cannot be mapped around the fence slots, so on a fenced write they are refused; on other
 * statements they pass to the driver. The getters, setters and registrations of plain values are
 * generated ({@link CallableStatementDelegate}) and route through {@link #parameterIndex} and
 * {@link #parameterName}; the ones written here hand out an {@code Object}, an array or a LOB,
 * which may need wrapping.
 */
final class FencedCallableStatement extends CallableStatementDelegate {

    FencedCallableStatement(FencedConnection connection, FencePlan plan, CallableStatement statement) {
        super(connection, plan, statement);
    }

    /** Refuses binding by name on a fenced write: the driver's numbering is not the application's. */
    @Override
    String parameterName(String parameterName) throws SQLException {
        checkOpen();
        if (prepared.kind() == FencePlan.Kind.FENCED) {
            throw new UnfenceableStatementException(prepared.fencedTable(), "parameters cannot be bound by name on a"
                    + " write to fenced table " + prepared.fencedTable() + ": its parameters are renumbered around the"
                    + " fence check. Bind them by index.");
        }
        return parameterName;
    }

    private Object fenced(Object value) {
        return FencedResultSet.fencedValue(connection, this, value);
    }

    @Override
    public Object getObject(int parameterIndex) throws SQLException {
        return fenced(delegate.getObject(parameterIndex(parameterIndex)));
    }

    @Override
    public Object getObject(int parameterIndex, Map<String, Class<?>> map) throws SQLException {
        return fenced(delegate.getObject(parameterIndex(parameterIndex), map));
    }

    @Override
    public Array getArray(int parameterIndex) throws SQLException {
        return FencedArray.wrap(connection, delegate.getArray(parameterIndex(parameterIndex)));
    }

    @Override
    public Object getObject(String parameterName) throws SQLException {
        return fenced(delegate.getObject(parameterName));
    }

    @Override
    public Object getObject(String parameterName, Map<String, Class<?>> map) throws SQLException {
        return fenced(delegate.getObject(parameterName, map));
    }

    @Override
    public Array getArray(String parameterName) throws SQLException {
        return FencedArray.wrap(connection, delegate.getArray(parameterName));
    }

    // LOBs are handed out read-only, as by a result set (FencedBlob).

    @Override
    public Blob getBlob(int parameterIndex) throws SQLException {
        return FencedBlob.wrap(delegate.getBlob(parameterIndex(parameterIndex)));
    }

    @Override
    public Blob getBlob(String parameterName) throws SQLException {
        return FencedBlob.wrap(delegate.getBlob(parameterName));
    }

    @Override
    public Clob getClob(int parameterIndex) throws SQLException {
        return FencedClob.wrap(delegate.getClob(parameterIndex(parameterIndex)));
    }

    @Override
    public Clob getClob(String parameterName) throws SQLException {
        return FencedClob.wrap(delegate.getClob(parameterName));
    }

    @Override
    public NClob getNClob(int parameterIndex) throws SQLException {
        return FencedClob.wrap(delegate.getNClob(parameterIndex(parameterIndex)));
    }

    @Override
    public NClob getNClob(String parameterName) throws SQLException {
        return FencedClob.wrap(delegate.getNClob(parameterName));
    }

    @Override
    public <T> T getObject(int parameterIndex, Class<T> type) throws SQLException {
        return FencedResultSet.fencedValue(connection, this, delegate.getObject(parameterIndex(parameterIndex), type), type);
    }

    @Override
    public <T> T getObject(String parameterName, Class<T> type) throws SQLException {
        return FencedResultSet.fencedValue(connection, this, delegate.getObject(parameterName, type), type);
    }
}
