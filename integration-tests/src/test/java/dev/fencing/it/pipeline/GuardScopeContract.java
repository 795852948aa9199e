package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.UnfenceableStatementException;
import dev.fencing.jdbc.DatabaseGuard;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.testing.ScratchArea;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The guard stays inside the schemas (MariaDB: databases) the application uses (issue 27, finding
 * 5): two scratch areas on one server, the application's connections in {@code home}, a table of
 * the same, unqualified fenced name in {@code other}. The table name is random, so that no other
 * test's tables on the shared server can match it. Every row is read back through a raw connection.
 */
abstract class GuardScopeContract {

    ScratchArea home;
    ScratchArea other;
    final String table = "gs_" + HexFormat.of().formatHex(new SecureRandom().generateSeed(5));

    abstract TestDatabase.Kind kind();

    /** A form the front door admits only because the guard checks it, writing status 'formed' into row 1 of {@code qualifiedTable}. */
    abstract String guardCheckedForm(String qualifiedTable);

    /** How many triggers the tables of {@code schema} carry. */
    abstract int triggersIn(String schema) throws SQLException;

    @BeforeEach
    void areas() {
        home = ScratchArea.create(kind());
        other = ScratchArea.create(kind());
    }

    @AfterEach
    void dropAreas() {
        // home first: its tables may reference the other area's (MariaDB refuses to drop a referenced parent)
        try {
            if (home != null) {
                home.close();
            }
        } finally {
            if (other != null) {
                other.close();
            }
        }
    }

    FencingConfig config(String... extraSchemas) {
        FencingConfig.Builder builder = FencingConfig.builder().tables(table).databaseGuard(FencingConfig.Guard.REQUIRED);
        if (extraSchemas.length > 0) {
            // by its text form, as a properties file gives it
            builder.set("fencing.database-guard.schemas", String.join(",", extraSchemas));
        }
        return builder.build();
    }

    void createTable(ScratchArea area) throws SQLException {
        sql(area.dataSource(), "CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, status VARCHAR(20),"
                + " last_fence BIGINT NOT NULL DEFAULT 0)",
                "INSERT INTO " + table + " (id, status, last_fence) VALUES (1, 'pending', 5)");
    }

    static void sql(DataSource raw, String... statements) throws SQLException {
        try (Connection connection = raw.getConnection(); Statement statement = connection.createStatement()) {
            for (String text : statements) {
                statement.execute(text);
            }
        }
    }

    /** Status and fence of row 1 of the table in {@code area}, read raw. */
    String row(ScratchArea area) throws SQLException {
        try (Connection connection = area.dataSource().getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT status, last_fence FROM " + table + " WHERE id = 1");
             ResultSet rows = select.executeQuery()) {
            return rows.next() ? rows.getString(1) + "@" + rows.getLong(2) : null;
        }
    }

    /** Runs {@code text} on a fenced connection into {@code home} under {@code fence}. */
    void fenced(FencingConfig config, long fence, String text) throws Exception {
        try (FencingDataSource fenced = new FencingDataSource(home.dataSource(), config);
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
             Fence.Scope scope = Fence.enter(fence)) {
            statement.execute(text);
        }
    }

    @Test
    void installForOneSchemaLeavesTheSameNamedTableOfAnotherAlone() throws Exception {
        createTable(home);
        createTable(other);
        DatabaseGuard.install(home.dataSource(), config());

        assertThat(triggersIn(other.name())).isZero();
        sql(other.dataSource(), "UPDATE " + table + " SET status = 'theirs' WHERE id = 1");
        assertThat(row(other)).isEqualTo("theirs@5");
        // the application's own table is guarded
        SQLException refused = catchThrowableOfType(SQLException.class,
                () -> sql(home.dataSource(), "UPDATE " + table + " SET status = 'raw' WHERE id = 1"));
        assertThat(refused.getSQLState()).isEqualTo("ZF002");
        assertThat(row(home)).isEqualTo("pending@5");

        DatabaseGuard.remove(home.dataSource(), config());
        assertThat(triggersIn(home.name())).isZero();
    }

