package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.FencingConfig;
import dev.fencing.jdbc.FencingDataSource;
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
 * The server is the oracle for what a write reaches (issue 29, finding 3): random foreign-key
 * graphs over two schemas (MariaDB: databases), each with an {@code orders} table fenced by the
 * unqualified name {@code orders}, and every write of every other table run twice: raw, in a
 * transaction rolled back, to see whether a fenced row changed; and through the driver, where
 * every write that changed a fenced row must be refused. Over-refusals (the facts are
 * conservative: an update that leaves a key alone still counts as one that may cascade) are
 * counted, not failed. {@code -Plong} runs 20 times as many graphs;
 * {@code -Dfencing.oracle.seed=N} picks other graphs.
 */
abstract class CatalogReachOracleContract {

    // the writing rules twice as often as the others, so that most graphs have a path into a fenced table
    private static final String[] DELETE_RULES = {"CASCADE", "CASCADE", "SET NULL", "SET NULL", "RESTRICT", "NO ACTION"};
    private static final String[] UPDATE_RULES = {"CASCADE", "CASCADE", "SET NULL", "SET NULL", "NO ACTION"};

    abstract DataSource raw();

    /** The scratch area's name (PostgreSQL schema, MariaDB database). */
    abstract String scratch();

    abstract void createNamespace(String name) throws SQLException;

    private String other() {
        return scratch() + "_orc";
    }

    @AfterEach
    void dropGraph() throws SQLException {
        try (Connection connection = raw().getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(dropsAnyOrder());
            for (int i = 9; i >= 0; i--) {
                statement.execute("DROP TABLE IF EXISTS " + scratch() + ".t" + i + cascadeWord());
            }
            statement.execute("DROP TABLE IF EXISTS " + scratch() + ".orders" + cascadeWord());
            statement.execute(dropNamespaceText(other()));
        }
    }

    /** What drops a namespace with everything in it. */
    abstract String dropNamespaceText(String name);

    /** PostgreSQL drops dependent foreign keys with CASCADE; MariaDB drops in any order with the checks off. */
    abstract String cascadeWord();

    /** The statement that lets tables be dropped in any order on this session. */
    abstract String dropsAnyOrder();

    private record Table(String namespace, String name) {
        String qualified() {
            return namespace + "." + name;
        }
    }

    @Test
    void everyWriteThatChangesAFencedRowThroughACascadeIsRefused() throws SQLException {
        int graphs = Boolean.getBoolean("fencing.long") ? 300 : 15;
        long seed = Long.getLong("fencing.oracle.seed", 29L);
        int changing = 0;
        int overRefused = 0;
        int checked = 0;
        for (int graph = 0; graph < graphs; graph++) {
            Random random = new Random(seed * 1_000_003L + graph);
            List<Table> tables = build(random);
            FencingDataSource fenced = new FencingDataSource(raw(), FencingConfig.builder().tables("orders").build());
            for (Table table : tables) {
                if (table.name.equals("orders")) {
                    continue; // fenced itself
                }
                for (String write : writes(table)) {
                    boolean changes = RolledBackWrites.changes(raw(), write, statement -> fencedRows(statement, tables));
                    boolean refused = RolledBackWrites.refusedByTheDriver(fenced, write);
                    assertThat(!changes || refused)
                            .as("graph %d (seed %d): %s changes a fenced row and the driver let it run; graph: %s",
                                    graph, seed, write, String.join("; ", ddl))
                            .isTrue();
                    changing += changes ? 1 : 0;
                    overRefused += refused && !changes ? 1 : 0;
                    checked++;
                }
            }
        }
        System.out.printf("catalog oracle: %d graphs, %d writes, %d changed a fenced row (all refused), %d over-refused%n",
                graphs, checked, changing, overRefused);
        assertThat(changing).as("the generator must produce cascades that reach fenced rows").isPositive();
    }

    private final List<String> ddl = new ArrayList<>();

    /** Up to eight tables over two namespaces, an {@code orders} in each, foreign keys only towards earlier tables. */
    private List<Table> build(Random random) throws SQLException {
        dropGraph();
        createNamespace(other());
        ddl.clear();
        List<Table> tables = new ArrayList<>();
        int count = 4 + random.nextInt(5);
        // the two orders tables late in the order, so that they have parents, and parents of parents
        int ordersAt = count - 1 - random.nextInt(2);
        int otherOrdersAt = ordersAt == count - 1 ? count - 2 - random.nextInt(2) : count - 1;
        for (int i = 0; i < count; i++) {
            String namespace = random.nextBoolean() ? scratch() : other();
            String name = "t" + i;
            if (i == ordersAt) {
                namespace = scratch();
                name = "orders";
            } else if (i == otherOrdersAt) {
                namespace = other();
                name = "orders";
            }
            Table table = new Table(namespace, name);
            StringBuilder create = new StringBuilder("CREATE TABLE " + table.qualified()
                    + " (id BIGINT PRIMARY KEY, r1 BIGINT, r2 BIGINT, v BIGINT, last_fence BIGINT NOT NULL DEFAULT 0");
            for (int column = 1; column <= 2 && i > 0; column++) {
                if (random.nextInt(3) > 0) {
                    Table parent = tables.get(random.nextInt(i));
                    create.append(", FOREIGN KEY (r").append(column).append(") REFERENCES ").append(parent.qualified())
                            .append(" (id) ON DELETE ").append(DELETE_RULES[random.nextInt(DELETE_RULES.length)])
                            .append(" ON UPDATE ").append(UPDATE_RULES[random.nextInt(UPDATE_RULES.length)]);
                }
            }
            create.append(")");
            ddl.add(create.toString());
            tables.add(table);
        }
        try (Connection connection = raw().getConnection(); Statement statement = connection.createStatement()) {
            for (String text : ddl) {
                statement.execute(text);
            }
            for (Table table : tables) {
                for (int id = 1; id <= 3; id++) {
                    statement.execute("INSERT INTO " + table.qualified() + " (id, r1, r2, v) VALUES (" + id + ", "
                            + reference(random, tables.indexOf(table)) + ", " + reference(random, tables.indexOf(table))
                            + ", 0)");
                }
            }
        }
        return tables;
    }

    /** A parent id (every table holds ids 1 to 3) or NULL; the first table references nothing. */
    private static String reference(Random random, int index) {
        return index == 0 || random.nextInt(4) == 0 ? "NULL" : String.valueOf(1 + random.nextInt(3));
    }

    private static List<String> writes(Table table) {
        return List.of("DELETE FROM " + table.qualified() + " WHERE id = 1",
                "UPDATE " + table.qualified() + " SET id = id + 100 WHERE id = 2",
                "UPDATE " + table.qualified() + " SET v = v + 1 WHERE id = 3");
    }

    private static String fencedRows(Statement statement, List<Table> tables) throws SQLException {
        StringBuilder rows = new StringBuilder();
        for (Table table : tables) {
            if (!table.name.equals("orders")) {
                continue;
            }
            try (ResultSet result = statement.executeQuery(
                    "SELECT id, r1, r2, v, last_fence FROM " + table.qualified() + " ORDER BY id")) {
                while (result.next()) {
                    rows.append(table.qualified());
                    for (int column = 1; column <= 5; column++) {
                        rows.append(',').append(result.getString(column));
                    }
                    rows.append(';');
                }
            }
        }
        return rows.toString();
    }
}
