package dev.fencing.internal.jdbc;

import dev.fencing.UnfenceableStatementException;
import dev.fencing.internal.sql.FencePlan;

import java.sql.CallableStatement;
import java.sql.SQLException;
import java.util.Map;

/**
 * A callable statement, planned at prepare time like any other text. OUT
 * parameters by index use the application's numbering, like IN parameters. Parameters by name
 * cannot be mapped around the fence slots, so on a fenced write they are refused; on other
 * statements they pass to the driver. The getters, setters and registrations of plain values are
 * generated ({@link CallableStatementDelegate}) and route through {@link #parameterIndex} and
 * {@link #parameterName}; arrays and LOBs are handed out through {@link #toApplication}, the
 * {@code Object}s written here may need wrapping too.
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
    public Object getObject(String parameterName) throws SQLException {
        return fenced(delegate.getObject(parameterName));
    }

    @Override
    public Object getObject(String parameterName, Map<String, Class<?>> map) throws SQLException {
        return fenced(delegate.getObject(parameterName, map));
    }

    @Override
    public <T> T getObject(int parameterIndex, Class<T> type) throws SQLException {
        return FencedResultSet.fencedValue(connection, this, delegate.getObject(parameterIndex(parameterIndex), type), type);
    }

    @Override
    public <T> T getObject(String parameterName, Class<T> type) throws SQLException {
        return FencedResultSet.fencedValue(connection, this, delegate.getObject(parameterName, type), type);
    }

    /** getArray, getBlob, getClob, getNClob: wrapped as a result set wraps them. */
    @Override
    @SuppressWarnings("unchecked")
    <T> T toApplication(T value) {
        return (T) fenced(value);
    }
}
