package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.internal.txn.TransactionState;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * MariaDB error 1205 on a server that runs with {@code innodb_rollback_on_timeout=ON} (a private
 * server: the setting cannot change at run time): the server rolls back the whole transaction, and
 * the driver must say so. The other sources of an end are checked here too, on this server.
 */
class MariaDbRollbackOnTimeoutTest extends TransactionStateContract {

    private static MariaDbServerProcess server;
    private static DataSource database;

    @BeforeAll
    static void startServer() throws Exception {
        server = MariaDbServerProcess.start("--innodb-rollback-on-timeout=ON", "--innodb-lock-wait-timeout=1");
        database = server.dataSource("test");
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @Override
    DataSource raw() {
        return database;
    }

    @Override
    boolean ddlCommitsImplicitly() {
        return true;
    }

    @Override
    SQLException classFortyError(Connection connection, Connection other) throws Exception {
        return MariaDbTransactionStateTest.deadlock(connection, other);
    }

    @Test
    void aLockWaitTimeoutWithRollbackOnTimeoutEndsTheTransaction() throws Exception {
        FencedConnection connection = fenced();
        connection.setAutoCommit(false);
        probe(connection, 7);
        Connection other = plain();
        other.setAutoCommit(false);
        execute(other, "UPDATE tx_locked SET v = 2 WHERE id = 1");
        SQLException timeout = thrown(() -> execute(connection, "UPDATE tx_locked SET v = 1 WHERE id = 1"));
        assertThat(timeout.getErrorCode()).isEqualTo(1205);
        other.rollback();
        assertThat(endsSeen()).containsExactly(TransactionState.End.ROLLED_BACK);
        // the database's side: the probe written before the timeout is gone, even after a commit
        connection.commit();
        assertThat(durableProbes()).doesNotContain(7);
    }
}
