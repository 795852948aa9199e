package dev.fencing.agent;

import dev.fencing.FencingConfig;
import dev.fencing.FencingException;
import dev.fencing.agent.bootstrap.AgentBridge;
import dev.fencing.internal.jdbc.ConnectionFencing;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
    private final Layers layers = new Layers();

    /**
     * The layer over each application configuration met ({@link ConfigLayer#over}), for the agent
     * configuration in effect: worked out once, not at every borrow from a pool.
     */
    private static final class Layers {
        private record Entry(FencingConfig agent, FencingConfig layer, FencingException refusal) {
        }

        private final Map<FencingConfig, Entry> byApplication = new ConcurrentHashMap<>();

        FencingConfig over(FencingConfig application, FencingConfig agent) throws FencingException {
            Entry entry = byApplication.get(application);
            if (entry == null || entry.agent != agent) {
                if (byApplication.size() > 64) {
                    byApplication.clear();
                }
                try {
                    entry = new Entry(agent, ConfigLayer.over(application, agent), null);
                } catch (FencingException e) {
                    entry = new Entry(agent, null, e);
                }
                byApplication.put(application, entry);
            }
            if (entry.refusal != null) {
                throw new FencingException(entry.refusal.getMessage(), entry.refusal);
            }
            return entry.layer;
        }
    }

    ConnectionHooks(FencedTables tables, UrlFilter urls) {
        this.tables = tables;
        this.urls = urls;
    }

    @Override
    public Object connectionReturned(Object source, Object connection, String url, boolean covariant)
            throws SQLException {
        return fenceOrRefuse(source, (Connection) connection, url, covariant ? "fencing agent: " + nameOf(source)
                + " returns its own connection type, which a fenced connection cannot be; obtain "
                + "connections through the java.sql.Driver or javax.sql.DataSource interface" : null);
    }

    @Override
    public Object handedOut(Object pool, String method, String declared, Object result, Class<?> caller)
            throws SQLException {
        // the pool is the class that declares the woven method (an application's subclass of a pool class is not)
        String declaring = method.substring(0, method.lastIndexOf('.'));
        if (caller != null && Weaver.samePool(declaring, caller.getName())) {
            return result; // the pool's own code: the connections it keeps stay raw inside it
        }
        if (result instanceof Connection connection) {
            if (declared.equals("java.sql.Connection")) {
                return fenceOrRefuse(pool, connection, null, null);
            }
            // declared as a concrete class (DBCP 2's PoolableConnection) or a type variable the caller casts to
            // one: refused, unless it is fenced already (an application's own pool of connections the agent fenced)
            return fenceOrRefuse(pool, connection, null, "fencing agent: " + method + "() hands out a "
                    + connection.getClass().getName() + ", which a fenced connection cannot stand in for; obtain "
                    + "connections through " + supportedEntryPoint(pool));
        }
        if (result instanceof java.util.concurrent.Future<?> future && declared.equals("java.util.concurrent.Future")) {
            return new FencedFuture(this, pool, future);
        }
        if (result instanceof javax.sql.PooledConnection) {
            pooledConnectionReturned(pool, result);
        }
        return result;
    }

    @Override
    public boolean poolsOwn(Class<?> pool, Class<?> receiver) {
        return Weaver.samePool(pool.getName(), receiver.getName());
    }

    @Override
    public Object passedToCallback(Class<?> pool, Object receiver, String method, Class<?> declared, Object connection)
            throws SQLException {
        if (!(connection instanceof Connection raw) || isClosed(raw)) {
            return connection; // a closed one (Agroal's onConnectionDestroy) writes nothing, and cannot be fenced
        }
        // a subtype of Connection (a driver's or pool's connection type) cannot be given a fenced connection
        return fenceOrRefuse(pool, raw, null, declared == Connection.class ? null : "fencing agent: " + pool.getName()
                + " passes its connection to " + receiver.getClass().getName() + " (" + method + ") as a "
                + declared.getName() + ", which a fenced connection cannot stand in for; write to fenced tables "
                + "through a connection from the pool's javax.sql.DataSource getConnection(), or through a "
                + "callback that takes a java.sql.Connection");
    }

    private static boolean isClosed(Connection connection) {
        try {
            return connection.isClosed();
        } catch (SQLException | RuntimeException e) {
            return false; // fenced, or refused when it cannot be
        }
    }

    /** The entry point of a pool that hands out fenced connections, for a refusal's message. */
    private static String supportedEntryPoint(Object pool) {
        String name = pool.getClass().getName();
        if (name.startsWith("org.apache.commons.")) {
            return "DBCP 2's PoolingDataSource (new PoolingDataSource<>(pool).getConnection()) or BasicDataSource";
        }
        return "the pool's javax.sql.DataSource getConnection()";
    }

    /** A {@code Future<Connection>} of a pool (Tomcat JDBC's async borrow) whose connection is fenced when it is taken. */
    private static final class FencedFuture implements java.util.concurrent.Future<Object> {
        private final ConnectionHooks hooks;
        private final Object pool;
        private final java.util.concurrent.Future<?> delegate;

        FencedFuture(ConnectionHooks hooks, Object pool, java.util.concurrent.Future<?> delegate) {
            this.hooks = hooks;
            this.pool = pool;
            this.delegate = delegate;
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            return delegate.cancel(mayInterruptIfRunning);
        }

        @Override
        public boolean isCancelled() {
            return delegate.isCancelled();
        }

        @Override
        public boolean isDone() {
            return delegate.isDone();
        }

        @Override
        public Object get() throws InterruptedException, java.util.concurrent.ExecutionException {
            return fenced(delegate.get());
        }

        @Override
        public Object get(long timeout, java.util.concurrent.TimeUnit unit)
                throws InterruptedException, java.util.concurrent.ExecutionException, java.util.concurrent.TimeoutException {
            return fenced(delegate.get(timeout, unit));
        }

        private Object fenced(Object value) throws java.util.concurrent.ExecutionException {
            if (!(value instanceof Connection connection)) {
                return value;
            }
            try {
                return hooks.fenceOrRefuse(pool, connection, null, null);
            } catch (SQLException e) {
                throw new java.util.concurrent.ExecutionException(e);
            }
        }
    }

    /**
     * The connection fenced, or as it was when nothing is fenced (yet) or its URL is left alone;
     * with a {@code refusal} message, refused instead of fenced.
     */
    private Object fenceOrRefuse(Object source, Connection raw, String url, String refusal) throws SQLException {
        try {
            FencingConfig config = tables.current();
            if (config == null) {
                return raw; // no table is fenced (yet): nothing to enforce
            }
            if (!urls.fencesAll() && !urls.fences(configuredUrls(source, url), reportedUrl(raw))) {
                return raw;
            }
            FencingConfig fenced = config;
            // the application's own FencingDataSource / jdbc:fencing: connection, or a pool's proxy over one:
            // the agent's tables it does not fence get a layer of the agent's on top (see ConfigLayer)
            FencingConfig own = ConnectionFencing.fencedWith(raw);
            if (own != null) {
                fenced = layers.over(own, config);
                if (fenced == null) {
                    return raw;
                }
            }
            if (refusal != null) {
                throw new FencingException(refusal);
            }
            return ConnectionFencing.fence(raw, fenced);
        } catch (SQLException e) {
            closeQuietly(raw, e);
            throw e;
        } catch (RuntimeException | LinkageError e) {
            FencingException failure = new FencingException("fencing agent: cannot fence a connection from "
                    + nameOf(source) + ": " + e, e);
            closeQuietly(raw, failure);
            throw failure;
        }
    }

    @Override
    public void pooledConnectionReturned(Object source, Object pooled) throws SQLException {
        javax.sql.PooledConnection connection = (javax.sql.PooledConnection) pooled;
        try {
            if (tables.current() == null
                    || !urls.fencesAll() && !urls.fences(configuredUrls(source, null), null)) {
                return;
            }
            Method getConnection = pooled.getClass().getMethod("getConnection");
            if (!Weaver.WOVEN_POOLED_CONNECTIONS.contains(getConnection.getDeclaringClass().getName())) {
                throw new FencingException("fencing agent: " + nameOf(source) + " returned a "
                        + pooled.getClass().getName() + " whose getConnection() the agent has not instrumented, so "
                        + "the connections it hands out would not be fenced; use the data source's getConnection()");
            }
        } catch (SQLException e) {
            closeQuietly(connection, e);
            throw e;
        } catch (NoSuchMethodException | RuntimeException | LinkageError e) {
            FencingException failure = new FencingException("fencing agent: cannot check the pooled connection from "
                    + nameOf(source) + ": " + e, e);
            closeQuietly(connection, failure);
            throw failure;
        }
    }

    /** The URLs a connection was configured with: the driver's, else the data source's URL property. */
    private static List<String> configuredUrls(Object source, String url) {
        String property = source instanceof Class ? null : urlProperty(source);
        if (url == null) {
            return property == null ? List.of() : List.of(property);
        }
        return property == null || property.equals(url) ? List.of(url) : List.of(url, property);
    }

    /** The URL property of a data source (HikariCP, DBCP, c3p0, Tomcat, pgjdbc, MariaDB, H2 name it one of three ways). */
    private static String urlProperty(Object source) {
        Method getter = URL_GETTER.get(source.getClass());
        if (getter == null) {
            return null;
        }
        try {
            Object value = getter.invoke(source);
            return value instanceof String text && !text.isBlank() ? text : null;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private static final ClassValue<Method> URL_GETTER = new ClassValue<>() {
        @Override
        protected Method computeValue(Class<?> type) {
            for (String name : new String[] {"getJdbcUrl", "getUrl", "getURL"}) {
                try {
                    Method getter = type.getMethod(name);
                    if (getter.getReturnType() == String.class && Modifier.isPublic(getter.getDeclaringClass().getModifiers())) {
                        return getter;
                    }
                } catch (NoSuchMethodException | SecurityException e) {
                    // try the next name
                }
            }
            return null;
        }
    };

    private static String nameOf(Object source) {
        return source instanceof Class<?> type ? type.getName() : source.getClass().getName();
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

    private static String reportedUrl(Connection connection) {
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

    private static void closeQuietly(javax.sql.PooledConnection connection, Exception failure) {
        try {
            connection.close();
        } catch (SQLException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }
}
