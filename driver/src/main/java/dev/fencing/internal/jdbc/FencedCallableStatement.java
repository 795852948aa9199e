package dev.fencing.internal.jdbc;

import dev.fencing.UnfenceableStatementException;
import dev.fencing.internal.sql.FencePlan;

import java.io.InputStream;
import java.io.Reader;
import java.math.BigDecimal;
import java.net.URL;
import java.sql.Array;
import java.sql.Blob;
import java.sql.CallableStatement;
import java.sql.Clob;
import java.sql.Date;
import java.sql.NClob;
import java.sql.Ref;
import java.sql.RowId;
import java.sql.SQLException;
import java.sql.SQLType;
import java.sql.SQLXML;
import java.sql.Time;
import java.sql.Timestamp;
import java.util.Calendar;
import java.util.Map;

/**
 * A callable statement, planned at prepare time like any other text. OUT
 * parameters by index use the application's numbering, like IN parameters. Parameters by name
 * cannot be mapped around the fence slots, so on a fenced write they are refused; on other
 * statements they pass to the driver.
 */
final class FencedCallableStatement extends FencedPreparedStatement implements CallableStatement {

    private final CallableStatement statement;

    FencedCallableStatement(FencedConnection connection, CallableStatement statement, FencePlan plan) {
        super(connection, statement, plan);
        this.statement = statement;
    }

    /** Refuses binding by name on a fenced write: the driver's numbering is not the application's. */
    private void named() throws SQLException {
        checkOpen();
        if (prepared.kind() == FencePlan.Kind.FENCED) {
            throw new UnfenceableStatementException(prepared.fencedTable(), "parameters cannot be bound by name on a"
                    + " write to fenced table " + prepared.fencedTable() + ": its parameters are renumbered around the"
                    + " fence check. Bind them by index.");
        }
    }

    private Object fenced(Object value) {
        return FencedResultSet.fencedValue(connection, this, value);
    }

    @Override
    public void registerOutParameter(int parameterIndex, int sqlType) throws SQLException {
        statement.registerOutParameter(index(parameterIndex), sqlType);
    }

    @Override
    public void registerOutParameter(int parameterIndex, int sqlType, int scale) throws SQLException {
        statement.registerOutParameter(index(parameterIndex), sqlType, scale);
    }

    @Override
    public boolean wasNull() throws SQLException {
        return statement.wasNull();
    }

    @Override
    public String getString(int parameterIndex) throws SQLException {
        return statement.getString(index(parameterIndex));
    }

    @Override
    public boolean getBoolean(int parameterIndex) throws SQLException {
        return statement.getBoolean(index(parameterIndex));
    }

    @Override
    public byte getByte(int parameterIndex) throws SQLException {
        return statement.getByte(index(parameterIndex));
    }

    @Override
    public short getShort(int parameterIndex) throws SQLException {
        return statement.getShort(index(parameterIndex));
    }

    @Override
    public int getInt(int parameterIndex) throws SQLException {
        return statement.getInt(index(parameterIndex));
    }

    @Override
    public long getLong(int parameterIndex) throws SQLException {
        return statement.getLong(index(parameterIndex));
    }

    @Override
    public float getFloat(int parameterIndex) throws SQLException {
        return statement.getFloat(index(parameterIndex));
    }

    @Override
    public double getDouble(int parameterIndex) throws SQLException {
        return statement.getDouble(index(parameterIndex));
    }

    @Override
    @Deprecated
    public BigDecimal getBigDecimal(int parameterIndex, int scale) throws SQLException {
        return statement.getBigDecimal(index(parameterIndex), scale);
    }

    @Override
    public byte[] getBytes(int parameterIndex) throws SQLException {
        return statement.getBytes(index(parameterIndex));
    }

    @Override
    public Date getDate(int parameterIndex) throws SQLException {
        return statement.getDate(index(parameterIndex));
    }

    @Override
    public Time getTime(int parameterIndex) throws SQLException {
        return statement.getTime(index(parameterIndex));
    }

