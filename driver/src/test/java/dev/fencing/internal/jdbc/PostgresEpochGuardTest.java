package dev.fencing.internal.jdbc;

import org.junit.jupiter.api.AfterAll;

import javax.sql.DataSource;
import java.sql.SQLException;

/** Epoch fencing on PostgreSQL, in a schema of its own. */
class PostgresEpochGuardTest extends EpochGuardContract {

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
    String lockGuardRowNowait() {
        return "SELECT fence FROM fencing_epochs WHERE lock_name = ? FOR UPDATE NOWAIT";
    }

    @Override
    String returningInsert() {
        return "INSERT INTO accounts (id, balance) VALUES (?, ?) RETURNING balance";
    }
}
