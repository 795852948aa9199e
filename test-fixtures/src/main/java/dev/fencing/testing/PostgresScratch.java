package dev.fencing.testing;

import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;
import java.sql.SQLException;

/** A PostgreSQL schema as a scratch area; only loaded when pgjdbc is wanted. */
final class PostgresScratch {

    private PostgresScratch() {
    }

    static StoredResource<DataSource> create(String url, String schema) throws SQLException {
        PGSimpleDataSource admin = dataSource(url);
        Scratch.execute(admin, "CREATE SCHEMA " + schema);
        PGSimpleDataSource scoped = dataSource(url);
        scoped.setCurrentSchema(schema);
        // A connection the test left open inside a transaction would make DROP wait for ever.
        return new StoredResource<>(scoped, () -> Scratch.execute(admin,
                "SET lock_timeout = '10s'", "DROP SCHEMA IF EXISTS " + schema + " CASCADE"));
    }

    private static PGSimpleDataSource dataSource(String url) {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(url);
        return dataSource;
    }
}
