package dev.fencing.proof;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.jdbc.FencingDataSource;
import org.junit.jupiter.api.Test;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The recognizer attack's findings, sent to the real servers through {@link FencingDataSource}
 * (recognizer on, as in production) under a stale fence (40 against the row's 100) and with no
 * fence at all; the rows are read back through a raw connection. The keyword texts the
 * recognizer fences but the full analysis refuses ({@code ſET}, {@code ıNTO}, ..) must change no
 * row: PostgreSQL and MariaDB read those words as names (a syntax error), H2 folds them to the
 * keyword and so runs the fenced statement, whose check holds.
 *
 * <p>Needs PostgreSQL on 127.0.0.1:5432 (database test, user postgres) and MariaDB on
 * 127.0.0.1:3306 (root); works in a scratch schema / database {@code h_a32}, dropped after.
 */
class RecognizerAttackServerTest {

    /** The findings, with literals for the parameters. */
    static final List<String> KEYWORD_FOLDS = List.of(
            "UPDATE orders \u017fET status = 'hacked' WHERE id = 42",
            "UPDATE orders \u017fET status = 'hacked'",
            "DELETE FROM orders WHERE id = 42",
            "\u0131NSERT INTO orders (id, status, amount) VALUES (43, 'hacked', 1)",
            "INSERT \u0131NTO orders (id, status, amount) VALUES (43, 'hacked', 1)",
            "INSERT INTO orders (id, status, amount) VALUE\u017f (43, 'hacked', 1)",
            "\u0130NSERT INTO orders (id, status, amount) VALUES (43, 'hacked', 1)",
            "INSERT INTO orders (id, status, amount) VALUES (43, 'hacked', 1)");

    /** Names with a letter {@code String.toUpperCase} folds to ASCII (U+017F to S): the H2 finding, and controls elsewhere. */
    static final List<String> NAME_FOLDS = List.of(
            "UPDATE order\u017f SET status = 'hacked' WHERE id = 42",
            "DELETE FROM order\u017f WHERE id = 42",
            "INSERT INTO order\u017f (id, status, amount) VALUES (43, 'hacked', 1)",
            "UPDATE orders SET status = 'hacked', la\u017ft_fence = 0 WHERE id = 42",
            "INSERT INTO orders (id, status, amount, la\u017ft_fence) VALUES (43, 'hacked', 1, 0)");

    private static final FencingConfig CONFIG = FencingConfig.builder().tables("orders").build();

    @Test
    void postgresql() throws SQLException {
        PGSimpleDataSource admin = new PGSimpleDataSource();
        admin.setUrl("jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        Db.execute(admin, "DROP SCHEMA IF EXISTS h_a32 CASCADE", "CREATE SCHEMA h_a32");
        try {
            PGSimpleDataSource raw = new PGSimpleDataSource();
            raw.setUrl("jdbc:postgresql://127.0.0.1:5432/test?user=postgres&currentSchema=h_a32");
            attack(raw, KEYWORD_FOLDS, List.of());
            attack(raw, NAME_FOLDS, List.of());
        } finally {
            Db.execute(admin, "DROP SCHEMA IF EXISTS h_a32 CASCADE");
        }
    }

    @Test
    void mariadb() throws SQLException {
        MariaDbDataSource admin = new MariaDbDataSource("jdbc:mariadb://127.0.0.1:3306/?user=root");
        Db.execute(admin, "DROP DATABASE IF EXISTS h_a32", "CREATE DATABASE h_a32");
        try {
            MariaDbDataSource raw = new MariaDbDataSource("jdbc:mariadb://127.0.0.1:3306/h_a32?user=root");
            attack(raw, KEYWORD_FOLDS, List.of());
            attack(raw, NAME_FOLDS, List.of());
        } finally {
            Db.execute(admin, "DROP DATABASE IF EXISTS h_a32");
        }
    }

    @Test
    void h2() throws SQLException {
        org.h2.jdbcx.JdbcDataSource raw = new org.h2.jdbcx.JdbcDataSource();
        raw.setURL("jdbc:h2:mem:a32_" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        try (Connection keeper = raw.getConnection()) {
            attack(raw, KEYWORD_FOLDS, List.of());
        }
    }

    /**
     * Not the recognizer's, probed beside it: PostgreSQL truncates a name to 63 bytes (with a
     * NOTICE), so a fenced table with a 63-character name is written by any longer name that
     * starts with it, which the analysis reads as another table. Fails while the finding stands.
     */
    @Test
    void postgresqlTruncatesALongerNameToTheFencedTable() throws SQLException {
        String table = "orders_" + "x".repeat(56); // 63 characters
        PGSimpleDataSource admin = new PGSimpleDataSource();
        admin.setUrl("jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        Db.execute(admin, "DROP SCHEMA IF EXISTS h_a32 CASCADE", "CREATE SCHEMA h_a32");
        try {
            PGSimpleDataSource raw = new PGSimpleDataSource();
            raw.setUrl("jdbc:postgresql://127.0.0.1:5432/test?user=postgres&currentSchema=h_a32");
            Db.execute(raw, "CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, status VARCHAR(40), last_fence BIGINT)",
                    "INSERT INTO " + table + " VALUES (42, 'pending', 100)");
            FencingDataSource fenced = new FencingDataSource(raw, FencingConfig.builder().tables(table).build());
            List<String> outcomes = new ArrayList<>();
            for (String sql : List.of("UPDATE " + table + " SET status = 'control' WHERE id = 42",
                    "UPDATE " + table + "_tail SET status = 'hacked' WHERE id = 42")) {
                try (Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
                     Fence.Scope scope = Fence.enter(40)) {
                    outcomes.add(sql + " -> count " + statement.executeUpdate(sql));
                } catch (SQLException | RuntimeException e) {
                    outcomes.add(sql + " -> " + e.getClass().getSimpleName() + ": " + e.getMessage());
                }
                outcomes.add("   rows " + Db.rows(raw, "SELECT id, status, last_fence FROM " + table));
            }
            outcomes.forEach(System.out::println);
            assertEquals(List.of(Map.of("id", 42L, "status", "pending", "last_fence", 100L)),
                    Db.rows(raw, "SELECT id, status, last_fence FROM " + table), String.join("\n", outcomes));
        } finally {
            Db.execute(admin, "DROP SCHEMA IF EXISTS h_a32 CASCADE");
        }
    }

    /**
     * Not the recognizer's (it takes ASCII names only), found beside it: H2 folds an unquoted name
     * to upper case with {@code String.toUpperCase}, so {@code orderſ} (U+017F) is ORDERS to it,
     * while the analysis folds names with {@code toLowerCase} ({@code orderſ}) and the pre-filter
     * looks for "orders": the text passes unread and writes the fenced table with no check.
     * Fails while the finding stands.
     */
    @Test
    void h2FoldsANonAsciiLetterOfATableNameToTheFencedTable() throws SQLException {
        org.h2.jdbcx.JdbcDataSource raw = new org.h2.jdbcx.JdbcDataSource();
        raw.setURL("jdbc:h2:mem:a32f_" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        try (Connection keeper = raw.getConnection()) {
            for (String sql : NAME_FOLDS) {
                for (boolean recognizer : new boolean[] {true, false}) {
                    dev.fencing.internal.sql.AnalyzerOptions options = recognizer
                            ? dev.fencing.internal.sql.AnalyzerOptions.CHECKED
                            : dev.fencing.internal.sql.AnalyzerOptions.CHECKED.withoutRecognizer();
                    System.out.println("H2 plan, recognizer " + (recognizer ? "on:  " : "off: ") + PlanDump.escape(sql)
                            + " -> " + new dev.fencing.internal.sql.StatementAnalyzer(CONFIG,
                            dev.fencing.internal.sql.Dialect.H2, options).fullAnalysis(sql).kind());
                }
            }
            attack(raw, NAME_FOLDS, List.of());
        }
    }

    /**
     * Each text under a stale fence, then with none; after each, order 42 must be as seeded and
     * no order 43 may exist. {@code landed} lists the texts expected to land (none here).
     */
    private static void attack(DataSource raw, List<String> texts, List<String> landed) throws SQLException {
        FencingDataSource fenced = new FencingDataSource(raw, CONFIG);
        List<String> outcomes = new ArrayList<>();
        List<String> wrote = new ArrayList<>();
        for (String sql : texts) {
            for (boolean withFence : new boolean[] {true, false}) {
                seed(raw);
                String outcome;
                try (Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
                     Fence.Scope scope = withFence ? Fence.enter(40) : null) {
                    outcome = "count " + statement.executeUpdate(sql);
                } catch (SQLException | RuntimeException e) {
                    outcome = e.getClass().getSimpleName() + ": " + e.getMessage();
                }
                List<Map<String, Object>> rows = Db.rows(raw, "SELECT id, status, last_fence FROM orders ORDER BY id");
                // order 42 as seeded; an order 43 only when inserted under the fence and carrying it
                // (what a fenced INSERT of a new row does)
                boolean untouched = !rows.isEmpty() && "pending".equals(rows.get(0).get("status"))
                        && Long.valueOf(100).equals(rows.get(0).get("last_fence"))
                        && (rows.size() == 1 || withFence && rows.size() == 2
                        && Long.valueOf(40).equals(rows.get(1).get("last_fence")));
                outcomes.add((withFence ? "stale " : "none  ") + PlanDump.escape(sql) + " -> " + outcome + " | rows "
                        + rows);
                if (!untouched) {
                    wrote.add(sql + (withFence ? " (stale fence)" : " (no fence)") + ": " + rows);
                }
            }
        }
        outcomes.forEach(System.out::println);
        assertEquals(landed, wrote.stream().map(w -> w.substring(0, w.indexOf(" ("))).distinct().toList(),
                "writes that landed:\n" + String.join("\n", wrote));
        assertTrue(outcomes.size() == texts.size() * 2);
    }

    private static void seed(DataSource raw) throws SQLException {
        Db.execute(raw, "DROP TABLE IF EXISTS orders",
                "CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(40), amount INT, last_fence BIGINT)",
                "INSERT INTO orders (id, status, amount, last_fence) VALUES (42, 'pending', 100, 100)");
    }
}
