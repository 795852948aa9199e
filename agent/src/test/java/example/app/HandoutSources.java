package example.app;

import dev.fencing.Fence;
import com.mchange.v2.c3p0.AbstractConnectionCustomizer;
import com.mchange.v2.c3p0.ComboPooledDataSource;
import io.agroal.api.AgroalDataSource;
import io.agroal.api.AgroalDataSourceListener;
import io.agroal.api.AgroalPoolInterceptor;
import io.agroal.api.configuration.AgroalDataSourceConfiguration;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import oracle.ucp.jdbc.PoolDataSource;
import oracle.ucp.jdbc.PoolDataSourceFactory;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.xa.PGXADataSource;
import org.vibur.dbcp.ViburDBCPDataSource;
import org.vibur.dbcp.pool.HookHolder;
import org.vibur.dbcp.pool.TakenConnection;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Consumer;

/**
 * The public handout APIs of Vibur, Oracle UCP and Agroal, as their documentation shows them,
 * for {@link MatrixSample}: each case opens the pool over the database's own driver and hands out
 * connections the way the API does; and the callbacks through which a pool passes its connection
 * to the application's code (Agroal's interceptor and listener, c3p0's customizer, Vibur's hook).
 */
final class HandoutSources {

    private HandoutSources() {
    }

