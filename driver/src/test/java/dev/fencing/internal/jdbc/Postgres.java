package dev.fencing.internal.jdbc;

import dev.fencing.testing.TestDatabases;
import org.postgresql.ds.PGSimpleDataSource;

import java.sql.SQLException;

/** A private schema per test class on the test PostgreSQL ({@code FENCING_PG_URL}). */
final class Postgres {

    final String schema = TestDatabases.uniqueName();
    final PGSimpleDataSource dataSource;

    Postgres() {
        try {
            dataSource = TestDatabases.postgres(schema);
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL at " + TestDatabases.PG_URL.replaceAll("\\?.*", "")
                    + " is needed for this test", e);
        }
    }

    /** The test URL with this schema as the current one. */
    String url() {
        return TestDatabases.PG_URL + (TestDatabases.PG_URL.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }

    void drop() throws SQLException {
        TestDatabases.dropPostgresSchema(schema);
    }
}
