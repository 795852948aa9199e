package dev.fencing.internal.jdbc;

import org.junit.jupiter.api.AfterAll;

import javax.sql.DataSource;
import java.sql.SQLException;

/** Epoch fencing on MariaDB, in a database of its own. */
class MariaDbEpochGuardTest extends EpochGuardContract {

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
