package dev.fencing.internal.jdbc;

import org.junit.jupiter.api.AfterAll;

import javax.sql.DataSource;
import java.sql.SQLException;

/** Fence scopes and the writes that follow them, on PostgreSQL (where the zombie fence was first seen). */
class PostgresFenceScopeWritesTest extends FenceScopeWritesContract {

    private static final Postgres DATABASE = new Postgres();

    @AfterAll
    static void dropSchema() throws SQLException {
        DATABASE.drop();
    }

    @Override
    DataSource raw() {
        return DATABASE.dataSource;
    }
}
