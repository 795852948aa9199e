package dev.fencing.internal.jdbc;

import dev.fencing.jdbc.DatabaseGuard;
import dev.fencing.jdbc.FencingDataSource;

import dev.fencing.Fence;
import dev.fencing.StaleFenceException;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
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
}
