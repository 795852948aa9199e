package example.app;

import com.mchange.v2.c3p0.ComboPooledDataSource;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.jdbc.FencingDataSource;
import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import org.apache.commons.dbcp2.BasicDataSource;
import org.apache.commons.dbcp2.DriverManagerConnectionFactory;
import org.apache.commons.dbcp2.PoolableConnection;
import org.apache.commons.dbcp2.PoolableConnectionFactory;
import org.apache.commons.dbcp2.PoolingDataSource;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.h2.jdbcx.JdbcDataSource;
import org.mariadb.jdbc.Configuration;
import org.mariadb.jdbc.MariaDbDataSource;
import org.mariadb.jdbc.MariaDbPoolDataSource;
import org.mariadb.jdbc.pool.Pools;
import org.postgresql.ds.PGConnectionPoolDataSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.postgresql.xa.PGXADataSource;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.ConnectionPoolDataSource;
import javax.sql.PooledConnection;
import javax.sql.XAConnection;
import javax.sql.XADataSource;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

/**
 * An application that opens connections every way a JDBC application can, and writes under the
 * current fence (9), a stale one (5) and none; the rows start with fence 7 and are read back by
 * the test. Run under {@code -javaagent:fencing-agent.jar} with {@code fencing.tables=<table>}.
 *
 * <p>System properties: {@code pg.url}, {@code mariadb.url}, {@code h2.url} (the databases),
 * {@code table}. Arguments: {@code <source>:<database>:<row-id>} ... Prints one line per case:
 * {@code RESULT <source>:<database> connection=<class> current=<count|exception> stale=.. none=..},
 * or {@code RESULT <source>:<database> refused=<exception>/<SQLState>} when the connection itself
 * is refused.
 */
public final class MatrixSample {

    static final long CURRENT = 9;
    static final long STALE = 5;

    public static void main(String[] args) throws Exception {
        String table = System.getProperty("table");
        System.out.println("RESULT java " + Runtime.version().feature());
        for (String spec : args) {
            String[] parts = spec.split(":");
            String source = parts[0];
            String database = parts[1];
            long id = Long.parseLong(parts[2]);
            System.out.println("RESULT " + source + ":" + database + " " + run(source, database, table, id));
        }
    }

    private static String run(String source, String database, String table, long id) throws Exception {
        if (source.equals("virtual")) {
            return virtual(() -> run("hikari", database, table, id));
        }
        String url = System.getProperty(database + ".url");
        try (Connections connections = open(source, database, url, table)) {
            StringBuilder out = new StringBuilder();
            try {
                out.append("connection=").append(connections.writeUnder(CURRENT, table, "current", id, out));
            } catch (SQLException e) {
                System.out.println("MESSAGE " + source + ":" + database + " " + e.getMessage());
                return "refused=" + e.getClass().getSimpleName() + "/" + e.getSQLState();
            }
            out.append(" stale=").append(connections.writeUnder(STALE, table, "stale", id, null));
            out.append(" none=").append(connections.writeUnder(0, table, "none", id, null));
            return out.toString();
        }
    }

