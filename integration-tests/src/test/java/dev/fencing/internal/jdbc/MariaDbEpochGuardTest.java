package dev.fencing.internal.jdbc;

import dev.fencing.testing.TestDatabase;

import javax.sql.DataSource;

/** Epoch fencing on MariaDB, in a database of its own. */
@TestDatabase(TestDatabase.Kind.MARIADB)
class MariaDbEpochGuardTest extends EpochGuardContract {

    private final DataSource database;

    MariaDbEpochGuardTest(DataSource database) {
        this.database = database;
    }

    @Override
    DataSource raw() {
        return database;
    }

    @Override
    String lockGuardRowNowait() {
        return "SELECT fence FROM fencing_epochs WHERE lock_name = ? FOR UPDATE NOWAIT";
    }

    @Override
    String returningInsert() {
        return "INSERT INTO accounts (id, balance) VALUES (?, ?) RETURNING balance";
    }

    @Override
    boolean staleCheckLeavesGuardRowFree() {
        return false;
    }

    @Override
    boolean callableDml() {
        return false;
    }

    @Override
    java.util.List<String> statementsThatEndTheTransaction() {
        return java.util.List.of("CREATE TABLE epoch_ddl_probe (i INT)", "SET autocommit = 1");
    }
}
