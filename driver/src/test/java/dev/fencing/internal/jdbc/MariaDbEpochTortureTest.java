package dev.fencing.internal.jdbc;

import org.junit.jupiter.api.AfterAll;

import javax.sql.DataSource;
import java.sql.SQLException;

/** The read-modify-write pause torture on MariaDB, epoch mode against row mode. */
class MariaDbEpochTortureTest extends EpochTortureContract {

    private static final MariaDb DATABASE = new MariaDb();

    @AfterAll
    static void dropDatabase() throws SQLException {
        DATABASE.drop();
    }

    @Override
    DataSource raw() {
        return DATABASE.dataSource;
    }

    @Override
    String label() {
        return "MariaDB";
    }
}
