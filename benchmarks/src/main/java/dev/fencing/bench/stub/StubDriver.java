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

/** A driver for {@value #URL}: connections that do no I/O. Not registered with DriverManager. */
public final class StubDriver implements Driver {

    public static final String URL = "jdbc:stub:";

    @Override
    public boolean acceptsURL(String a0) throws SQLException {
        return a0 != null && a0.startsWith(URL);
    }

    @Override
    public Connection connect(String a0, Properties a1) throws SQLException {
        return acceptsURL(a0) ? new StubConnection() : null;
    }

    @Override
    public int getMajorVersion() {
        return 1;
    }

    @Override
    public int getMinorVersion() {
        return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("no logger");
    }

    @Override
    public DriverPropertyInfo[] getPropertyInfo(String a0, Properties a1) throws SQLException {
        return new DriverPropertyInfo[0];
    }

    @Override
    public boolean jdbcCompliant() {
        return false;
    }
}
