package dev.fencing.bench.stub;

import java.io.InputStream;
import java.io.Reader;
import java.math.BigDecimal;
import java.net.URL;
import java.sql.*;
import java.util.Calendar;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executor;
import java.util.logging.Logger;

/** A prepared statement that does nothing: setters keep nothing, every update reports one row. */
public class StubPreparedStatement extends StubStatement implements PreparedStatement {

    final String sql;

    StubPreparedStatement(StubConnection connection, String sql) {
        super(connection);
        this.sql = sql;
    }

    @Override
    public void addBatch() throws SQLException {
        // nothing
    }

    @Override
    public void clearParameters() throws SQLException {
        // nothing
    }

    @Override
    public boolean execute() throws SQLException {
        return false;
    }

    /**
     * No rows, shared: the driver reads the catalog of a PostgreSQL connection (the stub says it is
     * one) through prepared queries before its first plan, and finds nothing fenced reachable.
     */
    private static final ResultSet NO_ROWS = (ResultSet) java.lang.reflect.Proxy.newProxyInstance(
            StubPreparedStatement.class.getClassLoader(), new Class<?>[] {ResultSet.class},
            (proxy, method, args) -> switch (method.getName()) {
                case "next", "wasNull" -> false;
                case "isClosed" -> true;
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                case "toString" -> "no rows";
                default -> null;
            });

    @Override
    public ResultSet executeQuery() throws SQLException {
        return NO_ROWS;
    }

    @Override
    public int executeUpdate() throws SQLException {
        return 1;
    }

    @Override
    public ResultSetMetaData getMetaData() throws SQLException {
        return null;
    }

    @Override
    public ParameterMetaData getParameterMetaData() throws SQLException {
        return null;
    }

    @Override
    public void setArray(int a0, Array a1) throws SQLException {
        // nothing
    }

    @Override
    public void setAsciiStream(int a0, InputStream a1, int a2) throws SQLException {
        // nothing
    }

    @Override
    public void setAsciiStream(int a0, InputStream a1, long a2) throws SQLException {
        // nothing
    }

    @Override
    public void setAsciiStream(int a0, InputStream a1) throws SQLException {
        // nothing
    }

    @Override
    public void setBigDecimal(int a0, BigDecimal a1) throws SQLException {
        // nothing
    }

    @Override
    public void setBinaryStream(int a0, InputStream a1, int a2) throws SQLException {
        // nothing
    }

    @Override
    public void setBinaryStream(int a0, InputStream a1, long a2) throws SQLException {
        // nothing
    }

    @Override
    public void setBinaryStream(int a0, InputStream a1) throws SQLException {
        // nothing
    }

    @Override
    public void setBlob(int a0, InputStream a1, long a2) throws SQLException {
        // nothing
    }

    @Override
    public void setBlob(int a0, InputStream a1) throws SQLException {
        // nothing
    }

    @Override
    public void setBlob(int a0, Blob a1) throws SQLException {
        // nothing
    }

    @Override
    public void setBoolean(int a0, boolean a1) throws SQLException {
        // nothing
    }

    @Override
    public void setByte(int a0, byte a1) throws SQLException {
        // nothing
    }

    @Override
    public void setBytes(int a0, byte[] a1) throws SQLException {
        // nothing
    }

    @Override
    public void setCharacterStream(int a0, Reader a1, int a2) throws SQLException {
        // nothing
    }

    @Override
    public void setCharacterStream(int a0, Reader a1, long a2) throws SQLException {
        // nothing
    }

    @Override
    public void setCharacterStream(int a0, Reader a1) throws SQLException {
        // nothing
    }

    @Override
    public void setClob(int a0, Reader a1, long a2) throws SQLException {
        // nothing
    }

    @Override
    public void setClob(int a0, Reader a1) throws SQLException {
        // nothing
    }

    @Override
    public void setClob(int a0, Clob a1) throws SQLException {
        // nothing
    }

    @Override
    public void setDate(int a0, Date a1, Calendar a2) throws SQLException {
        // nothing
    }

    @Override
    public void setDate(int a0, Date a1) throws SQLException {
        // nothing
    }

    @Override
    public void setDouble(int a0, double a1) throws SQLException {
        // nothing
    }

    @Override
    public void setFloat(int a0, float a1) throws SQLException {
        // nothing
    }

    @Override
    public void setInt(int a0, int a1) throws SQLException {
        // nothing
    }

    @Override
    public void setLong(int a0, long a1) throws SQLException {
        // nothing
    }

    @Override
    public void setNCharacterStream(int a0, Reader a1, long a2) throws SQLException {
        // nothing
    }

    @Override
    public void setNCharacterStream(int a0, Reader a1) throws SQLException {
        // nothing
    }

    @Override
    public void setNClob(int a0, Reader a1, long a2) throws SQLException {
        // nothing
    }

    @Override
    public void setNClob(int a0, Reader a1) throws SQLException {
        // nothing
    }

    @Override
    public void setNClob(int a0, NClob a1) throws SQLException {
        // nothing
    }

    @Override
    public void setNString(int a0, String a1) throws SQLException {
        // nothing
    }

    @Override
    public void setNull(int a0, int a1, String a2) throws SQLException {
        // nothing
    }

    @Override
    public void setNull(int a0, int a1) throws SQLException {
        // nothing
    }

    @Override
    public void setObject(int a0, Object a1, int a2, int a3) throws SQLException {
        // nothing
    }

    @Override
    public void setObject(int a0, Object a1, int a2) throws SQLException {
        // nothing
    }

    @Override
    public void setObject(int a0, Object a1) throws SQLException {
        // nothing
    }

    @Override
    public void setRef(int a0, Ref a1) throws SQLException {
        // nothing
    }

    @Override
    public void setRowId(int a0, RowId a1) throws SQLException {
        // nothing
    }

    @Override
    public void setSQLXML(int a0, SQLXML a1) throws SQLException {
        // nothing
    }

    @Override
    public void setShort(int a0, short a1) throws SQLException {
        // nothing
    }

    @Override
    public void setString(int a0, String a1) throws SQLException {
        // nothing
    }

    @Override
    public void setTime(int a0, Time a1, Calendar a2) throws SQLException {
        // nothing
    }

    @Override
    public void setTime(int a0, Time a1) throws SQLException {
        // nothing
    }

    @Override
    public void setTimestamp(int a0, Timestamp a1, Calendar a2) throws SQLException {
        // nothing
    }

    @Override
    public void setTimestamp(int a0, Timestamp a1) throws SQLException {
        // nothing
    }

    @Override
    public void setURL(int a0, URL a1) throws SQLException {
        // nothing
    }

    @Override
    @Deprecated
    public void setUnicodeStream(int a0, InputStream a1, int a2) throws SQLException {
        // nothing
    }
}