    @Override
    public Timestamp getTimestamp(int parameterIndex) throws SQLException {
        return statement.getTimestamp(index(parameterIndex));
    }

    @Override
    public Object getObject(int parameterIndex) throws SQLException {
        return fenced(statement.getObject(index(parameterIndex)));
    }

    @Override
    public BigDecimal getBigDecimal(int parameterIndex) throws SQLException {
        return statement.getBigDecimal(index(parameterIndex));
    }

    @Override
    public Object getObject(int parameterIndex, Map<String, Class<?>> map) throws SQLException {
        return fenced(statement.getObject(index(parameterIndex), map));
    }

    @Override
    public Ref getRef(int parameterIndex) throws SQLException {
        return statement.getRef(index(parameterIndex));
    }

    @Override
    public Blob getBlob(int parameterIndex) throws SQLException {
        return statement.getBlob(index(parameterIndex));
    }

    @Override
    public Clob getClob(int parameterIndex) throws SQLException {
        return statement.getClob(index(parameterIndex));
    }

    @Override
    public Array getArray(int parameterIndex) throws SQLException {
        return FencedArray.wrap(connection, statement.getArray(index(parameterIndex)));
    }

    @Override
    public Date getDate(int parameterIndex, Calendar cal) throws SQLException {
        return statement.getDate(index(parameterIndex), cal);
    }

    @Override
    public Time getTime(int parameterIndex, Calendar cal) throws SQLException {
        return statement.getTime(index(parameterIndex), cal);
    }

    @Override
    public Timestamp getTimestamp(int parameterIndex, Calendar cal) throws SQLException {
        return statement.getTimestamp(index(parameterIndex), cal);
    }

    @Override
    public void registerOutParameter(int parameterIndex, int sqlType, String typeName) throws SQLException {
        statement.registerOutParameter(index(parameterIndex), sqlType, typeName);
    }

    @Override
    public void registerOutParameter(String parameterName, int sqlType) throws SQLException {
        named();
        statement.registerOutParameter(parameterName, sqlType);
    }

    @Override
    public void registerOutParameter(String parameterName, int sqlType, int scale) throws SQLException {
        named();
        statement.registerOutParameter(parameterName, sqlType, scale);
    }

    @Override
    public void registerOutParameter(String parameterName, int sqlType, String typeName) throws SQLException {
        named();
        statement.registerOutParameter(parameterName, sqlType, typeName);
    }

    @Override
    public URL getURL(int parameterIndex) throws SQLException {
        return statement.getURL(index(parameterIndex));
    }

    @Override
    public void setURL(String parameterName, URL val) throws SQLException {
        named();
        statement.setURL(parameterName, val);
    }

    @Override
    public void setNull(String parameterName, int sqlType) throws SQLException {
        named();
        statement.setNull(parameterName, sqlType);
    }

    @Override
    public void setBoolean(String parameterName, boolean x) throws SQLException {
        named();
        statement.setBoolean(parameterName, x);
    }

    @Override
    public void setByte(String parameterName, byte x) throws SQLException {
        named();
        statement.setByte(parameterName, x);
    }

    @Override
    public void setShort(String parameterName, short x) throws SQLException {
        named();
        statement.setShort(parameterName, x);
    }

    @Override
    public void setInt(String parameterName, int x) throws SQLException {
        named();
        statement.setInt(parameterName, x);
    }

    @Override
    public void setLong(String parameterName, long x) throws SQLException {
        named();
        statement.setLong(parameterName, x);
    }

    @Override
    public void setFloat(String parameterName, float x) throws SQLException {
        named();
        statement.setFloat(parameterName, x);
    }

    @Override
    public void setDouble(String parameterName, double x) throws SQLException {
        named();
        statement.setDouble(parameterName, x);
    }

    @Override
    public void setBigDecimal(String parameterName, BigDecimal x) throws SQLException {
        named();
        statement.setBigDecimal(parameterName, x);
    }

    @Override
    public void setString(String parameterName, String x) throws SQLException {
        named();
        statement.setString(parameterName, x);
    }

