package dev.fencing.jdbc;

import dev.fencing.FencingConfig;
import dev.fencing.sql.StatementAnalyzer;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Objects;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A {@link DataSource} whose connections make every write to a fenced table carry the fencing
 * check, taken from the calling thread's {@link dev.fencing.Fence}.
 *
 * <pre>{@code
 * DataSource fenced = new FencingDataSource(hikari, FencingConfig.builder().tables("orders").build());
 * try (Fence.Scope scope = Fence.enter(lease.fence());
 *      Connection c = fenced.getConnection();
 *      PreparedStatement update = c.prepareStatement("UPDATE orders SET status = ? WHERE id = ?")) {
 *     ...   // sent as: ... WHERE (id = ?) AND last_fence <= ?, with the fence bound
 * }
 * }</pre>
 *
 * <p>Writes to fenced tables are refused with {@link dev.fencing.MissingFenceException} when no
 * fence is in scope and with {@link dev.fencing.UnfenceableStatementException} when they cannot
 * carry the check; a write the check rejects raises {@link dev.fencing.StaleFenceException}.
 * Nothing else changes: statements that write no fenced table are sent as written.
 *
 * <p>The SQL dialect is detected once, from the first connection's metadata, and one
 * {@link StatementAnalyzer} (with its plan cache) serves every connection. Works above any data
 * source: a pool (HikariCP), or a driver's own data source. {@code unwrap} hands out no object
 * underneath: with the pool's or driver's own object a write would bypass the check.
 * {@code createConnectionBuilder()} is not supported for the same reason.
 *
 * <p>To read the configuration the way the {@code jdbc:fencing:} driver does (a file named by
 * {@code fencing.config}, or {@code fencing.properties} on the classpath), pass
 * {@code ConfigSources.standard().resolve(properties)}.
 */
public final class FencingDataSource implements DataSource, AutoCloseable {

    private final DataSource delegate;
    private final FencingConfig config;
    private volatile StatementAnalyzer analyzer;
    /** Epoch claims committed through any connection of this data source (one database). */
    private final EpochClaims claims = new EpochClaims();

    /**
     * @param delegate the data source whose connections are fenced
     * @param config   what to fence and how
     */
    public FencingDataSource(DataSource delegate, FencingConfig config) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.config = Objects.requireNonNull(config, "config");
    }

    /** The configuration this data source fences with. */
    public FencingConfig config() {
        return config;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return fence(delegate.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return fence(delegate.getConnection(username, password));
    }

    private Connection fence(Connection connection) throws SQLException {
        return FencedConnection.fence(connection, this::analyzerFor, claims);
    }

    /** The one analyzer of this data source, made for the dialect of its first connection. */
    private StatementAnalyzer analyzerFor(Connection connection) throws SQLException {
        StatementAnalyzer current = analyzer;
        if (current == null) {
            synchronized (this) {
                current = analyzer;
                if (current == null) {
                    current = new StatementAnalyzer(config, FencedConnection.dialectOf(connection));
                    analyzer = current;
                }
            }
        }
        return current;
    }

    /** The epoch claims its connections share. */
    EpochClaims claims() {
        return claims;
    }

    /** Closes the underlying data source when it can be closed (a pool, for example). */
    @Override
    public void close() throws SQLException {
        if (delegate instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (SQLException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new SQLException("closing the underlying data source failed: " + e, e);
            }
        }
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return delegate.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        delegate.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        delegate.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return delegate.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return delegate.getParentLogger();
    }

    /** Returns this data source for the interfaces it implements; refuses everything underneath. */
    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return Wrappers.unwrap(this, iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return Wrappers.isWrapperFor(this, iface);
    }

    @Override
    public String toString() {
        return "FencingDataSource[" + config + "]";
    }
}
