package dev.fencing.internal.jdbc;

import org.junit.jupiter.api.AfterAll;

import javax.sql.DataSource;
import java.sql.SQLException;

/** The read-modify-write pause torture on PostgreSQL, epoch mode against row mode. */
class PostgresEpochTortureTest extends EpochTortureContract {

    private static final Postgres DATABASE = new Postgres();

    @AfterAll
    static void dropSchema() throws SQLException {
        DATABASE.drop();
    }

    @Override
    DataSource raw() {
        return DATABASE.dataSource;
    }

    @Override
    String label() {
        return "PostgreSQL";
    }
}
