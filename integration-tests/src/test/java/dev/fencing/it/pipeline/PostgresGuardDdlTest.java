package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.FencingException;
import dev.fencing.jdbc.DatabaseGuard;
import dev.fencing.jdbc.FencingDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.postgresql.util.PSQLException;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The guard against DDL on PostgreSQL (issue 27, items 4 and 5): each form is refused by the
 * event triggers without the migration mark, runs with it, and {@code verify} then names what it
 * changed (where the catalog shows it). In a database of its own: event triggers cover a database.
 */
class PostgresGuardDdlTest {

    private static final String SCHEMA = "guarded";
    private static final String MARK = "SELECT set_config('fencing.migration', 'test: tamper', true)";
    private static OwnPostgresDatabase own;
    private static DataSource raw;

    @BeforeAll
    static void createDatabase() throws SQLException {
        own = OwnPostgresDatabase.create();
        raw = own.schema(SCHEMA);
    }

    @AfterAll
    static void dropDatabase() throws SQLException {
        if (own != null) {
            own.close();
        }
    }

    static FencingConfig config() {
        return FencingConfig.builder().tables(SCHEMA + ".orders", SCHEMA + ".ledger", SCHEMA + ".legacy")
                .databaseGuard(FencingConfig.Guard.REQUIRED).build();
    }

    @BeforeEach
    void createTables() throws SQLException {
        // a whole schema may go (with the event triggers' function): nothing is left to write
        OwnPostgresDatabase.execute(own.url(), "DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE", "CREATE SCHEMA " + SCHEMA);
        sql("CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(20), last_fence BIGINT NOT NULL DEFAULT 0)",
                "INSERT INTO orders (id, status, last_fence) VALUES (1, 'pending', 5)",
                "CREATE TABLE ledger (id BIGINT, last_fence BIGINT NOT NULL DEFAULT 0) PARTITION BY RANGE (id)",
                "CREATE TABLE ledger_low PARTITION OF ledger FOR VALUES FROM (0) TO (100)",
                "INSERT INTO ledger (id, last_fence) VALUES (1, 5)",
                "CREATE TABLE ledger_extra (id BIGINT, last_fence BIGINT NOT NULL DEFAULT 0)",
                "CREATE TABLE legacy (id BIGINT, last_fence BIGINT NOT NULL DEFAULT 0)",
                "CREATE TABLE legacy_2020 () INHERITS (legacy)",
                "CREATE TABLE loose (id BIGINT, last_fence BIGINT NOT NULL DEFAULT 0)");
        DatabaseGuard.install(raw, config());
        DatabaseGuard.verify(raw, config());
    }

