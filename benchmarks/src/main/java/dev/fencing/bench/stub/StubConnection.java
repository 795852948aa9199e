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

/** A connection that does no I/O; its statements report one row changed by every update. */
public final class StubConnection implements Connection {

    private final StubDatabaseMetaData metaData = new StubDatabaseMetaData(this);
    private boolean closed;
    private boolean autoCommit = true;
    private String lastPreparedSql;

    /** The text the last {@code prepareStatement} received: what a wrapper above sent down. */
    public String lastPreparedSql() {
        return lastPreparedSql;
    }

    @Override
    public void abort(Executor a0) throws SQLException {
        // nothing
    }

    @Override
    public void clearWarnings() throws SQLException {
        // nothing
    }

    @Override
    public void close() throws SQLException {
        closed = true;
    }

    @Override
    public void commit() throws SQLException {
        // nothing
    }

    @Override
    public Array createArrayOf(String a0, Object[] a1) throws SQLException {
        return null;
    }

    @Override
    public Blob createBlob() throws SQLException {
        return null;
    }

    @Override
    public Clob createClob() throws SQLException {
        return null;
    }

    @Override
    public NClob createNClob() throws SQLException {
        return null;
    }

    @Override
    public SQLXML createSQLXML() throws SQLException {
        return null;
    }

    @Override
    public Statement createStatement() throws SQLException {
        return new StubStatement(this);
    }

    @Override
    public Statement createStatement(int a0, int a1, int a2) throws SQLException {
        return new StubStatement(this);
    }

    @Override
    public Statement createStatement(int a0, int a1) throws SQLException {
        return new StubStatement(this);
    }

    @Override
    public Struct createStruct(String a0, Object[] a1) throws SQLException {
        return null;
    }

    @Override
    public boolean getAutoCommit() throws SQLException {
        return autoCommit;
    }

    @Override
    public String getCatalog() throws SQLException {
        return null;
    }

    @Override
    public Properties getClientInfo() throws SQLException {
        return new Properties();
    }

    @Override
    public String getClientInfo(String a0) throws SQLException {
        return null;
    }

    @Override
    public int getHoldability() throws SQLException {
        return ResultSet.HOLD_CURSORS_OVER_COMMIT;
    }

    @Override
    public DatabaseMetaData getMetaData() throws SQLException {
        return metaData;
    }

    @Override
    public int getNetworkTimeout() throws SQLException {
        return 0;
    }

    @Override
    public String getSchema() throws SQLException {
        return null;
    }

    @Override
    public int getTransactionIsolation() throws SQLException {
        return Connection.TRANSACTION_READ_COMMITTED;
    }

    @Override
    public Map<String, Class<?>> getTypeMap() throws SQLException {
        return Map.of();
    }

    @Override
    public SQLWarning getWarnings() throws SQLException {
        return null;
    }

    @Override
    public boolean isClosed() throws SQLException {
        return closed;
    }

    @Override
    public boolean isReadOnly() throws SQLException {
        return false;
    }

    @Override
    public boolean isValid(int a0) throws SQLException {
        return !closed;
    }

    @Override
    public boolean isWrapperFor(Class<?> a0) throws SQLException {
        return a0.isInstance(this);
    }

    @Override
    public String nativeSQL(String a0) throws SQLException {
        return a0;
    }

    @Override
    public CallableStatement prepareCall(String a0, int a1, int a2, int a3) throws SQLException {
        throw new SQLFeatureNotSupportedException("the stub has no procedures");
    }

    @Override
    public CallableStatement prepareCall(String a0, int a1, int a2) throws SQLException {
        throw new SQLFeatureNotSupportedException("the stub has no procedures");
    }

    @Override
    public CallableStatement prepareCall(String a0) throws SQLException {
        throw new SQLFeatureNotSupportedException("the stub has no procedures");
    }

    @Override
    public PreparedStatement prepareStatement(String a0, int[] a1) throws SQLException {
        lastPreparedSql = a0;
        return new StubPreparedStatement(this, a0);
    }

    @Override
    public PreparedStatement prepareStatement(String a0, String[] a1) throws SQLException {
        lastPreparedSql = a0;
        return new StubPreparedStatement(this, a0);
    }

    @Override
    public PreparedStatement prepareStatement(String a0, int a1, int a2, int a3) throws SQLException {
        lastPreparedSql = a0;
        return new StubPreparedStatement(this, a0);
    }

    @Override
    public PreparedStatement prepareStatement(String a0, int a1, int a2) throws SQLException {
        lastPreparedSql = a0;
        return new StubPreparedStatement(this, a0);
    }

    @Override
    public PreparedStatement prepareStatement(String a0, int a1) throws SQLException {
        lastPreparedSql = a0;
        return new StubPreparedStatement(this, a0);
    }

    @Override
    public PreparedStatement prepareStatement(String a0) throws SQLException {
        lastPreparedSql = a0;
        return new StubPreparedStatement(this, a0);
    }

    @Override
    public void releaseSavepoint(Savepoint a0) throws SQLException {
        // nothing
    }

    @Override
    public void rollback() throws SQLException {
        // nothing
    }

    @Override
    public void rollback(Savepoint a0) throws SQLException {
        // nothing
    }

    @Override
    public void setAutoCommit(boolean a0) throws SQLException {
        autoCommit = a0;
    }

    @Override
    public void setCatalog(String a0) throws SQLException {
        // nothing
    }

    @Override
    public void setClientInfo(String a0, String a1) throws SQLClientInfoException {
        // nothing
    }

    @Override
    public void setClientInfo(Properties a0) throws SQLClientInfoException {
        // nothing
    }

    @Override
    public void setHoldability(int a0) throws SQLException {
        // nothing
    }

    @Override
    public void setNetworkTimeout(Executor a0, int a1) throws SQLException {
        // nothing
    }

    @Override
    public void setReadOnly(boolean a0) throws SQLException {
        // nothing
    }

    @Override
    public Savepoint setSavepoint() throws SQLException {
        return null;
    }

    @Override
    public Savepoint setSavepoint(String a0) throws SQLException {
        return null;
    }

    @Override
    public void setSchema(String a0) throws SQLException {
        // nothing
    }

    @Override
    public void setTransactionIsolation(int a0) throws SQLException {
        // nothing
    }

    @Override
    public void setTypeMap(Map<String, Class<?>> a0) throws SQLException {
        // nothing
    }

    @Override
    public <T> T unwrap(Class<T> a0) throws SQLException {
        if (a0.isInstance(this)) {
            return a0.cast(this);
        }
        throw new SQLException("not a wrapper for " + a0);
    }
}
