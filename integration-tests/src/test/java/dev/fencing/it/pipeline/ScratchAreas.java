package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * What some tests need to know of the {@code @TestDatabase} scratch area they were handed: its
 * JDBC URL (to go through {@code DriverManager}, a pool's {@code jdbcUrl} or URL options) and its
 * name (the PostgreSQL schema or the MariaDB database).
 */
final class ScratchAreas {

    private ScratchAreas() {
    }

    /** The URL that opens connections into the scratch area, with the server's user and options. */
    static String url(DataSource scratch) {
        if (scratch instanceof PGSimpleDataSource postgres) {
            return postgres.getURL();
        }
        if (scratch instanceof MariaDbDataSource mariaDb) {
            return mariaDb.getUrl();
        }
        throw new IllegalArgumentException("not a @TestDatabase scratch area: " + scratch.getClass().getName());
    }

    /** The MariaDB scratch area reached with Connector/J URL {@code options} added (e.g. {@code allowMultiQueries=true}). */
    static MariaDbDataSource mariaDbWithOptions(DataSource scratch, String options) throws SQLException {
        String url = url(scratch);
        return new MariaDbDataSource(url + (url.contains("?") ? "&" : "?") + options);
    }

    /** The schema (PostgreSQL) or database (MariaDB) that holds the scratch area's tables. */
    static String name(DataSource scratch) {
        if (scratch instanceof PGSimpleDataSource postgres) {
            return postgres.getCurrentSchema();
        }
        try (Connection connection = scratch.getConnection()) {
            return connection.getCatalog();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the database of " + url(scratch), e);
        }
    }
}
