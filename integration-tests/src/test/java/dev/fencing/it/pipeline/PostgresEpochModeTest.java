package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.testing.TestDatabase;

import javax.sql.DataSource;

/** Epoch fencing on PostgreSQL, in a schema of its own. */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
class PostgresEpochModeTest extends EpochModeContract {

    private final DataSource database;

    PostgresEpochModeTest(DataSource database) {
        this.database = database;
    }

    @Override
    DataSource raw() {
        return database;
    }

    @Override
    String lockEpochRowNowait() {
        return "SELECT fence FROM fencing_epochs WHERE lock_name = ? FOR UPDATE NOWAIT";
    }

    @Override
    String returningInsert() {
        return "INSERT INTO accounts (id, balance) VALUES (?, ?) RETURNING balance";
    }
}