    /** The case's connections, or null when {@code source} is none of these. */
    static MatrixSample.Connections open(String source, String database, String url, String table) throws Exception {
        switch (source) {
            case "vibur": {
                ViburDBCPDataSource pool = vibur(url, false, hooks -> { });
                return MatrixSample.closing(pool::getConnection, pool);
            }
            case "vibur-nonpooled": {
                // ViburDataSource.getNonPooledConnection(): a connection straight from the driver, outside the pool
                ViburDBCPDataSource pool = vibur(url, false, hooks -> { });
                return MatrixSample.closing(pool::getNonPooledConnection, pool);
            }
            case "vibur-raw": {
                // the pool service behind the data source: its holder's rawConnection() is public API
                ViburDBCPDataSource pool = vibur(url, false, hooks -> { });
                return MatrixSample.closing(() -> pool.getPool().take().rawConnection(), pool);
            }
            case "vibur-taken": {
                // connection tracking: getTakenConnections() lists each taken connection with the pool's proxy
                ViburDBCPDataSource pool = vibur(url, true, hooks -> { });
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
            default:
                return callbacks(source, database, url, table);
        }
    }

    private static ViburDBCPDataSource vibur(String url, boolean tracking, Consumer<HookHolder.ConnHooks> hooks)
            throws SQLException {
        ViburDBCPDataSource pool = new ViburDBCPDataSource();
        pool.setJdbcUrl(url);
        // Vibur passes user and password to the driver as properties: both must be set (the URL's user)
        pool.setUsername(user(url));
        pool.setPassword("");
        pool.setDriverClassName(DriverManager.getDriver(url).getClass().getName());
        pool.setPoolInitialSize(1);
        pool.setPoolMaxSize(4);
        pool.setPoolEnableConnectionTracking(tracking);
        hooks.accept(pool.getConnHooks()); // before start(): Vibur takes no hooks after
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
        return AgroalDataSource.from(agroalConfiguration(url, database, implementation, xa));
    }

    private static AgroalDataSourceConfigurationSupplier agroalConfiguration(String url, String database,
            AgroalDataSourceConfiguration.DataSourceImplementation implementation, boolean xa) {
        return new AgroalDataSourceConfigurationSupplier()
                .dataSourceImplementation(implementation)
                .connectionPoolConfiguration(cp -> cp.maxSize(2)
                        .connectionFactoryConfiguration(cf -> {
                            cf.jdbcUrl(url);
                            if (xa) {
                                cf.connectionProviderClass(database.equals("pg") ? PGXADataSource.class : MariaDbDataSource.class);
                            }
                            return cf;
                        }));
    }

    /**
     * What the application's pool callbacks write: the case sets the row and status before each
     * borrow, the callback the pool calls with the connection it hands out (on the borrowing
     * thread, under its fence) writes them, and the case reads the result back after the borrow.
     * Static because c3p0 makes its {@code ConnectionCustomizer} from a class name.
     */
    public static final class CallbackWrites {
        static volatile String table;
        static volatile String status;
        static volatile long id;
        static volatile String written;
        static volatile String connectionClass;

        static void write(Connection connection) {
            if (status == null) {
                return; // a borrow of the pool's own (c3p0's acquisition test, Agroal's validation): no write
            }
            connectionClass = connection.getClass().getName();
            written = MatrixSample.write(connection, table, status, id);
            status = null;
        }
    }

    /** c3p0's {@code ConnectionCustomizer}, named in the data source's {@code connectionCustomizerClassName}. */
    public static final class CheckOutCustomizer extends AbstractConnectionCustomizer {
        @Override
        public void onCheckOut(Connection connection, String parentDataSourceIdentityToken) {
            CallbackWrites.write(connection);
        }
    }

    /** The pool callback cases, or null when {@code source} is none of them. */
    static MatrixSample.Connections callbacks(String source, String database, String url, String table) throws Exception {
        CallbackWrites.table = table;
        switch (source) {
            case "agroal-interceptor": {
                AgroalDataSource pool = agroal(url, database, AgroalDataSourceConfiguration.DataSourceImplementation.AGROAL, false);
                pool.setPoolInterceptors(List.of(new AgroalPoolInterceptor() {
                    @Override
                    public void onConnectionAcquire(Connection connection) {
                        CallbackWrites.write(connection);
                    }
                }));
                return callback(pool::getConnection, pool);
            }
            case "agroal-listener": {
                // AgroalDataSourceListener.onConnectionAcquire, registered when the data source is made
                AgroalDataSource pool = AgroalDataSource.from(agroalConfiguration(url, database,
                        AgroalDataSourceConfiguration.DataSourceImplementation.AGROAL, false), new AgroalDataSourceListener() {
                            @Override
                            public void onConnectionAcquire(Connection connection) {
                                CallbackWrites.write(connection);
                            }
                        });
                return callback(pool::getConnection, pool);
            }
            case "c3p0-customizer": {
                ComboPooledDataSource pool = new ComboPooledDataSource();
                pool.setJdbcUrl(url);
                pool.setConnectionCustomizerClassName(CheckOutCustomizer.class.getName());
                return callback(pool::getConnection, pool::close);
            }
            case "vibur-hook": {
                // Vibur's connection hooks: Hook.GetConnection runs on the borrowing thread with the raw connection
                ViburDBCPDataSource pool = vibur(url, false,
                        hooks -> hooks.addOnGet((connection, takenNanos) -> CallbackWrites.write(connection)));
                return callback(pool::getConnection, pool);
            }
            default:
                return null;
        }
    }

    /** Each write borrows (and closes) a connection: the pool's callback makes the write during the borrow. */
    private static MatrixSample.Connections callback(Callable<Connection> borrow, AutoCloseable pool) {
        return new MatrixSample.Connections() {
            @Override
            public Connection get() {
                throw new UnsupportedOperationException();
            }

            @Override
            public String writeUnder(long fence, String table, String writeStatus, long id, StringBuilder first)
                    throws SQLException {
                CallbackWrites.id = id;
                CallbackWrites.written = "(the callback was not called)";
                CallbackWrites.status = writeStatus;
                try (Fence.Scope scope = fence > 0 ? Fence.enter(fence) : null; Connection c = borrow.call()) {
                    return first == null ? CallbackWrites.written
                            : CallbackWrites.connectionClass + " current=" + CallbackWrites.written;
                } catch (SQLException | RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new SQLException(e);
                } finally {
                    CallbackWrites.status = null;
                }
            }

            @Override
            public void close() throws Exception {
                pool.close();
            }
        };
    }
}
