package dev.fencing.agent;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * The PostgreSQL the tests check against ({@code FENCING_PG_URL}, default the local server), read
 * and written here directly (this test JVM runs no agent), and one table of the test's own.
 */
final class Postgres implements AutoCloseable {

    static final String URL = System.getenv().getOrDefault("FENCING_PG_URL",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    final String table = "agent_it_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    Postgres() throws SQLException {
        execute("CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, status TEXT, last_fence BIGINT NOT NULL DEFAULT 0)");
    }

    /** Adds a row with {@code status = 'seed'} and the given fence. */
    Postgres seed(long id, long fence) throws SQLException {
        execute("INSERT INTO " + table + " (id, status, last_fence) VALUES (" + id + ", 'seed', " + fence + ")");
        return this;
    }

    /** {@code status/last_fence} of a row. */
    String row(long id) throws SQLException {
        try (Connection c = DriverManager.getConnection(URL);
             PreparedStatement read = c.prepareStatement("SELECT status, last_fence FROM " + table + " WHERE id = ?")) {
            read.setLong(1, id);
            try (ResultSet row = read.executeQuery()) {
                return row.next() ? row.getString(1) + "/" + row.getLong(2) : "(no row)";
            }
        }
    }

    /** An epoch table of epoch mode for this test, dropped on close. */
    Guard guardTable() throws SQLException {
        return new Guard(table + "_epochs");
    }

    final class Guard implements AutoCloseable {
        final String name;

        private Guard(String name) throws SQLException {
            this.name = name;
            execute("CREATE TABLE " + name + " (lock_name VARCHAR(255) PRIMARY KEY, fence BIGINT NOT NULL)");
        }

        /** The fence of a lock's epoch row; 0 when there is none. */
        long fence(String lock) throws SQLException {
            try (Connection c = DriverManager.getConnection(URL);
                 PreparedStatement read = c.prepareStatement("SELECT fence FROM " + name + " WHERE lock_name = ?")) {
                read.setString(1, lock);
                try (ResultSet row = read.executeQuery()) {
                    return row.next() ? row.getLong(1) : 0;
                }
            }
        }

        @Override
        public void close() throws SQLException {
            execute("DROP TABLE IF EXISTS " + name);
        }
    }

    /** A configuration file fencing this table, plus {@code extra} lines. */
    Path config(Path directory, String... extra) throws Exception {
        Path file = directory.resolve("fencing-" + table + ".properties");
        StringBuilder text = new StringBuilder("fencing.tables=" + table + "\n");
        for (String line : extra) {
            text.append(line).append('\n');
        }
        Files.writeString(file, text);
        return file;
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(URL); Statement statement = c.createStatement()) {
            statement.execute(sql);
        }
    }

    @Override
    public void close() throws SQLException {
        execute("DROP TABLE IF EXISTS " + table);
    }
}
