package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.jdbc.DatabaseGuard;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Outside review (attack branch), MariaDB with the guard required. Each test asserts the SAFE
 * outcome: a failing test is a finding (its name says BYPASS).
 */
@TestDatabase(TestDatabase.Kind.MARIADB)
class AttackMariaDbGuardTest {

    private final DataSource raw;

    AttackMariaDbGuardTest(DataSource raw) {
        this.raw = raw;
    }

    FencingConfig config() {
        String schema = ScratchAreas.name(raw);
        return FencingConfig.builder().tables(schema + ".tree", schema + ".orders", schema + ".items")
                .databaseGuard(FencingConfig.Guard.REQUIRED).build();
    }

    @BeforeEach
    void tables() throws SQLException {
        DatabaseGuard.remove(raw, config());
        sql("DROP TABLE IF EXISTS tree", "DROP TABLE IF EXISTS items", "DROP TABLE IF EXISTS orders",
                "CREATE TABLE tree (id BIGINT PRIMARY KEY, parent_id BIGINT NULL, v VARCHAR(20),"
                        + " last_fence BIGINT NOT NULL DEFAULT 0,"
                        + " FOREIGN KEY (parent_id) REFERENCES tree (id) ON DELETE CASCADE) ENGINE=InnoDB",
                "CREATE TABLE orders (id BIGINT PRIMARY KEY, v VARCHAR(20), last_fence BIGINT NOT NULL DEFAULT 0) ENGINE=InnoDB",
                "CREATE TABLE items (id BIGINT PRIMARY KEY, order_id BIGINT, v VARCHAR(20),"
                        + " last_fence BIGINT NOT NULL DEFAULT 0,"
                        + " FOREIGN KEY (order_id) REFERENCES orders (id) ON DELETE CASCADE) ENGINE=InnoDB",
                "INSERT INTO tree VALUES (1, NULL, 'root', 1), (2, 1, 'child', 10)",
                "INSERT INTO orders VALUES (1, 'order', 1)",
                "INSERT INTO items VALUES (1, 1, 'item', 10)");
        DatabaseGuard.install(raw, config());
    }

    void sql(String... statements) throws SQLException {
        try (Connection connection = raw.getConnection(); Statement statement = connection.createStatement()) {
            for (String text : statements) {
                statement.execute(text);
            }
        }
    }

    String row(String table, long id) throws SQLException {
        try (Connection connection = raw.getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT v, last_fence FROM " + table + " WHERE id = ?")) {
            select.setLong(1, id);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? rows.getString(1) + "@" + rows.getLong(2) : null;
            }
        }
    }

    Throwable fenced(long fence, String text) {
        try (FencingDataSource fenced = new FencingDataSource(raw, config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
             Fence.Scope scope = Fence.enter(fence)) {
            statement.executeUpdate(text);
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    /** BYPASS candidate: a self-referencing ON DELETE CASCADE: root (fence 1) deleted under stale 5, child holds 10. */
    @Test
    void formerBypass_selfReferencingCascadeDeletesANewerChild() throws Exception {
        Throwable failure = fenced(5, "DELETE FROM tree WHERE id = 1");
        assertThat(row("tree", 2)).as("child holding fence 10, deleted under stale fence 5").isEqualTo("child@10");
    }

    /** BYPASS candidate: a fenced parent cascading into a fenced child: order (fence 1) deleted under 5, item holds 10. */
    @Test
    void formerBypass_fencedParentCascadesIntoANewerFencedChild() throws Exception {
        Throwable failure = fenced(5, "DELETE FROM orders WHERE id = 1");
        assertThat(row("items", 1)).isEqualTo("item@10");
    }

    /** Raw writers with IGNORE: does IGNORE turn the trigger's SIGNAL into a warning? */
    @Test
    void formerBypass_rawIgnoreWritesWithoutAFence() throws Exception {
        for (String text : new String[] {"UPDATE IGNORE orders SET v = 'ignored' WHERE id = 1",
                "DELETE IGNORE FROM items WHERE id = 1", "INSERT IGNORE INTO orders VALUES (9, 'ignored', 99)"}) {
            Throwable failure = null;
            try {
                sql(text);
            } catch (SQLException e) {
                failure = e;
            }
        }
        assertThat(row("orders", 1)).isEqualTo("order@1");
        assertThat(row("items", 1)).isEqualTo("item@10");
        assertThat(row("orders", 9)).isNull();
    }
}
