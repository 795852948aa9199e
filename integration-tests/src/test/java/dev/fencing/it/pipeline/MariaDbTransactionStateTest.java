package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.internal.txn.TransactionState;
import dev.fencing.testing.TestDatabase;

import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link TransactionState} on the shared MariaDB: DDL commits implicitly; a deadlock is class 40;
 * a lock wait timeout (1205) with {@code innodb_rollback_on_timeout=OFF}, the server's default,
 * rolls back only the statement. {@link MariaDbRollbackOnTimeoutTest} covers {@code ON}.
 */
@TestDatabase(TestDatabase.Kind.MARIADB)
class MariaDbTransactionStateTest extends TransactionStateContract {

    private final DataSource database;

    MariaDbTransactionStateTest(DataSource database) {
        this.database = database;
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
        return deadlock(connection, other);
    }

    /**
     * A deadlock whose victim is {@code connection}: InnoDB rolls back the transaction that changed
     * fewer rows, and {@code other} changes many more.
     */
    static SQLException deadlock(Connection connection, Connection other) throws Exception {
        probe(connection, 7);
        execute(connection, "UPDATE tx_locked SET v = 1 WHERE id = 1");
        other.setAutoCommit(false);
        for (int id = 100; id < 140; id++) {
            probe(other, id);
        }
        execute(other, "UPDATE tx_locked SET v = 2 WHERE id = 2");
        java.util.concurrent.ExecutorService thread = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            Future<SQLException> victim = thread.submit(() -> {
                try {
                    execute(connection, "UPDATE tx_locked SET v = 1 WHERE id = 2");
                    return null;
                } catch (SQLException e) {
                    return e;
                }
            });
            Thread.sleep(300);
            execute(other, "UPDATE tx_locked SET v = 2 WHERE id = 1");
            SQLException deadlock = failure(victim);
            other.rollback();
            return deadlock;
        } finally {
            thread.shutdownNow();
        }
    }

    @Test
    void aLockWaitTimeoutWithoutRollbackOnTimeoutKeepsTheTransaction() throws Exception {
        FencedConnection connection = fenced();
        connection.setAutoCommit(false);
        execute(connection, "SET SESSION innodb_lock_wait_timeout = 1");
        probe(connection, 7);
        Connection other = plain();
        other.setAutoCommit(false);
        execute(other, "UPDATE tx_locked SET v = 2 WHERE id = 1");
        SQLException timeout = thrown(() -> execute(connection, "UPDATE tx_locked SET v = 1 WHERE id = 1"));
        assertThat(timeout.getErrorCode()).isEqualTo(1205);
        other.rollback();
        assertThat(endsSeen()).isEmpty();
        connection.commit();
        assertThat(durableProbes()).containsExactly(7);
    }
}
