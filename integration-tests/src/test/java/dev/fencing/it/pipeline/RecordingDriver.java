package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * A test driver for {@code jdbc:recording:<rest>}: records the URL and properties it was given,
 * then opens {@code jdbc:<rest>} (for example H2, which refuses settings it does not know).
 */
final class RecordingDriver implements Driver {

    record Call(String url, Properties info) {
    }

    final List<Call> calls = new ArrayList<>();

    @Override
    public Connection connect(String url, Properties info) throws SQLException {
        if (!acceptsURL(url)) {
            return null;
        }
        Properties copy = new Properties();
        copy.putAll(info);
        calls.add(new Call(url, copy));
        return DriverManager.getConnection("jdbc:" + url.substring("jdbc:recording:".length()), info);
    }

    @Override
    public boolean acceptsURL(String url) {
        return url.startsWith("jdbc:recording:");
    }

    @Override
    public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) {
        return new DriverPropertyInfo[] {new DriverPropertyInfo("recorded", "yes")};
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
    public boolean jdbcCompliant() {
        return false;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }
}
