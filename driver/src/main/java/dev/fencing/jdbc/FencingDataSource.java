package dev.fencing.jdbc;

import dev.fencing.internal.config.ConfigSources;
import dev.fencing.internal.jdbc.ConnectionContext;
import dev.fencing.internal.jdbc.ConnectionFencing;
import dev.fencing.internal.jdbc.Listeners;
import dev.fencing.internal.jdbc.Wrappers;

import dev.fencing.FencingConfig;
import dev.fencing.FencingException;
import dev.fencing.events.FencingListener;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Objects;
import java.util.Set;
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
 * <p>The SQL dialect is read from each connection's metadata; one analyzer (with its plan cache)
 * per dialect serves every connection of this data source. Works above any data
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
    /** Analyzers, epoch claims and listeners of this data source's connections. */
    private final ConnectionContext context;

    /**
     * @param delegate the data source whose connections are fenced
     * @param config   what to fence and how
     */
    public FencingDataSource(DataSource delegate, FencingConfig config) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.config = Objects.requireNonNull(config, "config");
        this.context = new ConnectionContext(config, new Listeners());
    }

    /**
     * Adds a listener of this data source's statements (metrics): see {@link FencingListener}. For
     * the connections of the {@code jdbc:fencing:} driver and the agent use
     * {@link FencingDriver#addListener(FencingListener)}.
     */
    public void addListener(FencingListener listener) {
        context.listeners().add(listener);
    }

    /** Removes a listener added with {@link #addListener}; false when it was not there. */
    public boolean removeListener(FencingListener listener) {
        return context.listeners().remove(listener);
    }

    /** The configuration this data source fences with. */
    public FencingConfig config() {
        return config;
    }

    /**
     * The fenced tables (as configured) whose fence column this data source has checked and found
     * (the column exists and holds integers). A row-mode table is checked the first time a fenced
     * write names it; epoch-mode tables have no column and never appear.
     */
    public Set<String> fenceColumnsChecked() {
        return context.fenceColumnsChecked();
    }

    @Override
    public Connection getConnection() throws SQLException {
        return fence(delegate.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return fence(delegate.getConnection(username, password));
    }

    /**
     * Fences a connection of the delegate, once: a connection that is fenced already (the delegate
     * forwards to another {@code FencingDataSource}, as a routing data source over fenced targets
     * does) is handed on as it is when it is fenced with this configuration, since a second layer
     * would plan the text the first one spliced. Fenced with another configuration, it is closed
     * and refused: neither layer alone enforces both.
     */
    private Connection fence(Connection connection) throws SQLException {
        FencingConfig already = ConnectionFencing.fencedWith(connection);
        if (already == null) {
            return context.fence(connection);
        }
        if (already.equals(config)) {
            return connection;
        }
        try {
            connection.close();
        } catch (SQLException | RuntimeException e) {
            // refused either way
        }
        throw new FencingException("the delegate of this FencingDataSource handed out a connection that another"
                + " fencing layer fences with a different configuration (fenced tables " + already.tables() + " there, "
                + config.tables() + " here, or other keys); two layers would each check the other's statements. Fence each data source once: remove"
                + " one of the layers, or give both the same configuration.");
    }

    /** What this data source's connections share. */
    ConnectionContext context() {
        return context;
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