    @Test
    void requiredIsNotRefusedBecauseAnotherSchemasTableHasNoGuard() throws Exception {
        createTable(home);
        DatabaseGuard.install(home.dataSource(), config());
        createTable(other); // after the install: it carries no guard
        dev.fencing.internal.guard.GuardStates.forget();

        fenced(config(), 7, "UPDATE " + table + " SET status = 'mine' WHERE id = 1");
        assertThat(row(home)).isEqualTo("mine@7");
        assertThat(row(other)).isEqualTo("pending@5");
    }

    @Test
    void verifyWarnsAboutTheSameNamedTableOutsideItsSchemasButPasses() throws Exception {
        createTable(home);
        createTable(other);
        DatabaseGuard.install(home.dataSource(), config());
        List<String> warnings = captureWarnings(() -> DatabaseGuard.verify(home.dataSource(), config()));
        assertThat(warnings).anySatisfy(warning -> assertThat(warning)
                .contains(other.name() + "." + table).contains("not covered"));
        assertThat(warnings).noneSatisfy(warning -> assertThat(warning).contains(home.name() + "." + table));
    }

    @Test
    void theExtraSchemasKeyCarriesTheGuardIntoAnotherSchema() throws Exception {
        createTable(home);
        createTable(other);
        FencingConfig both = config(other.name());
        DatabaseGuard.install(home.dataSource(), both);

        SQLException refused = catchThrowableOfType(SQLException.class,
                () -> sql(other.dataSource(), "UPDATE " + table + " SET status = 'raw' WHERE id = 1"));
        assertThat(refused.getSQLState()).isEqualTo("ZF002");
        assertThat(row(other)).isEqualTo("pending@5");
        List<String> warnings = captureWarnings(() -> DatabaseGuard.verify(home.dataSource(), both));
        assertThat(warnings).noneSatisfy(warning -> assertThat(warning).contains(table));
        // a guard-checked form naming the other schema's table is admitted there, and checked
        fenced(both, 8, guardCheckedForm(other.name() + "." + table));
        assertThat(row(other)).isEqualTo("formed@8");
        assertThatThrownBy(() -> fenced(both, 3, guardCheckedForm(other.name() + "." + table)))
                .isInstanceOf(dev.fencing.StaleFenceException.class);
        assertThat(row(other)).isEqualTo("formed@8");
        DatabaseGuard.remove(home.dataSource(), both);
        assertThat(triggersIn(other.name())).isZero();
    }

    @Test
    void aGuardCheckedFormNamingAnUncoveredTableIsRefusedAndNothingIsSent() throws Exception {
        createTable(home);
        createTable(other);
        DatabaseGuard.install(home.dataSource(), config());

        String outside = guardCheckedForm(other.name() + "." + table);
        assertThatThrownBy(() -> fenced(config(), 9, outside), outside).isInstanceOf(UnfenceableStatementException.class)
                .hasMessageContaining(other.name());
        assertThat(row(other)).isEqualTo("pending@5");
        // the same form naming the application's own table, qualified, is admitted and checked
        fenced(config(), 9, guardCheckedForm(home.name() + "." + table));
        assertThat(row(home)).isEqualTo("formed@9");
    }

    /** The WARNING records {@code dev.fencing} logs while {@code work} runs. */
    static List<String> captureWarnings(ThrowingRunnable work) throws Exception {
        List<String> warnings = new ArrayList<>();
        Logger logger = Logger.getLogger("dev.fencing");
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                    warnings.add(java.text.MessageFormat.format(record.getMessage(),
                            record.getParameters() == null ? new Object[0] : record.getParameters()));
                }
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
            assertThatCode(work::run).doesNotThrowAnyException();
        } finally {
            logger.removeHandler(handler);
        }
        return warnings;
    }

    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }
}
