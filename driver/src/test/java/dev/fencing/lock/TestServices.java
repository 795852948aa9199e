package dev.fencing.lock;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** The real services the lock tests run against; every address comes from the environment. */
final class TestServices {

    static final String REDIS_URI = env("FENCING_REDIS_URI", "redis://127.0.0.1:6379");
    static final String PG_URL = env("FENCING_PG_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    static final String MARIADB_URL = env("FENCING_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/test?user=root");

    private TestServices() {
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    /** A key prefix no other test run uses. */
    static String uniquePrefix() {
        return "fencing-test-" + UUID.randomUUID().toString().substring(0, 8) + ":";
    }

    /** A table name no other test run uses. */
    static String uniqueTable() {
        return "fencing_locks_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    }

    /** Deletes every key under {@code prefix} in the Redis at {@code uri}. */
    static void deleteKeys(String uri, String prefix) {
        RedisClient client = RedisClient.create(RedisURI.create(uri));
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            List<String> keys = new ArrayList<>();
            ScanIterator.scan(connection.sync(), ScanArgs.Builder.matches(prefix + "*").limit(1000)).forEachRemaining(keys::add);
            if (!keys.isEmpty()) {
                connection.sync().del(keys.toArray(new String[0]));
            }
        } finally {
            client.shutdown();
        }
    }

    static HikariDataSource pool(String jdbcUrl, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(1);
        config.setPoolName("lock-test");
        return new HikariDataSource(config);
    }

    /**
     * {@code delegate}, counting the connections it hands out ({@code opened}) and those not
     * closed yet ({@code open}).
     */
    static javax.sql.DataSource counting(javax.sql.DataSource delegate, java.util.concurrent.atomic.AtomicInteger opened,
            java.util.concurrent.atomic.AtomicInteger open) {
        return new javax.sql.DataSource() {
            @Override
            public Connection getConnection() throws java.sql.SQLException {
                Connection connection = delegate.getConnection();
                opened.incrementAndGet();
                open.incrementAndGet();
                return (Connection) java.lang.reflect.Proxy.newProxyInstance(Connection.class.getClassLoader(),
                        new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                            if (method.getName().equals("close") && !connection.isClosed()) {
                                open.decrementAndGet();
                            }
                            try {
                                return method.invoke(connection, args);
                            } catch (java.lang.reflect.InvocationTargetException e) {
                                throw e.getCause();
                            }
                        });
            }

            @Override
            public Connection getConnection(String user, String password) throws java.sql.SQLException {
                throw new java.sql.SQLFeatureNotSupportedException();
            }

            @Override
            public java.io.PrintWriter getLogWriter() {
                return null;
            }

            @Override
            public void setLogWriter(java.io.PrintWriter out) {
            }

            @Override
            public void setLoginTimeout(int seconds) {
            }

            @Override
            public int getLoginTimeout() {
                return 0;
            }

            @Override
            public java.util.logging.Logger getParentLogger() {
                return java.util.logging.Logger.getGlobal();
            }

            @Override
            public <T> T unwrap(Class<T> iface) throws java.sql.SQLException {
                throw new java.sql.SQLException("not a wrapper");
            }

            @Override
            public boolean isWrapperFor(Class<?> iface) {
                return false;
            }
        };
    }

    /** A data source that opens a new connection on every call, as a plain driver data source does. */
    static javax.sql.DataSource unpooled(String jdbcUrl) {
        return new javax.sql.DataSource() {
            @Override
            public Connection getConnection() throws java.sql.SQLException {
                return java.sql.DriverManager.getConnection(jdbcUrl);
            }

            @Override
            public Connection getConnection(String user, String password) throws java.sql.SQLException {
                return java.sql.DriverManager.getConnection(jdbcUrl, user, password);
            }

            @Override
            public java.io.PrintWriter getLogWriter() {
                return null;
            }

            @Override
            public void setLogWriter(java.io.PrintWriter out) {
            }

            @Override
            public void setLoginTimeout(int seconds) {
            }

            @Override
            public int getLoginTimeout() {
                return 0;
            }

            @Override
            public java.util.logging.Logger getParentLogger() {
                return java.util.logging.Logger.getGlobal();
            }

            @Override
            public <T> T unwrap(Class<T> iface) throws java.sql.SQLException {
                throw new java.sql.SQLException("not a wrapper");
            }

            @Override
            public boolean isWrapperFor(Class<?> iface) {
                return false;
            }
        };
    }

    static void execute(javax.sql.DataSource dataSource, String sql) throws Exception {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    /** A loopback port nothing listens on (at the moment of asking). */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free port", e);
        }
    }
}
