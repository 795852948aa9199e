package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.MissingFenceException;
import dev.fencing.StaleFenceException;
import dev.fencing.jdbc.DatabaseGuard;
import dev.fencing.testing.ScratchArea;
import dev.fencing.testing.TestDatabase;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import javax.sql.DataSource;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A real Flyway migration with the database guard's mark, then the application on the same pool
 * (issue 27, Build item 3). The pool holds one connection, so the migrations, the fenced code and
 * the raw code share one server session: whatever a migration script left on it, they all meet.
 * The scripts (db/guarded/*) create {@code orders} and a function {@code pay} that writes it
 * (V1), install the guard with its own DDL (V2, Java), and rewrite fenced rows with the mark: on
 * PostgreSQL the documented transaction-local form (V3) and the old session-level one (V4), on
 * MariaDB the session variable (V3). Every row is read back through a connection of its own.
 *
 * <p>Without the starter's clearing, the PostgreSQL cases and both Liquibase cases fail (the raw
 * write lands; V9 passes on V4's mark). The MariaDB Flyway cases pass even then, because Flyway's
 * MySQL support resets user variables after each migration where it can read
 * {@code information_schema.user_variables}; the starter does not rely on that.
 */
class GuardedMigrationTest {

    private static ApplicationContextRunner application(ScratchArea area, TestDatabase.Kind kind, String... locations) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BootLineAutoConfigurations.DATA_SOURCE,
                        BootLineAutoConfigurations.JDBC_TEMPLATE, BootLineAutoConfigurations.FLYWAY,
                        FencingAutoConfiguration.class, FencingMigrationConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + area.url(),
                        "spring.datasource.hikari.maximum-pool-size=1",
                        // Flyway takes a second connection for its lock unless told not to: none here
                        "spring.flyway.postgresql.transactional-lock=false",
                        "spring.flyway.locations=classpath:db/guarded/common,classpath:db/guarded/"
                                + kind.name().toLowerCase(Locale.ROOT) + String.join("", locations),
                        "fencing.tables=orders", "fencing.database-guard=required", "fencing.lock.store=jdbc",
                        "fencing.lock.jdbc.create-table=false");
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void aMigrationsMarkEndsWithItAndTheSharedPoolIsGuarded(TestDatabase.Kind kind) throws Exception {
        try (ScratchArea area = ScratchArea.create(kind)) {
            application(area, kind).run(context -> {
                assertThat(context).hasNotFailed();
                JdbcTemplate database = new JdbcTemplate(area.dataSource());
                JdbcTemplate raw = new JdbcTemplate(pool(context));
                DataSource fenced = context.getBean(DataSource.class);

                // the migrations wrote through the mark, on the one session the pool holds
                assertThat(statusOf(database, 1)).isEqualTo("migrated");
                assertThat(statusOf(database, 2)).isEqualTo("backfilled");
                long migrationSession = database.queryForObject(
                        "SELECT max(session_id) FROM migration_sessions", Long.class);
                assertThat(raw.queryForObject(sessionId(kind), Long.class)).isEqualTo(migrationSession);

                // first thing after the migration, before any fenced statement touched the session:
                // raw code on the same pool gets no mark
                assertRefusedWithoutFence(() -> raw.update("UPDATE orders SET status = 'raw' WHERE id = 1"));
                assertRefusedWithoutFence(() -> raw.queryForObject("SELECT pay(1)", Integer.class));

                // a fenced write under the current fence lands
                try (Fence.Scope current = Fence.enter(10)) {
                    assertThat(context.getBean(JdbcTemplate.class)
                            .update("UPDATE orders SET status = 'shipped' WHERE id = 2")).isEqualTo(1);
                }
                // a fenced call of a function that writes the fenced table: no fence, then a stale one
                try (Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
                    assertThatThrownBy(() -> statement.executeQuery("SELECT pay(2)").close())
                            .isInstanceOf(MissingFenceException.class);
                }
                try (Fence.Scope stale = Fence.enter(5);
                     Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
                    assertThatThrownBy(() -> statement.executeQuery("SELECT pay(2)").close())
                            .isInstanceOf(StaleFenceException.class);
                }
                // and raw code after the fenced code, on the same session again
                assertThat(raw.queryForObject(sessionId(kind), Long.class)).isEqualTo(migrationSession);
                assertRefusedWithoutFence(() -> raw.update("UPDATE orders SET status = 'raw' WHERE id = 2"));

                assertThat(statusOf(database, 1)).isEqualTo("migrated");
                assertThat(statusOf(database, 2)).isEqualTo("shipped");
                assertThat(database.queryForObject("SELECT last_fence FROM orders WHERE id = 2", Long.class)).isEqualTo(10);
                assertThat(statusOf(database, 3)).isEqualTo("new");
            });
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void aMigrationWithoutTheMarkIsRefusedRightAfterOneWithIt(TestDatabase.Kind kind) throws Exception {
        try (ScratchArea area = ScratchArea.create(kind)) {
            application(area, kind, ",classpath:db/guarded/unmarked").run(context -> {
                assertThat(context).hasFailed();
                assertThat(sqlStates(context.getStartupFailure())).contains("ZF002");
                assertThat(statusOf(new JdbcTemplate(area.dataSource()), 3)).isEqualTo("new");
            });
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void liquibaseGivesThePoolBackItsConnectionWithoutTheMark(TestDatabase.Kind kind) throws Exception {
        try (ScratchArea area = ScratchArea.create(kind)) {
            JdbcTemplate database = new JdbcTemplate(area.dataSource());
            database.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(20) NOT NULL,"
                    + " last_fence BIGINT NOT NULL DEFAULT 0)");
            database.update("INSERT INTO orders (id, status) VALUES (1, 'new'), (2, 'new')");
            DatabaseGuard.install(area.dataSource(), FencingConfig.builder().tables("orders").build());
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(BootLineAutoConfigurations.DATA_SOURCE,
                            BootLineAutoConfigurations.LIQUIBASE, FencingAutoConfiguration.class,
                            FencingMigrationConfiguration.class))
                    .withPropertyValues("spring.datasource.url=" + area.url(),
                            "spring.datasource.hikari.maximum-pool-size=1",
                            "spring.liquibase.change-log=classpath:db/guarded/liquibase-"
                                    + kind.name().toLowerCase(Locale.ROOT) + ".sql",
                            "fencing.tables=orders", "fencing.database-guard=required", "fencing.lock.store=jdbc",
                            "fencing.lock.jdbc.create-table=false")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(statusOf(database, 1)).isEqualTo("migrated");
                        JdbcTemplate raw = new JdbcTemplate(pool(context));
                        assertRefusedWithoutFence(() -> raw.update("UPDATE orders SET status = 'raw' WHERE id = 2"));
                        assertThat(statusOf(database, 2)).isEqualTo("new");
                    });
        }
    }

    /** The pool under the fenced data source bean: what Flyway and the application's raw code use. */
    private static DataSource pool(ApplicationContext context) {
        return context.getBean(FencedDataSources.class).delegates().get(0);
    }

    private static String sessionId(TestDatabase.Kind kind) {
        return kind == TestDatabase.Kind.POSTGRESQL ? "SELECT pg_backend_pid()" : "SELECT CONNECTION_ID()";
    }

    private static String statusOf(JdbcTemplate database, long id) {
        return database.queryForObject("SELECT status FROM orders WHERE id = ?", String.class, id);
    }

    private static void assertRefusedWithoutFence(Runnable write) {
        assertThatThrownBy(write::run).satisfies(refused -> assertThat(sqlStates(refused)).contains("ZF002"));
    }

    private static String sqlStates(Throwable failure) {
        StringBuilder states = new StringBuilder();
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql) {
                states.append(sql.getSQLState()).append(' ');
            }
        }
        return states.toString();
    }
}
