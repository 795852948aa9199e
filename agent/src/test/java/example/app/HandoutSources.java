package example.app;

import dev.fencing.Fence;
import io.agroal.api.AgroalDataSource;
import io.agroal.api.AgroalPoolInterceptor;
import io.agroal.api.configuration.AgroalDataSourceConfiguration;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import oracle.ucp.jdbc.PoolDataSource;
import oracle.ucp.jdbc.PoolDataSourceFactory;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.xa.PGXADataSource;
import org.vibur.dbcp.ViburDBCPDataSource;
import org.vibur.dbcp.pool.TakenConnection;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The public handout APIs of Vibur, Oracle UCP and Agroal, as their documentation shows them,
 * for {@link MatrixSample}: each case opens the pool over the database's own driver and hands out
 * connections the way the API does.
 */
final class HandoutSources {

    private HandoutSources() {
    }

    /** The case's connections, or null when {@code source} is none of these. */
    static MatrixSample.Connections open(String source, String database, String url, String table) throws Exception {
        switch (source) {
            case "vibur": {
                ViburDBCPDataSource pool = vibur(url, false);
                return MatrixSample.closing(pool::getConnection, pool);
            }
            case "vibur-nonpooled": {
                // ViburDataSource.getNonPooledConnection(): a connection straight from the driver, outside the pool
                ViburDBCPDataSource pool = vibur(url, false);
                return MatrixSample.closing(pool::getNonPooledConnection, pool);
            }
            case "vibur-raw": {
                // the pool service behind the data source: its holder's rawConnection() is public API
                ViburDBCPDataSource pool = vibur(url, false);
                return MatrixSample.closing(() -> pool.getPool().take().rawConnection(), pool);
            }
            case "vibur-taken": {
                // connection tracking: getTakenConnections() lists each taken connection with the pool's proxy
                ViburDBCPDataSource pool = vibur(url, true);
                List<Connection> held = new java.util.ArrayList<>();
                return MatrixSample.closing(() -> {
                    held.add(pool.getConnection());
                    TakenConnection[] taken = pool.getTakenConnections();
                    return taken[taken.length - 1].getProxyConnection();
                }, () -> {
                    for (Connection connection : held) {
                        connection.close();
                    }
                    pool.close();
                });
            }
            case "ucp": {
                PoolDataSource pool = ucp(url);
                return MatrixSample.closing(pool::getConnection, () -> { });
            }
            case "ucp-user": {
                // PoolDataSource.getConnection(user, password)
                PoolDataSource pool = ucp(url);
                return MatrixSample.closing(() -> pool.getConnection(user(url), ""), () -> { });
            }
            case "ucp-builder": {
                // JDBC 4.3's connection builder, UCP's own UCPConnectionBuilder
                PoolDataSource pool = ucp(url);
                return MatrixSample.closing(() -> pool.createConnectionBuilder().build(), () -> { });
            }
            case "agroal-poolless": {
                AgroalDataSource pool = agroal(url, database, AgroalDataSourceConfiguration.DataSourceImplementation.AGROAL_POOLLESS, false);
                return MatrixSample.closing(pool::getConnection, pool);
            }
            case "agroal-xa": {
                // Agroal over the driver's XADataSource (connectionProviderClass), as for JTA
                AgroalDataSource pool = agroal(url, database, AgroalDataSourceConfiguration.DataSourceImplementation.AGROAL, true);
                return MatrixSample.closing(pool::getConnection, pool);
            }
            case "agroal-interceptor":
                return interceptor(agroal(url, database, AgroalDataSourceConfiguration.DataSourceImplementation.AGROAL, false), table);
            default:
                return null;
        }
    }

    private static ViburDBCPDataSource vibur(String url, boolean tracking) throws SQLException {
        ViburDBCPDataSource pool = new ViburDBCPDataSource();
        pool.setJdbcUrl(url);
        // Vibur passes user and password to the driver as properties: both must be set (the URL's user)
        pool.setUsername(user(url));
        pool.setPassword("");
        pool.setDriverClassName(DriverManager.getDriver(url).getClass().getName());
        pool.setPoolInitialSize(1);
        pool.setPoolMaxSize(4);
        pool.setPoolEnableConnectionTracking(tracking);
        pool.start();
        return pool;
    }

    /** The user named in the URL's query ({@code user=..}), else empty. */
    private static String user(String url) {
        java.util.regex.Matcher user = java.util.regex.Pattern.compile("[?&]user=([^&]*)").matcher(url);
        return user.find() ? user.group(1) : "";
    }

    private static PoolDataSource ucp(String url) throws SQLException {
        PoolDataSource pool = PoolDataSourceFactory.getPoolDataSource();
        configure(pool, url, DriverManager.getDriver(url).getClass().getName());
        return pool;
    }

    private static void configure(PoolDataSource pool, String url, String factory) throws SQLException {
        pool.setConnectionFactoryClassName(factory);
        pool.setURL(url);
        pool.setConnectionPoolName("matrix-" + System.nanoTime());
        pool.setInitialPoolSize(1);
        pool.setMaxPoolSize(2);
    }

    private static AgroalDataSource agroal(String url, String database,
                                           AgroalDataSourceConfiguration.DataSourceImplementation implementation,
                                           boolean xa) throws SQLException {
        return AgroalDataSource.from(new AgroalDataSourceConfigurationSupplier()
                .dataSourceImplementation(implementation)
                .connectionPoolConfiguration(cp -> cp.maxSize(2)
                        .connectionFactoryConfiguration(cf -> {
                            cf.jdbcUrl(url);
                            if (xa) {
                                cf.connectionProviderClass(database.equals("pg") ? PGXADataSource.class : MariaDbDataSource.class);
                            }
                            return cf;
                        })));
    }

    /**
     * An Agroal pool interceptor, which the pool calls with the connection it is handing out: the
     * writes are made there, on the borrowing thread, under its fence.
     */
    private static MatrixSample.Connections interceptor(AgroalDataSource pool, String table) {
        AtomicReference<String> write = new AtomicReference<>();
        AtomicReference<String> connectionClass = new AtomicReference<>();
        long[] target = new long[1];
        String[] status = new String[1];
        pool.setPoolInterceptors(List.of(new AgroalPoolInterceptor() {
            @Override
            public void onConnectionAcquire(Connection connection) {
                connectionClass.set(connection.getClass().getName());
                write.set(MatrixSample.write(connection, table, status[0], target[0]));
            }
        }));
        return new MatrixSample.Connections() {
            @Override
            public Connection get() {
                throw new UnsupportedOperationException();
            }

            @Override
            public String writeUnder(long fence, String table, String writeStatus, long id, StringBuilder unused)
                    throws SQLException {
                target[0] = id;
                status[0] = writeStatus;
                try (Fence.Scope scope = fence > 0 ? Fence.enter(fence) : null; Connection c = pool.getConnection()) {
                    return unused == null ? write.get() : connectionClass.get() + " current=" + write.get();
                }
            }

            @Override
            public void close() {
                pool.close();
            }
        };
    }
}
