package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.jdbc.DatabaseGuard;
import dev.fencing.jdbc.FencingDataSource;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.StaleFenceException;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The database guard on MariaDB, in a database of its own. MariaDB fires no trigger for foreign-key
 * actions: the cascade tests of the contract pass only through the parent-table triggers.
 */
@TestDatabase(TestDatabase.Kind.MARIADB)
class MariaDbDatabaseGuardTest extends DatabaseGuardContract {

    private final DataSource database;

    MariaDbDatabaseGuardTest(DataSource database) {
        this.database = database;
    }

    @Override
    DataSource raw() {
        return database;
    }

    @Override
    String schema() {
        return ScratchAreas.name(database);
    }

    @Override
    List<String> payFunction() {
        return List.of("DROP FUNCTION IF EXISTS pay", "DROP PROCEDURE IF EXISTS pay_proc",
                "CREATE FUNCTION pay(order_id BIGINT) RETURNS INT MODIFIES SQL DATA"
                        + " BEGIN UPDATE orders SET status = 'paid' WHERE id = order_id; RETURN 1; END",
                "CREATE PROCEDURE pay_proc(IN order_id BIGINT) BEGIN UPDATE orders SET status = 'paid' WHERE id = order_id; END");
    }

    @Override
    String setSessionLock(String lock) {
        return "SET @fencing_lock = '" + lock + "'";
    }

    @Override
    String setSessionMark(String reason) {
        return "SET @fencing_migration = '" + reason + "'";
    }

    @Override
    String setSessionFence(long fence) {
        return "SET @fencing_fence = " + fence;
    }