    @Override
    public void setBytes(String parameterName, byte[] x) throws SQLException {
        named();
        statement.setBytes(parameterName, x);
    }

    @Override
    public void setDate(String parameterName, Date x) throws SQLException {
        named();
        statement.setDate(parameterName, x);
    }

    @Override
    public void setTime(String parameterName, Time x) throws SQLException {
        named();
        statement.setTime(parameterName, x);
    }

    @Override
    public void setTimestamp(String parameterName, Timestamp x) throws SQLException {
        named();
        statement.setTimestamp(parameterName, x);
    }

    @Override
    public void setAsciiStream(String parameterName, InputStream x, int length) throws SQLException {
        named();
        statement.setAsciiStream(parameterName, x, length);
    }

    @Override
    public void setBinaryStream(String parameterName, InputStream x, int length) throws SQLException {
        named();
        statement.setBinaryStream(parameterName, x, length);
    }

    @Override
    public void setObject(String parameterName, Object x, int targetSqlType, int scale) throws SQLException {
        named();
        statement.setObject(parameterName, Wrappers.toDriver(x), targetSqlType, scale);
    }

    @Override
    public void setObject(String parameterName, Object x, int targetSqlType) throws SQLException {
        named();
        statement.setObject(parameterName, Wrappers.toDriver(x), targetSqlType);
    }

    @Override
    public void setObject(String parameterName, Object x) throws SQLException {
        named();
        statement.setObject(parameterName, Wrappers.toDriver(x));
    }

    @Override
    public void setCharacterStream(String parameterName, Reader reader, int length) throws SQLException {
        named();
        statement.setCharacterStream(parameterName, reader, length);
    }

    @Override
    public void setDate(String parameterName, Date x, Calendar cal) throws SQLException {
        named();
        statement.setDate(parameterName, x, cal);
    }

    @Override
    public void setTime(String parameterName, Time x, Calendar cal) throws SQLException {
        named();
        statement.setTime(parameterName, x, cal);
    }

    @Override
    public void setTimestamp(String parameterName, Timestamp x, Calendar cal) throws SQLException {
        named();
        statement.setTimestamp(parameterName, x, cal);
    }

    @Override
    public void setNull(String parameterName, int sqlType, String typeName) throws SQLException {
        named();
        statement.setNull(parameterName, sqlType, typeName);
    }

    @Override
    public String getString(String parameterName) throws SQLException {
        return statement.getString(parameterName);
    }

    @Override
    public boolean getBoolean(String parameterName) throws SQLException {
        return statement.getBoolean(parameterName);
    }

    @Override
    public byte getByte(String parameterName) throws SQLException {
        return statement.getByte(parameterName);
    }

    @Override
    public short getShort(String parameterName) throws SQLException {
        return statement.getShort(parameterName);
    }

    @Override
    public int getInt(String parameterName) throws SQLException {
        return statement.getInt(parameterName);
    }

    @Override
    public long getLong(String parameterName) throws SQLException {
        return statement.getLong(parameterName);
    }

    @Override
    public float getFloat(String parameterName) throws SQLException {
        return statement.getFloat(parameterName);
    }

    @Override
    public double getDouble(String parameterName) throws SQLException {
        return statement.getDouble(parameterName);
    }

    @Override
    public byte[] getBytes(String parameterName) throws SQLException {
        return statement.getBytes(parameterName);
    }

    @Override
    public Date getDate(String parameterName) throws SQLException {
        return statement.getDate(parameterName);
    }

    @Override
    public Time getTime(String parameterName) throws SQLException {
        return statement.getTime(parameterName);
    }

    @Override
    public Timestamp getTimestamp(String parameterName) throws SQLException {
        return statement.getTimestamp(parameterName);
    }

    @Override
    public Object getObject(String parameterName) throws SQLException {
        return fenced(statement.getObject(parameterName));
    }

    @Override
    public BigDecimal getBigDecimal(String parameterName) throws SQLException {
        return statement.getBigDecimal(parameterName);
    }

