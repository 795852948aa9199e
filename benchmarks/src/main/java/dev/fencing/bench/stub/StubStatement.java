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

/** A statement that does nothing: every update reports one row, queries return no result set. */
public class StubStatement implements Statement {

    final StubConnection connection;
    private boolean closed;

    StubStatement(StubConnection connection) {
        this.connection = connection;
    }

    @Override
    public void addBatch(String a0) throws SQLException {
        // nothing
    }

    @Override
    public void cancel() throws SQLException {
        // nothing
    }

    @Override
    public void clearBatch() throws SQLException {
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
    public void closeOnCompletion() throws SQLException {
        // nothing
    }

    @Override
    public boolean execute(String a0, int[] a1) throws SQLException {
        return false;
    }

    @Override
    public boolean execute(String a0, String[] a1) throws SQLException {
        return false;
    }

    @Override
    public boolean execute(String a0, int a1) throws SQLException {
        return false;
    }

    @Override
    public boolean execute(String a0) throws SQLException {
        return false;
    }

    @Override
    public int[] executeBatch() throws SQLException {
        return new int[0];
    }

    @Override
    public ResultSet executeQuery(String a0) throws SQLException {
        return null;
    }

    @Override
    public int executeUpdate(String a0, int[] a1) throws SQLException {
        return 1;
    }

    @Override
    public int executeUpdate(String a0, String[] a1) throws SQLException {
        return 1;
    }

    @Override
    public int executeUpdate(String a0, int a1) throws SQLException {
        return 1;
    }

    @Override
    public int executeUpdate(String a0) throws SQLException {
        return 1;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return connection;
    }

    @Override
    public int getFetchDirection() throws SQLException {
        return 0;
    }

    @Override
    public int getFetchSize() throws SQLException {
        return 0;
    }

    @Override
    public ResultSet getGeneratedKeys() throws SQLException {
        return null;
    }

    @Override
    public int getMaxFieldSize() throws SQLException {
        return 0;
    }

    @Override
    public int getMaxRows() throws SQLException {
        return 0;
    }

    @Override
    public boolean getMoreResults() throws SQLException {
        return false;
    }

    @Override
    public boolean getMoreResults(int a0) throws SQLException {
        return false;
    }

    @Override
    public int getQueryTimeout() throws SQLException {
        return 0;
    }

    @Override
    public ResultSet getResultSet() throws SQLException {
        return null;
    }

    @Override
    public int getResultSetConcurrency() throws SQLException {
        return ResultSet.CONCUR_READ_ONLY;
    }

    @Override
    public int getResultSetHoldability() throws SQLException {
        return 0;
    }

    @Override
    public int getResultSetType() throws SQLException {
        return ResultSet.TYPE_FORWARD_ONLY;
    }

    @Override
    public int getUpdateCount() throws SQLException {
        return 1;
    }

    @Override
    public SQLWarning getWarnings() throws SQLException {
        return null;
    }

    @Override
    public boolean isCloseOnCompletion() throws SQLException {
        return false;
    }

    @Override
    public boolean isClosed() throws SQLException {
        return closed;
    }

    @Override
    public boolean isPoolable() throws SQLException {
        return false;
    }

    @Override
    public boolean isWrapperFor(Class<?> a0) throws SQLException {
        return a0.isInstance(this);
    }

    @Override
    public void setCursorName(String a0) throws SQLException {
        // nothing
    }

    @Override
    public void setEscapeProcessing(boolean a0) throws SQLException {
        // nothing
    }

    @Override
    public void setFetchDirection(int a0) throws SQLException {
        // nothing
    }

    @Override
    public void setFetchSize(int a0) throws SQLException {
        // nothing
    }

    @Override
    public void setMaxFieldSize(int a0) throws SQLException {
        // nothing
    }

    @Override
    public void setMaxRows(int a0) throws SQLException {
        // nothing
    }

    @Override
    public void setPoolable(boolean a0) throws SQLException {
        // nothing
    }

    @Override
    public void setQueryTimeout(int a0) throws SQLException {
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
