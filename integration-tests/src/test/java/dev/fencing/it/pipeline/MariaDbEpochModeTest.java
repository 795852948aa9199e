package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.StaleFenceException;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Epoch fencing on MariaDB, in a database of its own. */
@TestDatabase(TestDatabase.Kind.MARIADB)
class MariaDbEpochModeTest extends EpochModeContract {

    private final DataSource database;

    MariaDbEpochModeTest(DataSource database) {
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

    @Override
    boolean staleCheckLeavesEpochRowFree() {
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

    /**
     * Issue 28: REPLACE cannot end the transaction it runs in, and the analyzer and the transaction
     * tracker now read that from one list of statement heads; before, the analyzer reported it as
     * transaction control and every REPLACE of an epoch-mode table was refused. It is checked against
     * the epoch row like any write: the holder's REPLACE lands, a stale holder's is rejected.
     */
    @Test
    void replaceWritesAnEpochTableUnderTheCurrentFenceAndAStaleHoldersReplaceIsRejected() throws Exception {
        account(1, 100);
        Connection a = connection(process());
        Connection b = connection(process());
        as(lock, 40, () -> { update(a, "REPLACE INTO accounts (id, balance) VALUES (1, 150)"); return null; });
        assertThat(balance(1)).isEqualTo(150);
        assertThat(epochRow(lock)).isEqualTo(40);

        as(lock, 41, () -> { update(b, "REPLACE INTO accounts (id, balance) VALUES (1, 160)"); return null; });
        StaleFenceException stale = catchThrowableOfType(StaleFenceException.class,
                () -> as(lock, 40, () -> { update(a, "REPLACE INTO accounts (id, balance) VALUES (1, 170)"); return null; }));
        assertThat((Throwable) stale).isNotNull();
        assertThat(stale.currentFence()).hasValue(41);
        assertThat(balance(1)).isEqualTo(160);
        assertThat(epochRow(lock)).isEqualTo(41);
    }
}
