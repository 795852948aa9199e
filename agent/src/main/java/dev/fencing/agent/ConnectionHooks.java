package dev.fencing.agent;

import dev.fencing.FencingConfig;
import dev.fencing.FencingException;
import dev.fencing.agent.bootstrap.AgentBridge;
import dev.fencing.jdbc.ConnectionFencing;

import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * What the instrumented code calls (through {@link AgentBridge}): fences the connections the
 * application receives, and puts the tokens of Redisson's fenced locks in scope.
 *
 * <p>Fails closed: a connection that should be fenced and cannot be is closed and an
 * {@link SQLException} ({@link FencingException}, SQLState {@code ZF000}) thrown instead; the
 * application never receives it unfenced.
 */
final class ConnectionHooks implements AgentBridge.Hooks {

    private static final System.Logger LOG = System.getLogger("dev.fencing.agent");

    private static final ClassValue<Method> GET_NAME = new ClassValue<>() {
        @Override
        protected Method computeValue(Class<?> type) {
            try {
                return type.getMethod("getName");
            } catch (NoSuchMethodException e) {
                return null;
            }
        }
    };

    private final FencedTables tables;
    private final UrlFilter urls;
    private final LockScopes locks = new LockScopes();

    ConnectionHooks(FencedTables tables, UrlFilter urls) {
        this.tables = tables;
        this.urls = urls;
    }

    @Override
    public Object connectionReturned(Object source, Object connection, String url, boolean covariant)
            throws SQLException {
        Connection raw = (Connection) connection;
        try {
            if (ConnectionFencing.isFenced(raw)) {
                return raw; // the application's own FencingDataSource / jdbc:fencing:, or a pool over a fenced connection
            }
            FencingConfig config = tables.current();
            if (config == null) {
                return raw; // no table is fenced (yet): nothing to enforce
            }
            if (!urls.fencesAll() && !urls.fences(url != null ? url : urlOf(raw))) {
                return raw;
            }
            if (covariant) {
                throw new FencingException("fencing agent: " + source.getClass().getName()
                        + " returns its own connection type, which a fenced connection cannot be; obtain "
                        + "connections through the java.sql.Driver or javax.sql.DataSource interface");
            }
            return ConnectionFencing.fence(raw, config);
        } catch (SQLException e) {
            closeQuietly(raw, e);
            throw e;
        } catch (RuntimeException | LinkageError e) {
            FencingException failure = new FencingException("fencing agent: cannot fence a connection from "
                    + source.getClass().getName() + ": " + e, e);
            closeQuietly(raw, failure);
            throw failure;
        }
    }

    @Override
    public void tokenAcquired(Object lock, Object token) {
        String name = lockName(lock);
        long fence = token instanceof Number number ? number.longValue() : 0;
        if (name == null || fence <= 0) {
            LOG.log(System.Logger.Level.WARNING, () -> "fencing agent: cannot use the token " + token + " of lock "
                    + lock.getClass().getName() + "; writes to fenced tables stay refused");
            return;
        }
        locks.acquired(name, fence);
    }

    @Override
    public void lockReleased(Object lock, String method, Throwable failure) {
        if (locks.isEmpty()) {
            return; // this thread holds no lock whose token is in scope: the common case
        }
        String name = lockName(lock);
        if (name == null) {
            return;
        }
        // forceUnlock ends every hold; a failed unlock means the lock was not ours any more
        boolean all = method.startsWith("forceUnlock") || failure != null;
        locks.released(name, all);
    }

    private static String urlOf(Connection connection) {
        try {
            return connection.getMetaData().getURL();
        } catch (SQLException | RuntimeException e) {
            return null;
        }
    }

    private static String lockName(Object lock) {
        Method getName = GET_NAME.get(lock.getClass());
        if (getName == null) {
            return null;
        }
        try {
            Object name = getName.invoke(lock);
            return name == null ? null : name.toString();
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private static void closeQuietly(Connection connection, Exception failure) {
        try {
            connection.close();
        } catch (SQLException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }
}
