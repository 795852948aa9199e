package dev.fencing.testing;

import org.h2.jdbcx.JdbcDataSource;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;

/**
 * Raw (unfenced) data sources on the real databases the tests run against. Addresses come from
 * the environment, defaulting to the loopback services: {@code FENCING_PG_URL}.
 */
public final class TestDatabases {

    public static final String PG_URL = env("FENCING_PG_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    private TestDatabases() {
    }

    public static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    /** A fresh, private H2 in-memory database that lives while any connection to it is open or the JVM runs. */
    public static DataSource h2() {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:" + uniqueName() + ";DB_CLOSE_DELAY=-1");
        return dataSource;
    }

    /** A PostgreSQL data source whose connections work in {@code schema} (created if absent). */
    public static PGSimpleDataSource postgres(String schema) throws SQLException {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(PG_URL);
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS " + schema);
        }
        dataSource.setCurrentSchema(schema);
        return dataSource;
    }

    public static void dropPostgresSchema(String schema) throws SQLException {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(PG_URL);
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }

    public static String uniqueName() {
        return "t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12).toLowerCase(Locale.ROOT);
    }
}
