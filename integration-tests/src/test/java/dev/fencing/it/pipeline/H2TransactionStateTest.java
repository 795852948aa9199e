package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.internal.txn.TransactionState;
import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Future;

/** {@link TransactionState} on H2: DDL commits implicitly; a deadlock is class 40. */
class H2TransactionStateTest extends TransactionStateContract {

    private static final DataSource DATABASE = H2.database();

    @Override
    DataSource raw() {
        return DATABASE;
    }

    @Override
    String releaseSavepointText(String name) {
        return null;   // H2 has no RELEASE SAVEPOINT
    }

    @Override
    boolean ddlCommitsImplicitly() {
        return true;
    }

    @Override
    SQLException classFortyError(Connection connection, Connection other) throws Exception {
        // H2 makes the newest transaction of the cycle its victim: the other one starts first
        other.setAutoCommit(false);
        execute(other, "UPDATE tx_locked SET v = 2 WHERE id = 2");
        probe(connection, 7);
        execute(connection, "UPDATE tx_locked SET v = 1 WHERE id = 1");
        Future<SQLException> victim = inThread(connection, "UPDATE tx_locked SET v = 1 WHERE id = 2");
        Thread.sleep(300);
        execute(other, "UPDATE tx_locked SET v = 2 WHERE id = 1");
        SQLException deadlock = failure(victim);
        other.rollback();
        return deadlock;
    }
}
