package dev.fencing.internal.jdbc;

import dev.fencing.UnfenceableStatementException;
import dev.fencing.internal.sql.FencePlan;

import java.sql.Array;
import java.sql.Blob;
import java.sql.CallableStatement;
import java.sql.Clob;
import java.sql.NClob;
import java.sql.Ref;
import java.sql.RowId;
import java.sql.SQLException;
import java.sql.SQLType;
import java.sql.SQLXML;
import java.util.Map;

/**
 * A callable statement, planned at prepare time like any other text. OUT
 * parameters by index use the application's numbering, like IN parameters. Parameters by name
 * cannot be mapped around the fence slots, so on a fenced write they are refused; on other
 * statements they pass to the driver. The getters, setters and registrations of plain values are
 * generated ({@link CallableStatementDelegate}) and route through {@link #parameterIndex} and
 * {@link #parameterName}; the ones written here take or return an {@code Object} or a JDBC object.
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
    public Ref getRef(int parameterIndex) throws SQLException {
        return delegate.getRef(parameterIndex(parameterIndex));
    }

    @Override
    public Blob getBlob(int parameterIndex) throws SQLException {
        return delegate.getBlob(parameterIndex(parameterIndex));
    }

    @Override
    public Clob getClob(int parameterIndex) throws SQLException {
        return delegate.getClob(parameterIndex(parameterIndex));
    }

    @Override
    public Array getArray(int parameterIndex) throws SQLException {
        return FencedArray.wrap(connection, delegate.getArray(parameterIndex(parameterIndex)));
    }

    @Override
    public void setObject(String parameterName, Object x, int targetSqlType, int scale) throws SQLException {
        delegate.setObject(parameterName(parameterName), Wrappers.toDriver(x), targetSqlType, scale);
    }

    @Override
    public void setObject(String parameterName, Object x, int targetSqlType) throws SQLException {
        delegate.setObject(parameterName(parameterName), Wrappers.toDriver(x), targetSqlType);
    }

    @Override
    public void setObject(String parameterName, Object x) throws SQLException {
        delegate.setObject(parameterName(parameterName), Wrappers.toDriver(x));
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
    public Ref getRef(String parameterName) throws SQLException {
        return delegate.getRef(parameterName);
    }

    @Override
    public Blob getBlob(String parameterName) throws SQLException {
        return delegate.getBlob(parameterName);
    }

    @Override
    public Clob getClob(String parameterName) throws SQLException {
        return delegate.getClob(parameterName);
    }

    @Override
    public Array getArray(String parameterName) throws SQLException {
        return FencedArray.wrap(connection, delegate.getArray(parameterName));
    }

    @Override
    public RowId getRowId(int parameterIndex) throws SQLException {
        return delegate.getRowId(parameterIndex(parameterIndex));
    }

    @Override
    public RowId getRowId(String parameterName) throws SQLException {
        return delegate.getRowId(parameterName);
    }

    @Override
    public void setRowId(String parameterName, RowId x) throws SQLException {
        delegate.setRowId(parameterName(parameterName), x);
    }

    @Override
    public void setNClob(String parameterName, NClob value) throws SQLException {
        delegate.setNClob(parameterName(parameterName), value);
    }

    @Override
    public NClob getNClob(int parameterIndex) throws SQLException {
        return delegate.getNClob(parameterIndex(parameterIndex));
    }

    @Override
    public NClob getNClob(String parameterName) throws SQLException {
        return delegate.getNClob(parameterName);
    }

    @Override
    public void setSQLXML(String parameterName, SQLXML xmlObject) throws SQLException {
        delegate.setSQLXML(parameterName(parameterName), xmlObject);
    }

    @Override
    public SQLXML getSQLXML(int parameterIndex) throws SQLException {
        return delegate.getSQLXML(parameterIndex(parameterIndex));
    }

    @Override
    public SQLXML getSQLXML(String parameterName) throws SQLException {
        return delegate.getSQLXML(parameterName);
    }

    @Override
    public void setBlob(String parameterName, Blob x) throws SQLException {
        delegate.setBlob(parameterName(parameterName), x);
    }

    @Override
    public void setClob(String parameterName, Clob x) throws SQLException {
        delegate.setClob(parameterName(parameterName), x);
    }

    @Override
    public <T> T getObject(int parameterIndex, Class<T> type) throws SQLException {
        return FencedResultSet.fencedValue(connection, this, delegate.getObject(parameterIndex(parameterIndex), type), type);
    }

    @Override
    public <T> T getObject(String parameterName, Class<T> type) throws SQLException {
        return FencedResultSet.fencedValue(connection, this, delegate.getObject(parameterName, type), type);
    }

    @Override
    public void setObject(String parameterName, Object x, SQLType targetSqlType, int scaleOrLength) throws SQLException {
        delegate.setObject(parameterName(parameterName), Wrappers.toDriver(x), targetSqlType, scaleOrLength);
    }

    @Override
    public void setObject(String parameterName, Object x, SQLType targetSqlType) throws SQLException {
        delegate.setObject(parameterName(parameterName), Wrappers.toDriver(x), targetSqlType);
    }

    @Override
    public void registerOutParameter(int parameterIndex, SQLType sqlType) throws SQLException {
        delegate.registerOutParameter(parameterIndex(parameterIndex), sqlType);
    }

    @Override
    public void registerOutParameter(int parameterIndex, SQLType sqlType, int scale) throws SQLException {
        delegate.registerOutParameter(parameterIndex(parameterIndex), sqlType, scale);
    }

    @Override
    public void registerOutParameter(int parameterIndex, SQLType sqlType, String typeName) throws SQLException {
        delegate.registerOutParameter(parameterIndex(parameterIndex), sqlType, typeName);
    }

    @Override
    public void registerOutParameter(String parameterName, SQLType sqlType) throws SQLException {
        delegate.registerOutParameter(parameterName(parameterName), sqlType);
    }

    @Override
    public void registerOutParameter(String parameterName, SQLType sqlType, int scale) throws SQLException {
        delegate.registerOutParameter(parameterName(parameterName), sqlType, scale);
    }

    @Override
    public void registerOutParameter(String parameterName, SQLType sqlType, String typeName) throws SQLException {
        delegate.registerOutParameter(parameterName(parameterName), sqlType, typeName);
    }
}
