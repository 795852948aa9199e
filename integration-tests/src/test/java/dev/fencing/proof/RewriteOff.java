package dev.fencing.proof;

import dev.fencing.FencingConfig;
import dev.fencing.internal.jdbc.ConnectionContext;
import dev.fencing.internal.jdbc.Listeners;
import dev.fencing.internal.sql.AnalyzerOptions;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;

/**
 * The test-only hook to the analyzer's rewrite: a data source whose connections are fenced like a
 * {@code FencingDataSource}'s, by analyzers made with the rewrite off
 * ({@link AnalyzerOptions#rewrite()}): every text is sent as the application wrote it, with no
 * front-door fence check (refusals stay), so a test can show that the database guard's triggers
 * alone hold. Nothing in production can turn the rewrite off: the option is passed in here, when
 * this data source's connection context is made, and reaches no other data source.
 */
final class RewriteOff implements DataSource {

    private static final AnalyzerOptions REWRITE_OFF = new AnalyzerOptions(false, false);

    private final DataSource raw;
    private final ConnectionContext context;

    private RewriteOff(DataSource raw, FencingConfig config) {
        this.raw = raw;
        this.context = new ConnectionContext(config, new Listeners(), REWRITE_OFF);
    }

    /** {@code raw}'s connections fenced with {@code config}, the rewrite off. */
    static DataSource over(DataSource raw, FencingConfig config) {
        return new RewriteOff(raw, config);
    }

    @Override
    public Connection getConnection() throws SQLException {
        return context.fence(raw.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return context.fence(raw.getConnection(username, password));
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return raw.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        raw.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        raw.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return raw.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return raw.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        throw new SQLException("not a wrapper of " + iface.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return false;
    }
}