    @Test
    void aProcedureIsFencedByTheCallersFence() throws Exception {
        try (FencingDataSource fenced = new FencingDataSource(raw(), config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
            try (Fence.Scope stale = Fence.enter(2)) {
                assertThatThrownBy(() -> statement.execute("CALL pay_proc(1)")).isInstanceOf(StaleFenceException.class);
            }
            try (Fence.Scope current = Fence.enter(12)) {
                statement.execute("CALL pay_proc(1)");
            }
        }
        assertThat(order(1)).isEqualTo("paid@12");
    }

    @Test
    void aMultiTableUpdateReachingTheFencedTableMeetsTheTrigger() throws Exception {
        SQLException refused = catchThrowableOfType(SQLException.class, () -> sql(
                "UPDATE customers c JOIN orders o ON o.customer_id = c.id SET o.status = 'paid' WHERE c.id = 10"));
        assertThat(refused.getSQLState()).isEqualTo("ZF002");
        assertThat(order(1)).isEqualTo("pending@5");
    }

    @Test
    void aParentKeyUpdateThatWouldCascadeIsCheckedToo() throws Exception {
        sql("CREATE TABLE shops (code VARCHAR(10) PRIMARY KEY)", "INSERT INTO shops VALUES ('a')",
                "ALTER TABLE orders ADD COLUMN shop VARCHAR(10) DEFAULT NULL");
        DatabaseGuard.migrate(raw(), "test setup", connection -> {
            try (Statement statement = connection.createStatement()) {
                statement.execute("UPDATE orders SET shop = 'a' WHERE id = 1");
                statement.execute("ALTER TABLE orders ADD FOREIGN KEY (shop) REFERENCES shops (code) ON UPDATE CASCADE");
            }
        });
        try {
            DatabaseGuard.install(raw(), config());
            SQLException refused = catchThrowableOfType(SQLException.class, () -> sql("UPDATE shops SET code = 'b'"));
            assertThat(refused.getSQLState()).isEqualTo("ZF002");
        } finally {
            DatabaseGuard.remove(raw(), config());
            sql("ALTER TABLE orders DROP FOREIGN KEY " + foreignKeyTo("shops"), "DROP TABLE shops");
        }
    }

    private String foreignKeyTo(String parent) throws SQLException {
        try (Connection connection = raw().getConnection(); Statement statement = connection.createStatement();
             var rows = statement.executeQuery("SELECT CONSTRAINT_NAME FROM information_schema.REFERENTIAL_CONSTRAINTS"
                     + " WHERE CONSTRAINT_SCHEMA = DATABASE() AND REFERENCED_TABLE_NAME = '" + parent + "'")) {
            rows.next();
            return rows.getString(1);
        }
    }

    /** Runs {@code sql} through the driver under {@code fence}. */
    private void fenced(long fence, String sql) throws Exception {
        try (FencingDataSource fenced = new FencingDataSource(raw(), config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
             Fence.Scope scope = Fence.enter(fence)) {
            statement.execute(sql);
        }
    }

    @Test
    void formsTheFrontDoorRefusesRunUnderTheGuardAndMeetTheTrigger() throws Exception {
        String multiTable = "UPDATE customers c JOIN orders o ON o.customer_id = c.id SET o.status = 'multi' WHERE c.id = 10";
        String duplicateKey = "INSERT INTO orders (id, status, customer_id) VALUES (2, 'dup', 20)"
                + " ON DUPLICATE KEY UPDATE status = VALUES(status)";
        String replace = "REPLACE INTO orders (id, status, customer_id) VALUES (2, 'replaced', 20)";
        for (String text : List.of(multiTable, duplicateKey, replace)) {
            assertThatThrownBy(() -> fenced(4, text), text).isInstanceOf(StaleFenceException.class);
        }
        assertThat(order(1)).isEqualTo("pending@5");
        assertThat(order(2)).isEqualTo("pending@5");
        fenced(9, multiTable);
        fenced(9, duplicateKey);
        assertThat(order(1)).isEqualTo("multi@9");
        assertThat(order(2)).isEqualTo("dup@9");
        fenced(10, replace);
        assertThat(order(2)).isEqualTo("replaced@10");
    }

    @Test
    void textsThatTouchTheGuardAreRefused() throws Exception {
        for (String text : List.of("SET @fencing_fence = 99", "DROP TRIGGER fencing_guard_bu_orders")) {
            assertThatThrownBy(() -> fenced(1, text), text).isInstanceOf(dev.fencing.UnfenceableStatementException.class);
        }
        DatabaseGuard.verify(raw(), config());
    }
    // ---- what verify compares on MariaDB (no DDL triggers: nothing is refused, some is detected) ----

    @Test
    void verifyNamesAFenceColumnOfAnotherType() throws Exception {
        sql("ALTER TABLE orders MODIFY last_fence INT NOT NULL DEFAULT 0");
        assertThat(catchThrowableOfType(dev.fencing.FencingException.class, () -> DatabaseGuard.verify(raw(), config()))
                .getMessage()).contains("fence column last_fence is int, not bigint");
    }

    @Test
    void aFenceColumnDroppedAndAddedAgainIsNamedWhenItsPlaceOrDefinitionChanged() throws Exception {
        // the values are gone: a stale holder (3) now passes the row that held 5
        sql("ALTER TABLE orders DROP COLUMN last_fence, ADD COLUMN last_fence BIGINT NOT NULL DEFAULT 0 AFTER id");
        sql(setSessionFence(3), "UPDATE orders SET status = 'stale' WHERE id = 1");
        assertThat(order(1)).isEqualTo("stale@3");
        assertThat(catchThrowableOfType(dev.fencing.FencingException.class, () -> DatabaseGuard.verify(raw(), config()))
                .getMessage()).contains("records another fence column than the table has")
                .contains("position 4").contains("position 2");
        DatabaseGuard.install(raw(), config());
        DatabaseGuard.verify(raw(), config());
    }

    @Test
    void aFenceColumnAddedAgainExactlyAsItWasStaysUndetectable() throws Exception {
        // documented in guard.md: privileged, neither refused nor detected on MariaDB
        sql("ALTER TABLE orders DROP COLUMN last_fence, ADD COLUMN last_fence BIGINT NOT NULL DEFAULT 0");
        DatabaseGuard.verify(raw(), config());
        sql(setSessionFence(3), "UPDATE orders SET status = 'stale' WHERE id = 1");
        assertThat(order(1)).isEqualTo("stale@3");
    }

    @Test
    void aTriggerOfTheRightNameButAnotherTimingIsNamed() throws Exception {
        sql("DROP TRIGGER fencing_guard_bu_orders", "CREATE TRIGGER fencing_guard_bu_orders AFTER UPDATE ON orders"
                + " FOR EACH ROW BEGIN END");
        assertThat(catchThrowableOfType(dev.fencing.FencingException.class, () -> DatabaseGuard.verify(raw(), config()))
                .getMessage()).contains("fencing_guard_bu_orders runs AFTER UPDATE");
    }

    @Test
    void partitionDdlChangesRowsWithoutTriggersAndStaysUndetectable() throws Exception {
        FencingConfig partitioned = FencingConfig.builder().tables(schema() + ".ledger").databaseGuard(FencingConfig.Guard.REQUIRED).build();
        sql("DROP TABLE IF EXISTS ledger, ledger_swap",
                "CREATE TABLE ledger (id BIGINT PRIMARY KEY, last_fence BIGINT NOT NULL DEFAULT 0)"
                        + " PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN (100), PARTITION p1 VALUES LESS THAN (1000))",
                "CREATE TABLE ledger_swap (id BIGINT PRIMARY KEY, last_fence BIGINT NOT NULL DEFAULT 0)",
                "INSERT INTO ledger VALUES (1, 5), (500, 5)", "INSERT INTO ledger_swap VALUES (2, 0)");
        try {
            DatabaseGuard.install(raw(), partitioned);
            assertThat(catchThrowableOfType(SQLException.class, () -> sql("DELETE FROM ledger WHERE id = 1")).getSQLState())
                    .isEqualTo("ZF002");
            sql("ALTER TABLE ledger EXCHANGE PARTITION p0 WITH TABLE ledger_swap");
            DatabaseGuard.verify(raw(), partitioned);
            sql("ALTER TABLE ledger TRUNCATE PARTITION p1");
            DatabaseGuard.verify(raw(), partitioned);
            try (Connection connection = raw().getConnection(); Statement statement = connection.createStatement();
                 ResultSet rows = statement.executeQuery("SELECT GROUP_CONCAT(CONCAT(id, '@', last_fence) ORDER BY id) FROM ledger")) {
                rows.next();
                assertThat(rows.getString(1)).as("row 1 swapped out, row 2 swapped in, row 500 truncated").isEqualTo("2@0");
            }
        } finally {
            DatabaseGuard.remove(raw(), partitioned);
            sql("DROP TABLE IF EXISTS ledger, ledger_swap");
        }
    }

    @Test
    void triggerErrorsNameTheMigrationPathAndStillReadBack() throws Exception {
        SQLException missing = catchThrowableOfType(SQLException.class, () -> sql("UPDATE orders SET status = 'x' WHERE id = 1"));
        assertThat(missing.getSQLState()).isEqualTo("ZF002");
        assertThat(missing.getMessage()).contains("fencing guard: no fence in session for " + schema() + ".orders")
                .contains("(migration: DatabaseGuard.migrate or SET @fencing_migration)");
        SQLException stale = catchThrowableOfType(SQLException.class,
                () -> sql(setSessionFence(3), "UPDATE orders SET status = 'x' WHERE id = 1"));
        assertThat(stale.getSQLState()).isEqualTo("ZF001");
        assertThat(stale.getMessage()).contains("stale fence 3 on " + schema() + ".orders holding 5");
        dev.fencing.StaleFenceException read = (dev.fencing.StaleFenceException) dev.fencing.internal.guard.GuardErrors.translate(stale);
        assertThat(read.attemptedFence()).isEqualTo(3);
        assertThat(read.currentFence()).hasValue(5);
        assertThat(read.table()).isEqualTo(schema() + ".orders");
        assertThat(((dev.fencing.MissingFenceException) dev.fencing.internal.guard.GuardErrors.translate(missing)).table())
                .isEqualTo(schema() + ".orders");
    }
}
