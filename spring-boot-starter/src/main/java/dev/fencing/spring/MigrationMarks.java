package dev.fencing.spring;

import dev.fencing.FencingException;
import dev.fencing.internal.guard.SessionFence;
import dev.fencing.internal.sql.Dialect;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * What a migration tool leaves of the database guard's migration mark on the connections it takes
 * from the application's pool: nothing. A migration script that rewrites fenced rows marks its own
 * session (MariaDB {@code SET @fencing_migration}, H2 {@code SET @FENCING_MIGRATION}, PostgreSQL a
 * script written with the session-level {@code set_config('fencing.migration', .., false)}); those
 * values live as long as the physical connection, and the pool hands that connection to the
 * application's raw code next, whose unfenced writes the triggers would then let through.
 *
 * <p>{@link #clear} empties, at the session's own level, every value the guard's triggers read
 * (mark, fence, lock), with the driver's own texts ({@link SessionFence#clearSession()}).
 * {@link #clearingOnClose} wraps the data source a migration tool gets so that each connection it
 * closes is cleared first, and aborted (so the pool drops it) when that fails.
 */
final class MigrationMarks {

    private MigrationMarks() {
    }

    /**
     * Empties the session-level mark, fence and lock on {@code connection}; nothing on a database
     * the guard does not support.
     *
     * @throws SQLException when the database refused (the values may still be there)
     */
    static void clear(Connection connection) throws SQLException {
        Dialect dialect = Dialect.fromProductName(connection.getMetaData().getDatabaseProductName());
        SessionFence session;
        try {
            session = SessionFence.of(connection, dialect);
        } catch (FencingException unsupported) {
            return; // no guard here, so no mark to clear
        }
        try {
            session.clearSession();
        } finally {
            session.close();
        }
    }

    /** {@code dataSource}, except that every connection it gives is cleared ({@link #clear}) when closed. */
    static DataSource clearingOnClose(DataSource dataSource) {
        return dataSource instanceof ClearingDataSource ? dataSource : new ClearingDataSource(dataSource);
    }

    /**
     * Clears {@code connection} before it goes back to its pool, outside any transaction (a value
     * set in a transaction that the pool then rolls back would come back). When that fails the
     * connection is aborted, never returned: its session, and the mark with it, ends.
     */
    static void clearBeforeRelease(Connection connection) throws SQLException {
        try {
            if (!connection.getAutoCommit()) {
                // what the pool would do on return; the clearing below must not be rolled back with it
                connection.rollback();
                clear(connection);
                connection.commit();
            } else {
                clear(connection);
            }
        } catch (SQLException | RuntimeException e) {
            try {
                connection.abort(SessionFence.DIRECTLY);
            } catch (SQLException | RuntimeException notAborted) {
                e.addSuppressed(notAborted);
            }
            throw new FencingException("the database guard's migration mark could not be cleared from a connection a"
                    + " migration used, so the connection was aborted rather than handed back to its pool", e);
        }
    }

    private static final class ClearingDataSource implements DataSource {

        private final DataSource delegate;

        ClearingDataSource(DataSource delegate) {
            this.delegate = delegate;
        }

        @Override
        public Connection getConnection() throws SQLException {
            return clearingOnClose(delegate.getConnection());
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            return clearingOnClose(delegate.getConnection(username, password));
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

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            return iface.isInstance(this) ? iface.cast(this) : delegate.unwrap(iface);
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) throws SQLException {
            return iface.isInstance(this) || delegate.isWrapperFor(iface);
        }

        @Override
        public String toString() {
            return "clearing the guard's migration mark on close: " + delegate;
        }
    }

    private static Connection clearingOnClose(Connection connection) {
        return (Connection) Proxy.newProxyInstance(MigrationMarks.class.getClassLoader(),
                new Class<?>[] {Connection.class}, new ClearingConnection(connection));
    }

    /** Passes every call through; {@code close()} of an open connection clears it first. */
    private static final class ClearingConnection implements InvocationHandler {

        private final Connection connection;

        ClearingConnection(Connection connection) {
            this.connection = connection;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            if (method.getName().equals("equals") && method.getParameterCount() == 1) {
                return proxy == args[0];
            }
            if (method.getName().equals("hashCode") && method.getParameterCount() == 0) {
                return System.identityHashCode(proxy);
            }
            if (method.getName().equals("close") && method.getParameterCount() == 0 && !connection.isClosed()) {
                clearBeforeRelease(connection);
            }
            try {
                return method.invoke(connection, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }
}
