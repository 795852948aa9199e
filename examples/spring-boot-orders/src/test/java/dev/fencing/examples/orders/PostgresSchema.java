package dev.fencing.examples.orders;

import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import javax.sql.DataSource;

import org.postgresql.ds.PGSimpleDataSource;

/**
 * A PostgreSQL schema of the test application's own, on the server of {@code FENCING_PG_URL};
 * dropped when the context closes.
 */
final class PostgresSchema {

    private static final SecureRandom RANDOM = new SecureRandom();

    private final String server;
    private final String name;

    private PostgresSchema(String server, String name) {
        this.server = server;
        this.name = name;
    }

    static PostgresSchema create() {
        String server = System.getenv().getOrDefault("FENCING_PG_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        byte[] bytes = new byte[6];
        RANDOM.nextBytes(bytes);
        PostgresSchema schema = new PostgresSchema(server, "sb_" + HexFormat.of().formatHex(bytes));
        schema.execute("CREATE SCHEMA " + schema.name);
        return schema;
    }

    String name() {
        return name;
    }

    /** The JDBC URL whose connections use this schema. */
    String url() {
        return server + (server.contains("?") ? "&" : "?") + "currentSchema=" + name;
    }

    /** A data source on the schema that no fencing wraps: the test's view of what the database holds. */
    DataSource raw() {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(url());
        return dataSource;
    }

    void drop() {
        execute("SET lock_timeout = '10s'", "DROP SCHEMA IF EXISTS " + name + " CASCADE");
    }

    private void execute(String... statements) {
        PGSimpleDataSource admin = new PGSimpleDataSource();
        admin.setURL(server);
        try (Connection connection = admin.getConnection(); Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("schema " + name + " on " + server.replaceAll("password=[^&]*", "password=***")
                    + ": " + e.getMessage(), e);
        }
    }
}
