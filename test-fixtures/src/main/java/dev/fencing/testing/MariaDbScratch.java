package dev.fencing.testing;

import org.mariadb.jdbc.MariaDbDataSource;

import java.sql.SQLException;

/** A MariaDB database as a scratch area; only loaded when MariaDB Connector/J is wanted. */
final class MariaDbScratch {

    private MariaDbScratch() {
    }

    static ScratchArea create(String url, String database) throws SQLException {
        MariaDbDataSource admin = new MariaDbDataSource(url);
        Scratch.execute(admin, "CREATE DATABASE " + database);
        String scopedUrl = withDatabase(url, database);
        // A connection the test left open inside a transaction would make DROP wait for ever.
        return new ScratchArea(database, scopedUrl, new MariaDbDataSource(scopedUrl), () -> Scratch.execute(admin,
                "SET SESSION lock_wait_timeout = 10", "DROP DATABASE IF EXISTS " + database));
    }

    /** {@code url} with its database (the path after host and port) replaced by {@code database}. */
    static String withDatabase(String url, String database) {
        int query = url.indexOf('?');
        String base = query < 0 ? url : url.substring(0, query);
        String parameters = query < 0 ? "" : url.substring(query);
        int hosts = base.indexOf("//");
        if (hosts < 0) {
            throw new IllegalArgumentException("not a jdbc:mariadb://host[:port]/database URL: " + Env.redact(url));
        }
        int path = base.indexOf('/', hosts + 2);
        String authority = path < 0 ? base : base.substring(0, path);
        return authority + "/" + database + parameters;
    }
}