    /** Runs on a virtual thread (Java 21 and later); {@code skipped} on older JVMs. */
    private static String virtual(Callable<String> work) throws Exception {
        java.lang.reflect.Method ofVirtual;
        try {
            ofVirtual = Thread.class.getMethod("ofVirtual");
        } catch (NoSuchMethodException e) {
            return "skipped";
        }
        AtomicReference<Object> result = new AtomicReference<>();
        Runnable task = () -> {
            try {
                result.set(work.call());
            } catch (Exception e) {
                result.set(e);
            }
        };
        Object builder = ofVirtual.invoke(null);
        Thread thread = (Thread) Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class)
                .invoke(builder, task);
        thread.join();
        if (result.get() instanceof Exception e) {
            throw e;
        }
        return result.get() + " virtual=" + Thread.class.getMethod("isVirtual").invoke(thread);
    }

    /** Where a case's connections come from; each write takes a connection of its own. */
    interface Connections extends AutoCloseable {
        Connection get() throws SQLException;

        /** The written count or the refusing exception's simple name; appends the class of the connection to {@code connectionClass}. */
        default String writeUnder(long fence, String table, String status, long id, StringBuilder connectionClass)
                throws SQLException {
            try (Fence.Scope scope = fence > 0 ? Fence.enter(fence) : null; Connection c = get()) {
                if (connectionClass != null) {
                    return c.getClass().getName() + " current=" + write(c, table, status, id);
                }
                return write(c, table, status, id);
            }
        }

        @Override
        default void close() throws Exception {
        }
    }

    static String write(Connection c, String table, String status, long id) {
        try (PreparedStatement update = c.prepareStatement("UPDATE " + table + " SET status = ? WHERE id = ?")) {
            update.setString(1, status);
            update.setLong(2, id);
            return Integer.toString(update.executeUpdate());
        } catch (SQLException e) {
            return e.getClass().getSimpleName();
        }
    }

    private static Connections open(String source, String database, String url, String table) throws Exception {
        switch (source) {
            case "drivermanager":
                return () -> DriverManager.getConnection(url);
            case "excluded":
                // the URL excluded by a pattern that starts with '*'
                return () -> DriverManager.getConnection(url + (url.contains("?") ? "&" : "?")
                        + (database.equals("pg") ? "ApplicationName=fencing-excluded" : "connectionAttributes=program_name:fencing-excluded"));
            case "datasource":
                return ownDataSource(database, url)::getConnection;
            case "xa":
                return xa(xaDataSource(database, url));
            case "pooled": {
                ConnectionPoolDataSource pooled = poolDataSource(database, url);
                return pooled(pooled::getPooledConnection, () -> { });
            }
            case "hikari": {
                HikariDataSource pool = new HikariDataSource();
                pool.setJdbcUrl(url);
                pool.setMaximumPoolSize(2);
                return closing(pool::getConnection, pool);
            }
            case "dbcp2": {
                BasicDataSource pool = new BasicDataSource();
                pool.setUrl(url);
                pool.setMaxTotal(2);
                return closing(pool::getConnection, pool);
            }
            case "c3p0": {
                ComboPooledDataSource pool = new ComboPooledDataSource();
                pool.setJdbcUrl(url);
                pool.setMaxPoolSize(2);
                pool.setInitialPoolSize(1);
                pool.setMinPoolSize(1);
                return closing(pool::getConnection, pool::close);
            }
            case "c3p0-pooled": {
                // c3p0's ConnectionPoolDataSource over its DriverManagerDataSource, used by hand
                com.mchange.v2.c3p0.DriverManagerDataSource driver = new com.mchange.v2.c3p0.DriverManagerDataSource();
                driver.setJdbcUrl(url);
                com.mchange.v2.c3p0.WrapperConnectionPoolDataSource pooled = new com.mchange.v2.c3p0.WrapperConnectionPoolDataSource();
                pooled.setNestedDataSource(driver);
                return pooled(pooled::getPooledConnection, () -> { });
            }
            case "tomcat": {
                org.apache.tomcat.jdbc.pool.DataSource pool = new org.apache.tomcat.jdbc.pool.DataSource();
                pool.setUrl(url);
                pool.setDriverClassName(DriverManager.getDriver(url).getClass().getName());
                pool.setMaxActive(2);
                pool.setInitialSize(1);
                return closing(pool::getConnection, pool::close);
            }
            case "tomcat-pooled": {
                // Tomcat's getPooledConnection() hands out its pool proxy, whose getConnection() is not a driver's
                org.apache.tomcat.jdbc.pool.DataSource pool = new org.apache.tomcat.jdbc.pool.DataSource();
                pool.setUrl(url);
                pool.setDriverClassName(DriverManager.getDriver(url).getClass().getName());
                pool.setMaxActive(2);
                return closing(() -> pool.getPooledConnection().getConnection(), pool::close);
            }
            case "hikari-pool": {
                // HikariCP's HikariPool is public API: new HikariPool(config).getConnection()
                HikariConfig config = new HikariConfig();
                config.setJdbcUrl(url);
                config.setMaximumPoolSize(2);
                HikariPool pool = new HikariPool(config);
                return closing(pool::getConnection, pool::shutdown);
            }
            case "tomcat-async": {
                // Tomcat JDBC's documented asynchronous borrow (fair queue, the default)
                org.apache.tomcat.jdbc.pool.DataSource pool = tomcat(url);
                return closing(() -> await(pool.getConnectionAsync()), pool::close);
            }
            case "tomcat-pool": {
                org.apache.tomcat.jdbc.pool.DataSource pool = tomcat(url);
                org.apache.tomcat.jdbc.pool.ConnectionPool connectionPool = pool.createPool();
                return closing(connectionPool::getConnection, pool::close);
            }
            case "tomcat-getpool": {
                org.apache.tomcat.jdbc.pool.DataSource pool = tomcat(url);
                pool.createPool();
                return closing(() -> pool.getPool().getConnection(), pool::close);
            }
            case "tomcat-pool-async": {
                org.apache.tomcat.jdbc.pool.DataSource pool = tomcat(url);
                org.apache.tomcat.jdbc.pool.ConnectionPool connectionPool = pool.createPool();
                return closing(() -> await(connectionPool.getConnectionAsync()), pool::close);
            }
            case "dbcp2-borrow": {
                // DBCP 2's manual pooling: GenericObjectPool<PoolableConnection>.borrowObject()
                GenericObjectPool<PoolableConnection> pool = dbcp2Pool(url);
                return closing(() -> {
                    try {
                        return pool.borrowObject();
                    } catch (SQLException e) {
                        throw e;
                    } catch (Exception e) {
                        throw new SQLException(e);
                    }
                }, pool);
            }
            case "dbcp2-pooling": {
                // the same pool through DBCP 2's PoolingDataSource, as its docs show it
                GenericObjectPool<PoolableConnection> pool = dbcp2Pool(url);
                PoolingDataSource<PoolableConnection> dataSource = new PoolingDataSource<>(pool);
                return closing(dataSource::getConnection, dataSource);
            }
            case "agroal": {
                AgroalDataSource pool = AgroalDataSource.from(new AgroalDataSourceConfigurationSupplier()
                        .connectionPoolConfiguration(cp -> cp.maxSize(2)
                                .connectionFactoryConfiguration(cf -> cf.jdbcUrl(url))));
                return closing(pool::getConnection, pool);
            }
            case "mariadb-pool": {
                MariaDbPoolDataSource pool = new MariaDbPoolDataSource(url + "&maxPoolSize=2");
                return closing(pool::getConnection, pool);
            }
            case "mariadb-pools": {
                // MariaDB's pools registry; the pool connection through the JDBC interface
                Configuration configuration = Configuration.parse(url + "&pool=true&maxPoolSize=2");
                return pooled(() -> Pools.retrievePool(configuration).getPoolConnection(), Pools::close);
            }
            case "mariadb-static": {
                // the public static Driver.connect(Configuration), which returns MariaDB's own connection type
                Configuration configuration = Configuration.parse(url);
                return () -> org.mariadb.jdbc.Driver.connect(configuration);
            }
            case "own-fencingds": {
                // the application fences another table itself; the agent's table must still be fenced
                FencingDataSource fenced = new FencingDataSource(ownDataSource(database, url),
                        FencingConfig.builder().tables("some_other_table").build());
                return fenced::getConnection;
            }
            case "own-url": {
                String fencingUrl = "jdbc:fencing:" + url.substring("jdbc:".length());
                return () -> DriverManager.getConnection(fencingUrl + (url.contains("?") ? "&" : "?")
                        + "fencing.tables=some_other_table");
            }
            case "own-hikari-url": {
                // a pool over the application's jdbc:fencing: URL: the agent's layer goes over the pool's proxy
                HikariDataSource pool = new HikariDataSource();
                pool.setJdbcUrl("jdbc:fencing:" + url.substring("jdbc:".length()));
                pool.addDataSourceProperty("fencing.tables", "some_other_table");
                pool.setMaximumPoolSize(2);
                return closing(pool::getConnection, pool);
            }
            case "builder": {
                // JDBC 4.3's DataSource.createConnectionBuilder().build(), as a driver that offers it would:
                // it constructs the connection itself, through no getConnection or connect
                ConnectionBuilderSample builder = new ConnectionBuilderSample(url);
                return () -> builder.user(null).build();
            }
            case "liar": {
                // a wrapper that claims to wrap everything (isWrapperFor answers true) but wraps a raw connection
                LiarDataSource liar = new LiarDataSource(ownDataSource(database, url));
                return liar::getConnection;
            }
            default: {
                Connections more = HandoutSources.open(source, database, url, table);
                if (more == null) {
                    throw new IllegalArgumentException("unknown source " + source);
                }
                return more;
            }
        }
    }

    private static org.apache.tomcat.jdbc.pool.DataSource tomcat(String url) throws SQLException {
        org.apache.tomcat.jdbc.pool.DataSource pool = new org.apache.tomcat.jdbc.pool.DataSource();
        pool.setUrl(url);
        pool.setDriverClassName(DriverManager.getDriver(url).getClass().getName());
        pool.setMaxActive(2);
        pool.setInitialSize(1);
        return pool;
    }

    private static Connection await(java.util.concurrent.Future<Connection> future) throws SQLException {
        try {
            return future.get();
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof SQLException sql ? sql : new SQLException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException(e);
        }
    }

    private static GenericObjectPool<PoolableConnection> dbcp2Pool(String url) {
        PoolableConnectionFactory factory = new PoolableConnectionFactory(new DriverManagerConnectionFactory(url), null);
        GenericObjectPool<PoolableConnection> pool = new GenericObjectPool<>(factory);
        pool.setMaxTotal(2);
        factory.setPool(pool);
        return pool;
    }

    /** The driver's own plain data source. */
    private static javax.sql.DataSource ownDataSource(String database, String url) throws SQLException {
        switch (database) {
            case "pg": {
                PGSimpleDataSource dataSource = new PGSimpleDataSource();
                dataSource.setURL(url);
                return dataSource;
            }
            case "mariadb":
                return new MariaDbDataSource(url);
            case "h2": {
                JdbcDataSource dataSource = new JdbcDataSource();
                dataSource.setURL(url);
                return dataSource;
            }
            default:
                throw new IllegalArgumentException(database);
        }
    }

    /** The driver's own ConnectionPoolDataSource. */
    private static ConnectionPoolDataSource poolDataSource(String database, String url) throws SQLException {
        if (database.equals("pg")) {
            PGConnectionPoolDataSource dataSource = new PGConnectionPoolDataSource();
            dataSource.setURL(url);
            return dataSource;
        }
        return (ConnectionPoolDataSource) ownDataSource(database, url);
    }

    interface PooledSource {
        PooledConnection open() throws SQLException;
    }

    /** Each write through the logical connection of a pooled connection of its own. */
    private static Connections pooled(PooledSource source, AutoCloseable resource) {
        return new Connections() {
            @Override
            public Connection get() {
                throw new UnsupportedOperationException();
            }

            @Override
            public String writeUnder(long fence, String table, String status, long id, StringBuilder connectionClass)
                    throws SQLException {
                PooledConnection pooled = source.open();
                try (Fence.Scope scope = fence > 0 ? Fence.enter(fence) : null; Connection c = pooled.getConnection()) {
                    String result = write(c, table, status, id);
                    return connectionClass == null ? result : c.getClass().getName() + " current=" + result;
                } finally {
                    pooled.close();
                }
            }

            @Override
            public void close() throws Exception {
                resource.close();
            }
        };
    }

    private static XADataSource xaDataSource(String database, String url) throws SQLException {
        if (database.equals("pg")) {
            PGXADataSource dataSource = new PGXADataSource();
            dataSource.setURL(url);
            return dataSource;
        }
        return (XADataSource) ownDataSource(database, url);
    }

    /** Each write in an XA transaction of its own, committed in one phase when the write went through. */
    private static Connections xa(XADataSource dataSource) {
        return new Connections() {
            @Override
            public Connection get() throws SQLException {
                throw new UnsupportedOperationException();
            }

            @Override
            public String writeUnder(long fence, String table, String status, long id, StringBuilder connectionClass)
                    throws SQLException {
                XAConnection xa = dataSource.getXAConnection();
                try (Fence.Scope scope = fence > 0 ? Fence.enter(fence) : null) {
                    Connection c = xa.getConnection();
                    XAResource resource = xa.getXAResource();
                    Xid xid = new SampleXid(status + id + System.nanoTime());
                    resource.start(xid, XAResource.TMNOFLAGS);
                    String result = write(c, table, status, id);
                    boolean applied = result.chars().allMatch(Character::isDigit);
                    resource.end(xid, applied ? XAResource.TMSUCCESS : XAResource.TMFAIL);
                    if (applied) {
                        resource.commit(xid, true);
                    } else {
                        resource.rollback(xid);
                    }
                    c.close();
                    return connectionClass == null ? result : c.getClass().getName() + " current=" + result;
                } catch (XAException e) {
                    throw new SQLException("XA failed: " + e + " (error code " + e.errorCode + ")", e);
                } finally {
                    xa.close();
                }
            }
        };
    }

    record SampleXid(String id) implements Xid {
        @Override
        public int getFormatId() {
            return 4660;
        }

        @Override
        public byte[] getGlobalTransactionId() {
            byte[] bytes = id.getBytes(StandardCharsets.US_ASCII);
            return java.util.Arrays.copyOf(bytes, Math.min(bytes.length, 64));
        }

        @Override
        public byte[] getBranchQualifier() {
            return new byte[] {1};
        }
    }

    /** A JDBC 4.3 connection builder of H2 connections, which it constructs itself. */
    public static final class ConnectionBuilderSample implements java.sql.ConnectionBuilder {
        private final String url;

        ConnectionBuilderSample(String url) {
            this.url = url;
        }

        @Override
        public java.sql.ConnectionBuilder user(String username) {
            return this;
        }

        @Override
        public java.sql.ConnectionBuilder password(String password) {
            return this;
        }

        @Override
        public java.sql.ConnectionBuilder shardingKey(java.sql.ShardingKey shardingKey) {
            return this;
        }

        @Override
        public java.sql.ConnectionBuilder superShardingKey(java.sql.ShardingKey superShardingKey) {
            return this;
        }

        @Override
        public Connection build() throws SQLException {
            return new org.h2.jdbc.JdbcConnection(url, new java.util.Properties(), null, null, false);
        }
    }

    /** A data source whose connections claim (isWrapperFor) to wrap any type, fenced connections too. */
    public static final class LiarDataSource extends PGSimpleDataSource {
        private static final long serialVersionUID = 1L;
        private final transient javax.sql.DataSource inner;

        LiarDataSource(javax.sql.DataSource inner) {
            this.inner = inner;
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection raw = inner.getConnection();
            return (Connection) Proxy.newProxyInstance(MatrixSample.class.getClassLoader(), new Class<?>[] {Connection.class},
                    (proxy, method, arguments) -> {
                        if (method.getName().equals("isWrapperFor")) {
                            return true;
                        }
                        try {
                            return method.invoke(raw, arguments);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }
    }

    static Connections closing(Connections connections, AutoCloseable resource) {
        return new Connections() {
            @Override
            public Connection get() throws SQLException {
                return connections.get();
            }

            @Override
            public void close() throws Exception {
                resource.close();
            }
        };
    }
}
