package dev.fencing.proof;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Small JDBC helpers shared by the proof suite. Everything here runs against real databases. */
final class Db {

    private Db() {
    }

    static void execute(DataSource dataSource, String... statements) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            execute(connection, statements);
        }
    }

    static void execute(Connection connection, String... statements) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }

    /** Every row of {@code query}, each a column-label-to-value map (labels lower-cased). */
    static List<Map<String, Object>> rows(Connection connection, String query) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet resultSet = statement.executeQuery(query)) {
            ResultSetMetaData meta = resultSet.getMetaData();
            List<Map<String, Object>> rows = new ArrayList<>();
            while (resultSet.next()) {
                Map<String, Object> row = new LinkedHashMap<>();
                for (int column = 1; column <= meta.getColumnCount(); column++) {
                    Object value = resultSet.getObject(column);
                    if (value instanceof Number number && !(value instanceof java.math.BigDecimal)) {
                        value = number.longValue();
                    }
                    row.put(meta.getColumnLabel(column).toLowerCase(java.util.Locale.ROOT), value);
                }
                rows.add(row);
            }
            return rows;
        }
    }

    static List<Map<String, Object>> rows(DataSource dataSource, String query) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return rows(connection, query);
        }
    }

    /** The single long value of {@code query}. */
    static long number(DataSource dataSource, String query) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return number(connection, query);
        }
    }

    static long number(Connection connection, String query) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet resultSet = statement.executeQuery(query)) {
            if (!resultSet.next()) {
                throw new IllegalStateException("no row from " + query);
            }
            return resultSet.getLong(1);
        }
    }

    /** The scratch schema (PostgreSQL) or database (MariaDB) that connections of {@code dataSource} work in. */
    static String home(DataSource dataSource) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            String schema = connection.getSchema();
            return schema != null ? schema : connection.getCatalog();
        }
    }

    /** A HikariCP pool over {@code delegate}; the caller closes it. */
    static HikariDataSource pool(DataSource delegate, String name, int size, Duration connectionTimeout) {
        HikariConfig config = new HikariConfig();
        config.setDataSource(delegate);
        config.setPoolName(name);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(connectionTimeout.toMillis());
        config.setInitializationFailTimeout(-1);
        return new HikariDataSource(config);
    }

    /** The whole chain of {@code thrown}: itself, causes and next exceptions, as short text. */
    static String describe(Throwable thrown) {
        if (thrown == null) {
            return "nothing";
        }
        StringBuilder text = new StringBuilder();
        Throwable current = thrown;
        for (int depth = 0; current != null && depth < 5; depth++) {
            if (depth > 0) {
                text.append(" <- ");
            }
            text.append(current.getClass().getSimpleName());
            if (current instanceof SQLException sql && sql.getSQLState() != null) {
                text.append('[').append(sql.getSQLState()).append(']');
            }
            text.append(": ").append(current.getMessage());
            Throwable next = current.getCause();
            if (next == null && current instanceof SQLException sql) {
                next = sql.getNextException();
            }
            current = next == current ? null : next;
        }
        return text.toString();
    }

    /** The first {@code type} among {@code thrown}, its causes and next exceptions; null when none. */
    static <T extends Throwable> T find(Throwable thrown, Class<T> type) {
        Throwable current = thrown;
        for (int depth = 0; current != null && depth < 10; depth++) {
            if (type.isInstance(current)) {
                return type.cast(current);
            }
            Throwable next = current.getCause();
            if (next == null && current instanceof SQLException sql) {
                next = sql.getNextException();
            }
            current = next == current ? null : next;
        }
        return null;
    }
}
