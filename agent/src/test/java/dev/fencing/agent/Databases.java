package dev.fencing.agent;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;

/**
 * One table of the test's own in PostgreSQL ({@code FENCING_PG_URL}), MariaDB
 * ({@code FENCING_MARIADB_URL}) and an H2 file database in a temporary directory, created, seeded
 * and read back here (this test JVM runs no agent); dropped on close. The sample application
 * writes them from a JVM of its own; H2 is read after it has exited.
 */
final class Databases implements AutoCloseable {

    static final String MARIADB_URL = System.getenv().getOrDefault("FENCING_MARIADB_URL",
            "jdbc:mariadb://127.0.0.1:3306/test?user=root");

    final String table = "agent_m_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    final Map<String, String> urls;

    Databases(Path directory) throws SQLException {
        urls = Map.of("pg", Postgres.URL, "mariadb", MARIADB_URL,
                "h2", "jdbc:h2:" + directory.toAbsolutePath().resolve("matrix").toString().replace('\\', '/'));
        for (String database : urls.keySet()) {
            execute(database, "CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, status VARCHAR(40), "
                    + "last_fence BIGINT NOT NULL DEFAULT 0)");
        }
    }

    /** Adds a row with {@code status = 'seed'} and fence 7. */
    void seed(String database, long id) throws SQLException {
        execute(database, "INSERT INTO " + table + " (id, status, last_fence) VALUES (" + id + ", 'seed', 7)");
    }

    /** {@code status/last_fence} of a row. */
    String row(String database, long id) throws SQLException {
        try (Connection c = DriverManager.getConnection(urls.get(database));
             PreparedStatement read = c.prepareStatement("SELECT status, last_fence FROM " + table + " WHERE id = ?")) {
            read.setLong(1, id);
            try (ResultSet row = read.executeQuery()) {
                return row.next() ? row.getString(1) + "/" + row.getLong(2) : "(no row)";
            }
        }
    }

    /** The JVM options that tell the sample application where the databases are. */
    String[] properties() {
        return new String[] {"-Dtable=" + table, "-Dpg.url=" + urls.get("pg"), "-Dmariadb.url=" + urls.get("mariadb"),
                "-Dh2.url=" + urls.get("h2")};
    }

    private void execute(String database, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(urls.get(database)); Statement statement = c.createStatement()) {
            statement.execute(sql);
        }
    }

    @Override
    public void close() throws SQLException {
        for (String database : urls.keySet()) {
            execute(database, "DROP TABLE IF EXISTS " + table);
        }
    }
}
