package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.internal.txn.TransactionState;
import dev.fencing.testing.TestDatabase;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;

/** {@link TransactionState} on PostgreSQL: DDL is transactional; a serialization failure is class 40. */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
class PostgresTransactionStateTest extends TransactionStateContract {

    private final DataSource database;

    PostgresTransactionStateTest(DataSource database) {
        this.database = database;
    }

    @Override
    DataSource raw() {
        return database;
    }

    @Override
    boolean ddlCommitsImplicitly() {
        return false;
    }

    @Override
    SQLException classFortyError(Connection connection, Connection other) throws SQLException {
        connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        probe(connection, 7);
        execute(connection, "SELECT v FROM tx_locked WHERE id = 1");
        execute(other, "UPDATE tx_locked SET v = v + 1 WHERE id = 1");
        // could not serialize access due to concurrent update: 40001
        return thrown(() -> execute(connection, "UPDATE tx_locked SET v = 5 WHERE id = 1"));
    }
}
