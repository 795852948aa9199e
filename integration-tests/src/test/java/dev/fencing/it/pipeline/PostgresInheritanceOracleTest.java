package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.FencingConfig;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * PostgreSQL is the oracle for which tables share rows with a fenced one (issue 29, finding 4):
 * random trees of inheritance children and (sub-)partitions, one node of each fenced as
 * {@code orders}, and every write of every other node (update, delete, insert, truncate) run
 * raw in a transaction rolled back, to see whether {@code SELECT .. FROM orders} changed, and
 * through the driver, which must refuse each one that did. Over-refusals (an insert into an
 * inheritance parent stays in the parent) are counted, not failed. {@code -Plong} runs 20 times
 * as many trees.
 */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
class PostgresInheritanceOracleTest {

    private final DataSource database;
    private final List<String> ddl = new ArrayList<>();

    PostgresInheritanceOracleTest(DataSource database) {
        this.database = database;
    }

    /** A table of the tree: a plain table (maybe an inheritance child) or a range-partitioned one over [low, high). */
    private record Node(String name, boolean partitioned, long low, long high) {
    }

    @AfterEach
    void dropTree() throws SQLException {
        try (Connection connection = database.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS n0, orders CASCADE");
        }
    }

    @Test
    void everyWriteThatChangesTheFencedTablesRowsIsRefused() throws SQLException {
        int trees = Boolean.getBoolean("fencing.long") ? 400 : 20;
        long seed = Long.getLong("fencing.oracle.seed", 29L);
        int changing = 0;
        int overRefused = 0;
        int checked = 0;
        for (int tree = 0; tree < trees; tree++) {
            Random random = new Random(seed * 7_919L + tree);
            List<Node> nodes = build(random);
            FencingDataSource fenced = new FencingDataSource(database, FencingConfig.builder().tables("orders").build());
            for (Node node : nodes) {
                if (node.name.equals("orders")) {
                    continue;
                }
                for (String write : writes(node)) {
                    boolean changes = RolledBackWrites.changes(database, write, PostgresInheritanceOracleTest::fencedRows);
                    boolean refused = RolledBackWrites.refusedByTheDriver(fenced, write);
                    assertThat(!changes || refused)
                            .as("tree %d (seed %d): %s changes orders' rows and the driver let it run; tree: %s",
                                    tree, seed, write, String.join("; ", ddl))
                            .isTrue();
                    changing += changes ? 1 : 0;
                    overRefused += refused && !changes ? 1 : 0;
                    checked++;
                }
            }
        }
        System.out.printf("inheritance oracle: %d trees, %d writes, %d changed the fenced rows (all refused), "
                + "%d over-refused%n", trees, checked, changing, overRefused);
        assertThat(changing).as("the generator must produce relatives that share rows").isPositive();
    }

    /** Up to three levels below the root; one node, never the only one, is renamed orders. */
    private List<Node> build(Random random) throws SQLException {
        dropTree();
        ddl.clear();
        List<Node> nodes = new ArrayList<>();
        List<Node> parents = new ArrayList<>();
        Node root = new Node("n0", random.nextBoolean(), 0, 1000);
        ddl.add("CREATE TABLE n0 (id BIGINT, v BIGINT, last_fence BIGINT NOT NULL DEFAULT 0)"
                + (root.partitioned ? " PARTITION BY RANGE (id)" : ""));
        nodes.add(root);
        parents.add(root);
        for (int level = 0; level < 3; level++) {
            List<Node> next = new ArrayList<>();
            for (Node parent : parents) {
                int children = 1 + random.nextInt(2);
                for (int child = 0; child < children; child++) {
                    String name = "n" + nodes.size();
                    long width = (parent.high - parent.low) / children;
                    long low = parent.low + child * width;
                    long high = child == children - 1 ? parent.high : low + width;
                    boolean partitioned = parent.partitioned && level < 2 && random.nextInt(3) == 0;
                    Node node = new Node(name, partitioned, low, high);
                    ddl.add(parent.partitioned
                            ? "CREATE TABLE " + name + " PARTITION OF " + parent.name + " FOR VALUES FROM (" + low + ") TO ("
                                    + high + ")" + (partitioned ? " PARTITION BY RANGE (id)" : "")
                            : "CREATE TABLE " + name + " () INHERITS (" + parent.name + ")");
                    nodes.add(node);
                    if (random.nextBoolean()) {
                        next.add(node);
                    }
                }
            }
            parents = next;
        }
        int fenced = random.nextInt(nodes.size());
        Node chosen = nodes.get(fenced);
        nodes.set(fenced, new Node("orders", chosen.partitioned, chosen.low, chosen.high));
        ddl.add("ALTER TABLE " + chosen.name + " RENAME TO orders");
        try (Connection connection = database.getConnection(); Statement statement = connection.createStatement()) {
            for (String text : ddl) {
                statement.execute(text);
            }
            for (Node node : nodes) {
                if (!node.partitioned) { // rows live in leaves and in inheritance parents
                    statement.execute("INSERT INTO " + node.name + " (id, v) VALUES (" + (node.low + 1) + ", 0), ("
                            + (node.low + 2) + ", 0)");
                }
            }
        }
        return nodes;
    }

    private static List<String> writes(Node node) {
        return List.of("UPDATE " + node.name + " SET v = v + 1",
                "DELETE FROM " + node.name + " WHERE id = " + (node.low + 1),
                "INSERT INTO " + node.name + " (id, v) VALUES (" + (node.high - 1) + ", 0)",
                "TRUNCATE " + node.name);
    }

    private static String fencedRows(Statement statement) throws SQLException {
        StringBuilder rows = new StringBuilder();
        try (ResultSet result = statement.executeQuery("SELECT id, v, last_fence FROM orders ORDER BY id, v")) {
            while (result.next()) {
                rows.append(result.getLong(1)).append(',').append(result.getLong(2)).append(',')
                        .append(result.getLong(3)).append(';');
            }
        }
        return rows.toString();
    }
}
