package dev.fencing.testing;

import org.postgresql.ds.PGSimpleDataSource;

import java.sql.SQLException;

/** A PostgreSQL schema as a scratch area; only loaded when pgjdbc is wanted. */
final class PostgresScratch {

    private PostgresScratch() {
    }

    static ScratchArea create(String url, String schema) throws SQLException {
        PGSimpleDataSource admin = dataSource(url);
        Scratch.execute(admin, "CREATE SCHEMA " + schema);
        String scopedUrl = url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
        // A connection the test left open inside a transaction would make DROP wait for ever.
        return new ScratchArea(schema, scopedUrl, dataSource(scopedUrl), () -> Scratch.execute(admin,
                "SET lock_timeout = '10s'", "DROP SCHEMA IF EXISTS " + schema + " CASCADE"));
    }

    private static PGSimpleDataSource dataSource(String url) {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(url);
        return dataSource;
    }
}