    @Override
    public Object getObject(String parameterName, Map<String, Class<?>> map) throws SQLException {
        return fenced(statement.getObject(parameterName, map));
    }

    @Override
    public Ref getRef(String parameterName) throws SQLException {
        return statement.getRef(parameterName);
    }

    @Override
    public Blob getBlob(String parameterName) throws SQLException {
        return statement.getBlob(parameterName);
    }

    @Override
    public Clob getClob(String parameterName) throws SQLException {
        return statement.getClob(parameterName);
    }

    @Override
    public Array getArray(String parameterName) throws SQLException {
        return FencedArray.wrap(connection, statement.getArray(parameterName));
    }

    @Override
    public Date getDate(String parameterName, Calendar cal) throws SQLException {
        return statement.getDate(parameterName, cal);
    }

    @Override
    public Time getTime(String parameterName, Calendar cal) throws SQLException {
        return statement.getTime(parameterName, cal);
    }

    @Override
    public Timestamp getTimestamp(String parameterName, Calendar cal) throws SQLException {
        return statement.getTimestamp(parameterName, cal);
    }

    @Override
    public URL getURL(String parameterName) throws SQLException {
        return statement.getURL(parameterName);
    }

    @Override
    public RowId getRowId(int parameterIndex) throws SQLException {
        return statement.getRowId(index(parameterIndex));
    }

    @Override
    public RowId getRowId(String parameterName) throws SQLException {
        return statement.getRowId(parameterName);
    }

    @Override
    public void setRowId(String parameterName, RowId x) throws SQLException {
        named();
        statement.setRowId(parameterName, x);
    }

    @Override
    public void setNString(String parameterName, String value) throws SQLException {
        named();
        statement.setNString(parameterName, value);
    }

    @Override
    public void setNCharacterStream(String parameterName, Reader value, long length) throws SQLException {
        named();
        statement.setNCharacterStream(parameterName, value, length);
    }

    @Override
    public void setNClob(String parameterName, NClob value) throws SQLException {
        named();
        statement.setNClob(parameterName, value);
    }

    @Override
    public void setClob(String parameterName, Reader reader, long length) throws SQLException {
        named();
        statement.setClob(parameterName, reader, length);
    }

    @Override
    public void setBlob(String parameterName, InputStream inputStream, long length) throws SQLException {
        named();
        statement.setBlob(parameterName, inputStream, length);
    }

    @Override
    public void setNClob(String parameterName, Reader reader, long length) throws SQLException {
        named();
        statement.setNClob(parameterName, reader, length);
    }

    @Override
    public NClob getNClob(int parameterIndex) throws SQLException {
        return statement.getNClob(index(parameterIndex));
    }

    @Override
    public NClob getNClob(String parameterName) throws SQLException {
        return statement.getNClob(parameterName);
    }

    @Override
    public void setSQLXML(String parameterName, SQLXML xmlObject) throws SQLException {
        named();
        statement.setSQLXML(parameterName, xmlObject);
    }

    @Override
    public SQLXML getSQLXML(int parameterIndex) throws SQLException {
        return statement.getSQLXML(index(parameterIndex));
    }

    @Override
    public SQLXML getSQLXML(String parameterName) throws SQLException {
        return statement.getSQLXML(parameterName);
    }

    @Override
    public String getNString(int parameterIndex) throws SQLException {
        return statement.getNString(index(parameterIndex));
    }

    @Override
    public String getNString(String parameterName) throws SQLException {
        return statement.getNString(parameterName);
    }

    @Override
    public Reader getNCharacterStream(int parameterIndex) throws SQLException {
        return statement.getNCharacterStream(index(parameterIndex));
    }

    @Override
    public Reader getNCharacterStream(String parameterName) throws SQLException {
        return statement.getNCharacterStream(parameterName);
    }

    @Override
    public Reader getCharacterStream(int parameterIndex) throws SQLException {
        return statement.getCharacterStream(index(parameterIndex));
    }

