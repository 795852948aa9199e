package dev.fencing.internal.jdbc;

import dev.fencing.testing.TestDatabases;
import org.mariadb.jdbc.MariaDbDataSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A private database per test class on the test MariaDB ({@code FENCING_MARIADB_URL}): its table
 * names cannot meet those of any other run, and {@link #drop()} removes them all.
 */
final class MariaDb {

    static final String URL = TestDatabases.env("FENCING_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/test?user=root");

    final String database = TestDatabases.uniqueName();
    final MariaDbDataSource dataSource;

    MariaDb() {
        try {
            execute(new MariaDbDataSource(URL), "CREATE DATABASE " + database);
            dataSource = new MariaDbDataSource(url());
        } catch (SQLException e) {
            throw new IllegalStateException("MariaDB at " + URL.replaceAll("\\?.*", "") + " is needed for this test", e);
        }
    }

    /** The test URL with this class's database in place of the one it names. */
    String url() {
        int query = URL.indexOf('?');
        String base = query < 0 ? URL : URL.substring(0, query);
        String parameters = query < 0 ? "" : URL.substring(query);
        int path = base.indexOf('/', base.indexOf("//") + 2);
        return (path < 0 ? base : base.substring(0, path)) + "/" + database + parameters;
    }

    void drop() throws SQLException {
        // a connection a failed test left inside a transaction must not make DROP wait for ever
        execute(new MariaDbDataSource(URL), "SET SESSION lock_wait_timeout = 10", "DROP DATABASE IF EXISTS " + database);
    }

    private static void execute(MariaDbDataSource dataSource, String... statements) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }
}
