package dev.fencing.proof;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.StaleFenceException;
import dev.fencing.UnfenceableStatementException;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * DRIVER BUGS found by the proof suite on MariaDB.
 *
 * 1. BYPASS: a multi-table UPDATE or DELETE whose FIRST table is not fenced is planned READ and
 *    sent unchanged, so it writes the fenced table with no fence, or with a stale one (and can
 *    even set last_fence). The same statement with the fenced table first is refused.
 * 2. WRONG ERROR: "DELETE FROM orders USING customers, orders WHERE .." is fenced, but its
 *    zero-row diagnosis query lists orders twice ("FROM orders, customers, orders"), so a stale
 *    fence gets SQLSyntaxErrorException 42000 "Not unique table/alias" instead of
 *    StaleFenceException (nothing is applied: fail-safe, but the wrong signal).
 */
@TestDatabase(TestDatabase.Kind.MARIADB)
class MariaDbMultiTableBypassTest {

    private final DataSource raw;
    private final DataSource fenced;

    MariaDbMultiTableBypassTest(DataSource raw) {
        this.raw = raw;
        this.fenced = new FencingDataSource(raw, FencingConfig.builder().tables("orders", "payments").build());
    }

    @BeforeEach
    void rows() throws SQLException {
        Db.execute(raw, "CREATE TABLE IF NOT EXISTS orders (id BIGINT PRIMARY KEY, status VARCHAR(20), amount BIGINT, cid BIGINT, "
                        + "last_fence BIGINT NOT NULL DEFAULT 0)",
                "CREATE TABLE IF NOT EXISTS payments (id BIGINT PRIMARY KEY, amount BIGINT, last_fence BIGINT NOT NULL DEFAULT 0)",
                "CREATE TABLE IF NOT EXISTS customers (id BIGINT PRIMARY KEY, name VARCHAR(20))",
                "DELETE FROM orders", "DELETE FROM payments", "DELETE FROM customers",
                "INSERT INTO orders VALUES (1, 'pending', 100, 1, 10), (2, 'pending', 200, 1, 10), (3, 'pending', 300, 2, 10)",
                "INSERT INTO payments VALUES (1, 50, 10), (2, 60, 10)",
                "INSERT INTO customers VALUES (1, 'ann'), (2, 'bob')");
    }

    private List<Map<String, Object>> fencedRows() throws SQLException {
        List<Map<String, Object>> rows = new java.util.ArrayList<>(Db.rows(raw, "SELECT * FROM orders ORDER BY id"));
        rows.addAll(Db.rows(raw, "SELECT * FROM payments ORDER BY id"));
        return rows;
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "UPDATE customers c JOIN orders o ON c.id = o.cid SET o.status = 'j'",
            "UPDATE customers, orders SET orders.status = 'x' WHERE customers.id = orders.cid",
            "UPDATE customers c LEFT JOIN orders o ON c.id = o.cid SET o.status = 'x'",
            "UPDATE customers c CROSS JOIN orders o SET o.status = 'x'",
            "UPDATE customers NATURAL JOIN orders SET orders.status = 'x'",
            "UPDATE customers c JOIN orders o ON c.id = o.cid SET o.last_fence = 0",
            "UPDATE customers c, payments p SET p.amount = 0",
            "DELETE customers, orders FROM customers JOIN orders ON customers.id = orders.cid",
            "DELETE customers, o FROM customers JOIN orders o ON customers.id = o.cid",
            "DELETE FROM customers, orders USING customers, orders WHERE customers.id = orders.cid"})
    @SuppressWarnings("try")
    void aMultiTableWriteOfAFencedTableIsRefusedWhereverTheTableStands(String sql) throws SQLException {
        for (Long fence : new Long[] {null, 5L, 20L}) {
            rows();
            List<Map<String, Object>> before = fencedRows();
            try (Fence.Scope scope = fence == null ? null : Fence.enter(fence);
                 Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
                assertThrows(UnfenceableStatementException.class, () -> statement.executeUpdate(sql),
                        "fence " + fence + ": " + sql);
            } finally {
                assertEquals(before, fencedRows(), "fence " + fence + " changed fenced rows: " + sql);
            }
        }
    }

    @Test
    @SuppressWarnings("try")
    void aStaleDeleteUsingIsDiagnosedAsStale() throws SQLException {
        String sql = "DELETE FROM orders USING customers, orders WHERE customers.id = orders.cid AND customers.name = 'bob'";
        List<Map<String, Object>> before = fencedRows();
        try (Fence.Scope scope = Fence.enter(5);
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
            assertThrows(StaleFenceException.class, () -> statement.executeUpdate(sql));
        }
        assertEquals(before, fencedRows());
    }
}
