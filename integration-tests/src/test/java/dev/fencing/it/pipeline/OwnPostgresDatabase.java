package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.testing.TestDatabase;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * A PostgreSQL database of the test's own, {@code fencing_evt_<random>} on the shared server:
 * the guard's event triggers cover a whole database, so a test that installs them must not do so
 * where other tests (and other engineers' runs) work. Closing it drops the database.
 */
final class OwnPostgresDatabase implements AutoCloseable {

    private final String name;
    private final String url;

    private OwnPostgresDatabase(String name, String url) {
        this.name = name;
        this.url = url;
    }

    static OwnPostgresDatabase create() throws SQLException {
        String name = "fencing_evt_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        String server = TestDatabase.Kind.POSTGRESQL.url();
        execute(server, "CREATE DATABASE " + name);
        return new OwnPostgresDatabase(name, server.replaceFirst("(jdbc:postgresql://[^/]+/)[^?]*", "$1" + name));
    }

    String name() {
        return name;
    }

    /** The database's URL (no schema). */
    String url() {
        return url;
    }

    /** A data source whose connections work in {@code schema} (created when missing). */
    DataSource schema(String schema) throws SQLException {
        execute(url, "CREATE SCHEMA IF NOT EXISTS " + schema);
        return dataSource(url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema);
    }

    static PGSimpleDataSource dataSource(String url) {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(url);
        return dataSource;
    }

    static void execute(String url, String... statements) throws SQLException {
        try (Connection connection = dataSource(url).getConnection(); Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }

    @Override
    public void close() throws SQLException {
        execute(TestDatabase.Kind.POSTGRESQL.url(), "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }
}