    /** One DDL form, and what verify says after it ran with the mark (null: the catalog does not show it). */
    record Form(String name, String ddl, String verifySays) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Form> forms() {
        return Stream.of(
                new Form("rewrite of another column", "ALTER TABLE orders ALTER COLUMN status TYPE VARCHAR(40) USING upper(status)", null),
                new Form("rewrite of the fence column", "ALTER TABLE orders ALTER COLUMN last_fence TYPE BIGINT USING 0", null),
                new Form("fence column to integer", "ALTER TABLE orders ALTER COLUMN last_fence TYPE INTEGER", "is integer, not bigint"),
                new Form("fence column to numeric", "ALTER TABLE orders ALTER COLUMN last_fence TYPE NUMERIC", "is numeric, not bigint"),
                new Form("fence column nullable", "ALTER TABLE orders ALTER COLUMN last_fence DROP NOT NULL", "records another fence column"),
                new Form("fence column default", "ALTER TABLE orders ALTER COLUMN last_fence SET DEFAULT 99", "records another fence column"),
                new Form("DISABLE TRIGGER", "ALTER TABLE orders DISABLE TRIGGER fencing_guard", "not enabled ALWAYS (tgenabled=D)"),
                new Form("DISABLE TRIGGER ALL", "ALTER TABLE orders DISABLE TRIGGER ALL", "not enabled ALWAYS (tgenabled=D)"),
                new Form("ENABLE TRIGGER (origin only)", "ALTER TABLE orders ENABLE TRIGGER fencing_guard", "not enabled ALWAYS (tgenabled=O)"),
                new Form("ENABLE REPLICA TRIGGER", "ALTER TABLE orders ENABLE REPLICA TRIGGER fencing_guard_truncate", "not enabled ALWAYS (tgenabled=R)"),
                new Form("DISABLE TRIGGER on a partition", "ALTER TABLE ledger_low DISABLE TRIGGER fencing_guard", "ledger_low: trigger fencing_guard is not enabled ALWAYS"),
                new Form("DISABLE TRIGGER on an inheritance child", "ALTER TABLE legacy_2020 DISABLE TRIGGER fencing_guard", "legacy_2020: trigger fencing_guard is not enabled ALWAYS"),
                new Form("DETACH PARTITION", "ALTER TABLE ledger DETACH PARTITION ledger_low", null),
                new Form("ATTACH PARTITION", "ALTER TABLE ledger ATTACH PARTITION ledger_extra FOR VALUES FROM (100) TO (200)", "ledger_extra: trigger fencing_guard_truncate is missing"),
                new Form("CREATE TABLE .. PARTITION OF", "CREATE TABLE ledger_high PARTITION OF ledger FOR VALUES FROM (200) TO (300)", "ledger_high: trigger fencing_guard_truncate is missing"),
                new Form("NO INHERIT", "ALTER TABLE legacy_2020 NO INHERIT legacy", null),
                new Form("INHERIT", "ALTER TABLE loose INHERIT legacy", "loose: trigger fencing_guard is missing"),
                new Form("DROP a partition", "DROP TABLE ledger_low", null),
                new Form("RENAME table", "ALTER TABLE orders RENAME TO orders_old", "fenced table guarded.orders does not exist"),
                new Form("SET SCHEMA", "ALTER TABLE orders SET SCHEMA public", "fenced table guarded.orders does not exist"),
                new Form("RENAME fence column", "ALTER TABLE orders RENAME COLUMN last_fence TO lf", "fence column last_fence is missing"),
                new Form("DROP fence column", "ALTER TABLE orders DROP COLUMN last_fence", "fence column last_fence is missing"),
                new Form("DROP and ADD the fence column", "ALTER TABLE orders DROP COLUMN last_fence, ADD COLUMN last_fence BIGINT NOT NULL DEFAULT 0",
                        "records another fence column"),
                new Form("ALTER FUNCTION SET", "ALTER FUNCTION fencing_guard_row() SET fencing.fence = '999999'", "fencing_guard_row() has settings of its own"),
                new Form("ALTER FUNCTION SECURITY DEFINER", "ALTER FUNCTION fencing_guard_row() SECURITY DEFINER", "fencing_guard_row() is SECURITY DEFINER"),
                new Form("ALTER FUNCTION RENAME", "ALTER FUNCTION fencing_guard_truncate() RENAME TO old_truncate", "fencing_guard_truncate() is missing"),
                new Form("CREATE OR REPLACE FUNCTION", "CREATE OR REPLACE FUNCTION fencing_guard_row() RETURNS trigger LANGUAGE plpgsql AS"
                        + " $$BEGIN IF TG_OP = 'DELETE' THEN RETURN OLD; END IF; RETURN NEW; END$$", "fencing_guard_row() is outdated"),
                new Form("DROP FUNCTION CASCADE", "DROP FUNCTION fencing_guard_row() CASCADE", "orders: trigger fencing_guard is missing"),
                new Form("DROP TRIGGER", "DROP TRIGGER fencing_guard ON orders", "orders: trigger fencing_guard is missing"),
                new Form("ALTER TRIGGER RENAME", "ALTER TRIGGER fencing_guard ON orders RENAME TO old_guard", "orders: trigger fencing_guard is missing"),
                new Form("a trigger WHEN condition", "DROP TRIGGER fencing_guard ON orders; CREATE TRIGGER fencing_guard BEFORE INSERT OR UPDATE"
                        + " OR DELETE ON orders FOR EACH ROW WHEN (false) EXECUTE FUNCTION fencing_guard_row('last_fence');"
                        + " ALTER TABLE orders ENABLE ALWAYS TRIGGER fencing_guard", "orders: trigger fencing_guard is outdated"),
                new Form("DROP the event trigger function", "DROP FUNCTION fencing_guard_ddl() CASCADE", "event trigger fencing_guard_ddl_end is missing"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("forms")
    void eachFormIsRefusedWithoutTheMarkRunsWithItAndVerifyNamesWhatItChanged(Form form) throws Exception {
        SQLException refused = catchThrowableOfType(SQLException.class, () -> sql(form.ddl()));
        assertThat((Object) refused).as(form.name()).isNotNull();
        assertThat(refused.getSQLState()).as(form.name() + ": " + refused.getMessage()).isEqualTo("ZF004");
        assertThat(refused.getMessage()).contains("fencing guard: DDL refused");
        assertThat(((PSQLException) refused).getServerErrorMessage().getHint())
                .contains("set_config('fencing.migration', '<reason>', true)").contains("DatabaseGuard.migrate");
        DatabaseGuard.verify(raw, config());
        assertThat(order(1)).isEqualTo("pending@5");

        marked(form.ddl());
        if (form.verifySays() == null) {
            return;
        }
        FencingException named = catchThrowableOfType(FencingException.class, () -> DatabaseGuard.verify(raw, config()));
        assertThat((Object) named).as(form.name() + ": verify after it").isNotNull();
        assertThat(named.getMessage()).contains(form.verifySays());
    }

    @Test
    void aFunctionSettingNoLongerLetsRawWritesLandUnnoticed() throws Exception {
        // issue 27: ALTER FUNCTION .. SET fencing.fence made raw writes land while verify said current
        marked("ALTER FUNCTION fencing_guard_row() SET fencing.fence = '999999'");
        sql("UPDATE orders SET status = 'raw' WHERE id = 1");
        assertThat(order(1)).isEqualTo("raw@999999");
        FencingException named = catchThrowableOfType(FencingException.class, () -> DatabaseGuard.verify(raw, config()));
        assertThat((Object) named).isNotNull();
        assertThat(named.getMessage()).contains("settings of its own").contains("fencing.fence=999999");
        try (FencingDataSource fenced = new FencingDataSource(raw, config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
             Fence.Scope scope = Fence.enter(1_000_000)) {
            FencingException closed = catchThrowableOfType(FencingException.class,
                    () -> statement.executeUpdate("UPDATE orders SET status = 'fenced' WHERE id = 1"));
            assertThat((Object) closed).as("required fails closed").isNotNull();
            assertThat(closed.getMessage()).contains("settings of its own");
        }
        DatabaseGuard.install(raw, config());
        DatabaseGuard.verify(raw, config());
        assertThat(catchThrowableOfType(SQLException.class, () -> sql("UPDATE orders SET status = 'raw2' WHERE id = 1"))
                .getSQLState()).isEqualTo("ZF002");
    }

    @Test
    void aRewriteOfTheFenceColumnWouldLetAStaleHolderThroughSoItIsRefused() throws Exception {
        SQLException refused = catchThrowableOfType(SQLException.class,
                () -> sql("ALTER TABLE orders ALTER COLUMN last_fence TYPE BIGINT USING 0"));
        assertThat(refused.getSQLState()).isEqualTo("ZF004");
        SQLException stale = catchThrowableOfType(SQLException.class,
                () -> sql("SELECT set_config('fencing.fence', '3', false)", "UPDATE orders SET status = 'stale' WHERE id = 1"));
        assertThat(stale.getSQLState()).isEqualTo("ZF001");
        assertThat(order(1)).isEqualTo("pending@5");
    }

    @Test
    void triggerErrorsNameTheMigrationPath() throws Exception {
        SQLException missing = catchThrowableOfType(SQLException.class, () -> sql("UPDATE orders SET status = 'x' WHERE id = 1"));
        assertThat(missing.getSQLState()).isEqualTo("ZF002");
        assertThat(((PSQLException) missing).getServerErrorMessage().getHint())
                .isEqualTo("a migration marks its transaction: SELECT set_config('fencing.migration', '<reason>', true),"
                        + " or uses DatabaseGuard.migrate");
        SQLException stale = catchThrowableOfType(SQLException.class,
                () -> sql("SELECT set_config('fencing.fence', '3', false)", "UPDATE orders SET status = 'x' WHERE id = 1"));
        assertThat(((PSQLException) stale).getServerErrorMessage().getHint()).contains("DatabaseGuard.migrate");
        SQLException truncate = catchThrowableOfType(SQLException.class, () -> sql("TRUNCATE orders"));
        assertThat(((PSQLException) truncate).getServerErrorMessage().getHint()).contains("fencing.migration");
        // the driver still reads them back
        try (FencingDataSource fenced = new FencingDataSource(raw, config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
            try (Fence.Scope scope = Fence.enter(3)) {
                assertThat(catchThrowableOfType(dev.fencing.StaleFenceException.class,
                        () -> statement.execute("DO $$ BEGIN UPDATE orders SET status = 'x' WHERE id = 1; END $$")).currentFence())
                        .hasValue(5);
            }
            assertThat(catchThrowableOfType(dev.fencing.MissingFenceException.class,
                    () -> statement.execute("DO $$ BEGIN UPDATE orders SET status = 'x' WHERE id = 1; END $$")).table())
                    .isEqualTo("guarded.orders");
        }
    }

    @Test
    void ordinaryDdlAndInstallAndRemoveStillRun() throws Exception {
        sql("ALTER TABLE orders ADD COLUMN note TEXT", "CREATE INDEX orders_status ON orders (status)",
                "ALTER TABLE orders ALTER COLUMN status SET DEFAULT 'new'", "COMMENT ON TABLE orders IS 'fenced'",
                "CREATE TABLE unrelated (id INT)", "ALTER TABLE unrelated ALTER COLUMN id TYPE BIGINT", "DROP TABLE unrelated");
        DatabaseGuard.install(raw, config());
        DatabaseGuard.install(raw, config());
        DatabaseGuard.verify(raw, config());
        marked("DROP TABLE legacy CASCADE");
        DatabaseGuard.remove(raw, config());
        assertThat(eventTriggers()).as("other guarded tables? none: the event triggers go").isZero();
        DatabaseGuard.install(raw, config());
        assertThat(eventTriggers()).isEqualTo(3);
        sql("DROP TABLE ledger");
        assertThat(order(1)).isEqualTo("pending@5");
    }

    @Test
    void removeKeepsTheEventTriggersWhileAnotherGuardedTableIsLeft() throws Exception {
        DataSource other = own.schema("other_app");
        FencingConfig otherConfig = FencingConfig.builder().tables("other_app.invoices").databaseGuard(FencingConfig.Guard.REQUIRED).build();
        try (Connection connection = other.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS invoices");
            statement.execute("CREATE TABLE invoices (id BIGINT, last_fence BIGINT NOT NULL DEFAULT 0)");
        }
        DatabaseGuard.install(other, otherConfig);
        DatabaseGuard.remove(raw, config());
        assertThat(eventTriggers()).isEqualTo(3);
        DatabaseGuard.verify(other, otherConfig);
        SQLException refused = catchThrowableOfType(SQLException.class, () -> OwnPostgresDatabase.execute(own.url(),
                "ALTER TABLE other_app.invoices DISABLE TRIGGER fencing_guard"));
        assertThat(refused.getSQLState()).isEqualTo("ZF004");
        DatabaseGuard.remove(other, otherConfig);
        assertThat(eventTriggers()).isZero();
        OwnPostgresDatabase.execute(own.url(), "DROP SCHEMA other_app CASCADE");
    }

    @Test
    void anOlderGuardIsOutdatedAndInstallUpgradesItInPlace() throws Exception {
        String body;
        try (Connection connection = raw.getConnection(); PreparedStatement query = connection.prepareStatement(
                "SELECT prosrc FROM pg_proc WHERE proname = 'fencing_guard_row' AND pronamespace = 'guarded'::regnamespace");
             ResultSet rows = query.executeQuery()) {
            rows.next();
            body = rows.getString(1);
        }
        assertThat(body).contains("fencing-guard v2");
        marked("CREATE OR REPLACE FUNCTION fencing_guard_row() RETURNS trigger LANGUAGE plpgsql AS $fencing$"
                + body.replace("fencing-guard v2", "fencing-guard v1") + "$fencing$");
        assertThat(catchThrowableOfType(FencingException.class, () -> DatabaseGuard.verify(raw, config())).getMessage())
                .contains("fencing_guard_row() is outdated");
        DatabaseGuard.install(raw, config());
        DatabaseGuard.verify(raw, config());
    }

    @Test
    void withoutASuperuserInstallSaysSoAndVerifyReportsTheEventTriggersMissing() throws Exception {
        String role = "fencing_evt_role_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (OwnPostgresDatabase plain = OwnPostgresDatabase.create()) {
            OwnPostgresDatabase.execute(plain.url(), "CREATE ROLE " + role + " LOGIN",
                    "CREATE SCHEMA app AUTHORIZATION " + role);
            DataSource asRole = OwnPostgresDatabase.dataSource(plain.url().replaceFirst("user=[^&]*", "user=" + role)
                    + "&currentSchema=app");
            try (Connection connection = asRole.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY, status TEXT, last_fence BIGINT NOT NULL DEFAULT 0)");
                statement.execute("INSERT INTO orders VALUES (1, 'pending', 5)");
            }
            FencingConfig appConfig = FencingConfig.builder().tables("app.orders").databaseGuard(FencingConfig.Guard.REQUIRED).build();
            List<String> warnings = new ArrayList<>();
            Logger logger = Logger.getLogger("dev.fencing.internal.guard.Guards");
            Handler handler = new Handler() {
                @Override
                public void publish(LogRecord record) {
                    warnings.add(record.getLevel() + " " + new java.util.logging.SimpleFormatter().formatMessage(record));
                }

                @Override
                public void flush() {
                }

                @Override
                public void close() {
                }
            };
            logger.addHandler(handler);
            try {
                DatabaseGuard.install(asRole, appConfig);
            } finally {
                logger.removeHandler(handler);
            }
            assertThat(warnings).anySatisfy(w -> assertThat(w).startsWith("WARNING").contains("superuser").contains(role));
            assertThat(DatabaseGuard.ddl(asRole, appConfig)).anySatisfy(sql -> assertThat(sql).startsWith("CREATE EVENT TRIGGER"));
            FencingException missing = catchThrowableOfType(FencingException.class, () -> DatabaseGuard.verify(asRole, appConfig));
            assertThat(missing.getMessage()).contains("event trigger fencing_guard_ddl_start is missing")
                    .doesNotContain("app.orders: trigger");
            // the row triggers work, and required does not need the event triggers
            try (Connection connection = asRole.getConnection(); Statement statement = connection.createStatement()) {
                assertThat(catchThrowableOfType(SQLException.class,
                        () -> statement.executeUpdate("UPDATE orders SET status = 'raw' WHERE id = 1")).getSQLState()).isEqualTo("ZF002");
            }
            try (FencingDataSource fenced = new FencingDataSource(asRole, appConfig);
                 Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
                 Fence.Scope scope = Fence.enter(7)) {
                assertThat(statement.executeUpdate("UPDATE orders SET status = 'paid' WHERE id = 1")).isEqualTo(1);
            }
            // a table owner can tamper here without the event triggers: verify names it (PostgreSQL 15
            // lets only a superuser give a function a fencing.* setting)
            try (Connection connection = asRole.getConnection(); Statement statement = connection.createStatement()) {
                assertThat(catchThrowableOfType(SQLException.class, () -> statement.execute(
                        "ALTER FUNCTION fencing_guard_row() SET fencing.fence = '999999'")).getMessage()).contains("permission denied");
                statement.execute("ALTER FUNCTION fencing_guard_row() SET work_mem = '8MB'");
                statement.execute("ALTER TABLE orders DISABLE TRIGGER fencing_guard");
            }
            assertThat(catchThrowableOfType(FencingException.class, () -> DatabaseGuard.verify(asRole, appConfig)).getMessage())
                    .contains("settings of its own").contains("work_mem=8MB").contains("not enabled ALWAYS");
            assertThatCode(() -> DatabaseGuard.remove(asRole, appConfig)).doesNotThrowAnyException();
        } finally {
            OwnPostgresDatabase.execute(serverUrl(), "DROP ROLE IF EXISTS " + role);
        }
    }

    private static String serverUrl() {
        return dev.fencing.testing.TestDatabase.Kind.POSTGRESQL.url();
    }

    private static int eventTriggers() throws SQLException {
        try (Connection connection = raw.getConnection(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT count(*) FROM pg_event_trigger WHERE evtname LIKE 'fencing_guard%'")) {
            rows.next();
            return rows.getInt(1);
        }
    }

    /** Runs {@code ddl} in a transaction that carries the migration mark. */
    private static void marked(String ddl) throws SQLException {
        try (Connection connection = raw.getConnection()) {
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                statement.execute(MARK);
                statement.execute(ddl);
            }
            connection.commit();
        }
    }

    private static void sql(String... statements) throws SQLException {
        try (Connection connection = raw.getConnection(); Statement statement = connection.createStatement()) {
            for (String text : statements) {
                statement.execute(text);
            }
        }
    }

    private static String order(long id) throws SQLException {
        try (Connection connection = raw.getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT status, last_fence FROM orders WHERE id = ?")) {
            select.setLong(1, id);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? rows.getString(1) + "@" + rows.getLong(2) : null;
            }
        }
    }
}
