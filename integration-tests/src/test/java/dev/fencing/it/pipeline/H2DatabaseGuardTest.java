package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.jdbc.FencingDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The database guard on an H2 in-memory database of its own; the trigger is
 * {@link dev.fencing.internal.guard.H2GuardTrigger}. {@code pay} is a Java function of this class, run by
 * H2 in the caller's session, as a stored function would be.
 */
public class H2DatabaseGuardTest extends DatabaseGuardContract {

    private static final DataSource DATABASE = H2.database();

    @Override
    DataSource raw() {
        return DATABASE;
    }

    @Override
    String schema() {
        return "PUBLIC";
    }

    @Override
    List<String> payFunction() {
        return List.of("CREATE ALIAS IF NOT EXISTS pay FOR '" + H2DatabaseGuardTest.class.getName() + ".pay'");
    }

    /** H2's function {@code pay(id)}: updates the order in the calling session. */
    public static int pay(Connection session, long orderId) throws SQLException {
        try (Statement statement = session.createStatement()) {
            return statement.executeUpdate("UPDATE orders SET status = 'paid' WHERE id = " + orderId) > 0 ? 1 : 0;
        }
    }

    @Override
    String setSessionLock(String lock) {
        return "SET @FENCING_LOCK = '" + lock + "'";
    }

    @Override
    String setSessionMark(String reason) {
        return "SET @FENCING_MIGRATION = '" + reason + "'";
    }

    @Override
    String setSessionFence(long fence) {
        return "SET @FENCING_FENCE = " + fence;
    }

    /** H2 writes through a view only with an INSTEAD OF trigger of its own. */
    @Override
    boolean updatableViews() {
        return false;
    }

    @org.junit.jupiter.api.Test
    void mergeRunsUnderTheGuardAndMeetsTheTrigger() throws Exception {
        String merge = "MERGE INTO orders o USING (VALUES (1, 'merged')) v (id, status) ON o.id = v.id"
                + " WHEN MATCHED THEN UPDATE SET status = v.status";
        try (FencingDataSource fenced = new FencingDataSource(raw(), config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
            try (dev.fencing.Fence.Scope stale = dev.fencing.Fence.enter(4)) {
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> statement.execute(merge))
                        .isInstanceOf(dev.fencing.StaleFenceException.class);
            }
            try (dev.fencing.Fence.Scope current = dev.fencing.Fence.enter(9)) {
                statement.execute(merge);
            }
        }
        org.assertj.core.api.Assertions.assertThat(order(1)).isEqualTo("merged@9");
    }

    @org.junit.jupiter.api.Test
    void theUrlDriverKeepsTheSessionFenceToo() throws Exception {
        java.util.Properties properties = new java.util.Properties();
        properties.setProperty("fencing.tables", "PUBLIC.orders");
        properties.setProperty("fencing.database-guard", "required");
        String url = "jdbc:fencing:" + ((org.h2.jdbcx.JdbcDataSource) DATABASE).getURL().substring("jdbc:".length());
        try (Connection connection = java.sql.DriverManager.getConnection(url, properties);
             Statement statement = connection.createStatement()) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> statement.executeQuery("SELECT pay(1)").close())
                    .isInstanceOf(dev.fencing.MissingFenceException.class);
            try (dev.fencing.Fence.Scope stale = dev.fencing.Fence.enter(4)) {
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> statement.executeQuery("SELECT pay(1)").close())
                        .isInstanceOf(dev.fencing.StaleFenceException.class);
            }
            try (dev.fencing.Fence.Scope current = dev.fencing.Fence.enter(6)) {
                statement.executeQuery("SELECT pay(1)").close();
            }
        }
        org.assertj.core.api.Assertions.assertThat(order(1)).isEqualTo("paid@6");
    }
    @org.junit.jupiter.api.Test
    void verifyNamesAFenceColumnOfAnotherTypeAndTriggerErrorsNameTheMigrationPath() throws Exception {
        SQLException missing = org.assertj.core.api.Assertions.catchThrowableOfType(SQLException.class,
                () -> sql("UPDATE orders SET status = 'x' WHERE id = 1"));
        org.assertj.core.api.Assertions.assertThat(missing.getMessage())
                .contains("fencing guard: no fence in session for PUBLIC.ORDERS")
                .contains("(a migration sets @FENCING_MIGRATION = '<reason>' or uses DatabaseGuard.migrate)");
        sql("ALTER TABLE orders ALTER COLUMN last_fence SET DATA TYPE INTEGER");
        org.assertj.core.api.Assertions.assertThat(org.assertj.core.api.Assertions.catchThrowableOfType(
                dev.fencing.FencingException.class, () -> dev.fencing.jdbc.DatabaseGuard.verify(raw(), config())).getMessage())
                .contains("fence column last_fence is INTEGER, not BIGINT");
    }

    /**
     * When the session variables cannot be cleared at close, the connection is aborted, never
     * handed back with the fence: the clearing statement fails here on purpose.
     */
    @org.junit.jupiter.api.Test
    void aConnectionWhoseFenceCannotBeClearedIsAbortedNotReturned() throws Exception {
        DataSource failingClear = (DataSource) java.lang.reflect.Proxy.newProxyInstance(DataSource.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    Object result = method.invoke(DATABASE, args);
                    if (!(result instanceof Connection connection)) {
                        return result;
                    }
                    return java.lang.reflect.Proxy.newProxyInstance(Connection.class.getClassLoader(),
                            new Class<?>[] {Connection.class}, (p, m, a) -> {
                                if (m.getName().equals("prepareStatement") && String.valueOf(a[0]).contains("SET(@FENCING_FENCE, NULL)")) {
                                    throw new SQLException("the clearing statement fails (test)");
                                }
                                try {
                                    return m.invoke(connection, a);
                                } catch (java.lang.reflect.InvocationTargetException e) {
                                    throw e.getCause();
                                }
                            });
                });
        com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
        config.setDataSource(failingClear);
        config.setMaximumPoolSize(1);
        try (com.zaxxer.hikari.HikariDataSource pool = new com.zaxxer.hikari.HikariDataSource(config);
             FencingDataSource fenced = new FencingDataSource(pool, config())) {
            Connection connection = fenced.getConnection();
            Connection session = RawSession.behind(connection).unwrap(org.h2.jdbc.JdbcConnection.class);
            try (dev.fencing.Fence.Scope scope = dev.fencing.Fence.enter(40); Statement statement = connection.createStatement()) {
                statement.executeQuery("SELECT pay(2)").close();
            }
            org.assertj.core.api.Assertions.assertThatThrownBy(connection::close)
                    .isInstanceOf(dev.fencing.FencingException.class).hasMessageContaining("aborted");
            org.assertj.core.api.Assertions.assertThat(session.isClosed()).as("the aborted session").isTrue();
            try (Connection next = pool.getConnection(); Statement statement = next.createStatement()) {
                statement.executeUpdate("UPDATE orders SET status = 'raw' WHERE id = 1");
                org.assertj.core.api.Assertions.fail("a raw write on the pool landed");
            } catch (SQLException refusedOrDead) {
                org.assertj.core.api.Assertions.assertThat(refusedOrDead.getSQLState()).isIn("ZF002", "08003", "08006", "90007");
            }
        }
        org.assertj.core.api.Assertions.assertThat(order(1)).isEqualTo("pending@5");
        org.assertj.core.api.Assertions.assertThat(order(2)).isEqualTo("paid@40");
    }
}
