package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.jdbc.FencingDataSource;

import dev.fencing.FencingConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A fresh {@code orders} table (fenced) and {@code notes} table (not fenced) before each test, on
 * the database the subclass names, and helpers that read rows back through an unfenced connection.
 */
abstract class OrdersFixture {

    /** A row of {@code orders} as the database holds it. */
    record Order(long id, String status, long amount, long lastFence) {
    }

    private final List<AutoCloseable> opened = new ArrayList<>();

    /** The database, unfenced: for setting up and checking rows. */
    abstract DataSource raw();

    @BeforeEach
    void createTables() throws SQLException {
        sql("DROP TABLE IF EXISTS orders",
                "DROP TABLE IF EXISTS notes",
                "CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(20), amount BIGINT,"
                        + " last_fence BIGINT NOT NULL DEFAULT 0)",
                "CREATE TABLE notes (id BIGINT PRIMARY KEY, body VARCHAR(100))");
    }

    @AfterEach
    void closeOpened() throws Exception {
        for (AutoCloseable closeable : opened) {
            closeable.close();
        }
        opened.clear();
    }

    /** Runs statements on an unfenced connection. */
    void sql(String... statements) throws SQLException {
        try (Connection connection = raw().getConnection(); Statement statement = connection.createStatement()) {
            for (String text : statements) {
                statement.execute(text);
            }
        }
    }

    void seed(long id, String status, long amount, long lastFence) throws SQLException {
        try (Connection connection = raw().getConnection();
             PreparedStatement insert = connection.prepareStatement(
                     "INSERT INTO orders (id, status, amount, last_fence) VALUES (?, ?, ?, ?)")) {
            insert.setLong(1, id);
            insert.setString(2, status);
            insert.setLong(3, amount);
            insert.setLong(4, lastFence);
            insert.executeUpdate();
        }
    }

    /** The row as the database holds it, or null. */
    Order order(long id) throws SQLException {
        try (Connection connection = raw().getConnection();
             PreparedStatement select = connection.prepareStatement(
                     "SELECT id, status, amount, last_fence FROM orders WHERE id = ?")) {
            select.setLong(1, id);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? new Order(rows.getLong(1), rows.getString(2), rows.getLong(3), rows.getLong(4))
                        : null;
            }
        }
    }

    long count(String table) throws SQLException {
        try (Connection connection = raw().getConnection(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /** A fenced data source over {@link #raw()}: {@code fencing.tables=orders}, then {@code settings}. */
    FencingDataSource fenced(Consumer<FencingConfig.Builder> settings) {
        FencingConfig.Builder builder = FencingConfig.builder().tables("orders");
        settings.accept(builder);
        return new FencingDataSource(raw(), builder.build());
    }

    FencingDataSource fenced() {
        return fenced(builder -> { });
    }

    /** A connection of {@link #fenced()} closed after the test. */
    Connection connection() throws SQLException {
        return connection(fenced());
    }

    Connection connection(DataSource dataSource) throws SQLException {
        return track(dataSource.getConnection());
    }

    <T extends AutoCloseable> T track(T closeable) {
        opened.add(0, closeable);
        return closeable;
    }
}
