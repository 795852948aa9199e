package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.testing.TestDatabase;

import javax.sql.DataSource;

/** The read-modify-write pause torture on MariaDB, epoch mode against row mode. */
@TestDatabase(TestDatabase.Kind.MARIADB)
class MariaDbEpochTortureTest extends EpochTortureContract {

    private final DataSource database;

    MariaDbEpochTortureTest(DataSource database) {
        this.database = database;
    }

    @Override
    DataSource raw() {
        return database;
    }

    @Override
    String label() {
        return "MariaDB";
    }
}
