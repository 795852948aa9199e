package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import dev.fencing.FencingException;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;

import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/**
 * The clearing a migration tool's connections get, on H2 (which Flyway cannot run on a pool of one,
 * so {@link GuardedMigrationTest} leaves it out): a marked session goes back to the pool unmarked,
 * and one whose clearing fails is aborted, not returned.
 */
class MigrationMarksTest {

    private static JdbcDataSource h2() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:marks_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1");
        return h2;
    }

    @Test
    void aConnectionClosedByTheMigrationToolReachesThePoolWithoutTheMark() throws Exception {
        HikariConfig config = new HikariConfig();
        config.setDataSource(h2());
        config.setMaximumPoolSize(1);
        try (HikariDataSource pool = new HikariDataSource(config)) {
            for (boolean autoCommit : new boolean[] {true, false}) {
                Object session;
                try (Connection migration = MigrationMarks.clearingOnClose(pool).getConnection();
                     Statement statement = migration.createStatement()) {
                    migration.setAutoCommit(autoCommit);
                    statement.execute("SET @FENCING_MIGRATION = 'V3 backfill'");
                    statement.execute("SET @FENCING_FENCE = 99");
                    session = sessionOf(statement);
                }
                try (Connection next = pool.getConnection(); Statement statement = next.createStatement()) {
                    assertThat(sessionOf(statement)).as("the pool's one session").isEqualTo(session);
                    try (ResultSet values = statement.executeQuery("SELECT @FENCING_MIGRATION, @FENCING_FENCE")) {
                        values.next();
                        assertThat(values.getObject(1)).as("mark, auto-commit " + autoCommit).isNull();
                        assertThat(values.getObject(2)).as("fence, auto-commit " + autoCommit).isNull();
                    }
                }
            }
        }
    }

    @Test
    void aConnectionWhoseMarkCannotBeClearedIsAbortedNotReturned() throws Exception {
        JdbcDataSource h2 = h2();
        Connection real = h2.getConnection();
        AtomicBoolean aborted = new AtomicBoolean();
        Connection refusing = (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "prepareStatement" -> throw new SQLException("the server went away");
                        case "abort" -> {
                            aborted.set(true);
                            real.close();
                            return null;
                        }
                        default -> {
                            try {
                                return method.invoke(real, args);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                        }
                    }
                });
        DataSource tool = MigrationMarks.clearingOnClose(new SingleConnection(refusing));
        Connection migration = tool.getConnection();
        assertThatThrownBy(migration::close).isInstanceOf(FencingException.class)
                .hasMessageContaining("aborted rather than handed back to its pool")
                .hasRootCauseMessage("the server went away");
        assertThat(aborted).isTrue();
    }

    private static Object sessionOf(Statement statement) throws SQLException {
        try (ResultSet id = statement.executeQuery("SELECT SESSION_ID()")) {
            id.next();
            return id.getObject(1);
        }
    }

    /** A data source that hands out one connection. */
    private record SingleConnection(Connection connection) implements DataSource {
        @Override
        public Connection getConnection() {
            return connection;
        }

        @Override
        public Connection getConnection(String username, String password) {
            return connection;
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
        public <T> T unwrap(Class<T> iface) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
            return false;
        }
    }
}