    @Override
    public Reader getCharacterStream(String parameterName) throws SQLException {
        return statement.getCharacterStream(parameterName);
    }

    @Override
    public void setBlob(String parameterName, Blob x) throws SQLException {
        named();
        statement.setBlob(parameterName, x);
    }

    @Override
    public void setClob(String parameterName, Clob x) throws SQLException {
        named();
        statement.setClob(parameterName, x);
    }

    @Override
    public void setAsciiStream(String parameterName, InputStream x, long length) throws SQLException {
        named();
        statement.setAsciiStream(parameterName, x, length);
    }

    @Override
    public void setBinaryStream(String parameterName, InputStream x, long length) throws SQLException {
        named();
        statement.setBinaryStream(parameterName, x, length);
    }

    @Override
    public void setCharacterStream(String parameterName, Reader reader, long length) throws SQLException {
        named();
        statement.setCharacterStream(parameterName, reader, length);
    }

    @Override
    public void setAsciiStream(String parameterName, InputStream x) throws SQLException {
        named();
        statement.setAsciiStream(parameterName, x);
    }

    @Override
    public void setBinaryStream(String parameterName, InputStream x) throws SQLException {
        named();
        statement.setBinaryStream(parameterName, x);
    }

    @Override
    public void setCharacterStream(String parameterName, Reader reader) throws SQLException {
        named();
        statement.setCharacterStream(parameterName, reader);
    }

    @Override
    public void setNCharacterStream(String parameterName, Reader value) throws SQLException {
        named();
        statement.setNCharacterStream(parameterName, value);
    }

    @Override
    public void setClob(String parameterName, Reader reader) throws SQLException {
        named();
        statement.setClob(parameterName, reader);
    }

    @Override
    public void setBlob(String parameterName, InputStream inputStream) throws SQLException {
        named();
        statement.setBlob(parameterName, inputStream);
    }

    @Override
    public void setNClob(String parameterName, Reader reader) throws SQLException {
        named();
        statement.setNClob(parameterName, reader);
    }

    @Override
    public <T> T getObject(int parameterIndex, Class<T> type) throws SQLException {
        return FencedResultSet.fencedValue(connection, this, statement.getObject(index(parameterIndex), type), type);
    }

    @Override
    public <T> T getObject(String parameterName, Class<T> type) throws SQLException {
        return FencedResultSet.fencedValue(connection, this, statement.getObject(parameterName, type), type);
    }

    @Override
    public void setObject(String parameterName, Object x, SQLType targetSqlType, int scaleOrLength) throws SQLException {
        named();
        statement.setObject(parameterName, Wrappers.toDriver(x), targetSqlType, scaleOrLength);
    }

    @Override
    public void setObject(String parameterName, Object x, SQLType targetSqlType) throws SQLException {
        named();
        statement.setObject(parameterName, Wrappers.toDriver(x), targetSqlType);
    }

    @Override
    public void registerOutParameter(int parameterIndex, SQLType sqlType) throws SQLException {
        statement.registerOutParameter(index(parameterIndex), sqlType);
    }

    @Override
    public void registerOutParameter(int parameterIndex, SQLType sqlType, int scale) throws SQLException {
        statement.registerOutParameter(index(parameterIndex), sqlType, scale);
    }

    @Override
    public void registerOutParameter(int parameterIndex, SQLType sqlType, String typeName) throws SQLException {
        statement.registerOutParameter(index(parameterIndex), sqlType, typeName);
    }

    @Override
    public void registerOutParameter(String parameterName, SQLType sqlType) throws SQLException {
        named();
        statement.registerOutParameter(parameterName, sqlType);
    }

    @Override
    public void registerOutParameter(String parameterName, SQLType sqlType, int scale) throws SQLException {
        named();
        statement.registerOutParameter(parameterName, sqlType, scale);
    }

    @Override
    public void registerOutParameter(String parameterName, SQLType sqlType, String typeName) throws SQLException {
        named();
        statement.registerOutParameter(parameterName, sqlType, typeName);
    }
}
