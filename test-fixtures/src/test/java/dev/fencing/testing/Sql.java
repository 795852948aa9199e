package dev.fencing.testing;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** Small JDBC helpers for the tests. */
final class Sql {

    private Sql() {
    }

    static void execute(DataSource dataSource, String... statements) throws SQLException {
        Scratch.execute(dataSource, statements);
    }

    /** The first column of every row of {@code query}, as strings. */
    static List<String> column(DataSource dataSource, String query) throws SQLException {
        try (Connection connection = dataSource.getConnection();
             Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(query)) {
            List<String> values = new ArrayList<>();
            while (rows.next()) {
                values.add(rows.getString(1));
            }
            return values;
        }
    }

    /** The schema (PostgreSQL) or catalog (MariaDB) a connection of {@code dataSource} works in. */
    static String home(DataSource dataSource) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            String schema = connection.getSchema();
            return schema != null ? schema : connection.getCatalog();
        }
    }
}
