package dev.fencing.bench.stub;

import java.io.InputStream;
import java.io.PrintWriter;
import java.io.Reader;
import java.math.BigDecimal;
import java.net.URL;
import java.sql.*;
import java.util.Calendar;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executor;
import java.util.logging.Logger;

/** A data source over the {@link StubDriver}: each connection is new and does no I/O. */
public final class StubDataSource implements javax.sql.DataSource {

    private final StubDriver driver = new StubDriver();
    private PrintWriter logWriter;
    private int loginTimeout;
    private StubConnection lastConnection;

    /** The connection this data source handed out last. */
    public StubConnection lastConnection() {
        return lastConnection;
    }

    @Override
    public Connection getConnection() throws SQLException {
        lastConnection = (StubConnection) driver.connect(StubDriver.URL, new Properties());
        return lastConnection;
    }

    @Override
    public Connection getConnection(String a0, String a1) throws SQLException {
        lastConnection = (StubConnection) driver.connect(StubDriver.URL, new Properties());
        return lastConnection;
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return logWriter;
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return loginTimeout;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("no logger");
    }

    @Override
    public boolean isWrapperFor(Class<?> a0) throws SQLException {
        return a0.isInstance(this);
    }

    @Override
    public void setLogWriter(PrintWriter a0) throws SQLException {
        logWriter = a0;
    }

    @Override
    public void setLoginTimeout(int a0) throws SQLException {
        loginTimeout = a0;
    }

    @Override
    public <T> T unwrap(Class<T> a0) throws SQLException {
        if (a0.isInstance(this)) {
            return a0.cast(this);
        }
        throw new SQLException("not a wrapper for " + a0);
    }
}
