package dev.fencing.internal.txn;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The transaction the driver opens around one auto-commit statement whose check must share a
 * transaction with it (the epoch guard's check, the database guard's transaction-local fence):
 * auto-commit off before it, then committed after it (rolled back after a failure) and auto-commit
 * on again, the end told to the connection's {@link TransactionState}.
 */
public final class ShortTransaction {

    private ShortTransaction() {
    }

    /** Opens one on {@code database}, which is in auto-commit with no transaction open. */
    public static void open(Connection database) throws SQLException {
        database.setAutoCommit(false);
    }

    /**
     * Ends the short transaction: commits it when {@code failure} is null (rolled back when the
     * commit fails), else rolls it back; turns auto-commit on again in any case. Throws the first
     * problem met, the others suppressed in it.
     */
    public static void end(Connection database, TransactionState transaction, Throwable failure) throws SQLException {
        SQLException problem = null;
        boolean committed = false;
        boolean rolledBack = false;
        try {
            if (failure == null) {
                database.commit();
                committed = true;
            } else {
                database.rollback();
                rolledBack = true;
            }
        } catch (SQLException e) {
            problem = e;
            if (failure == null) {
                try {
                    database.rollback();
                    rolledBack = true;
                } catch (SQLException again) {
                    e.addSuppressed(again);
                }
            }
        } finally {
            if (committed) {
                transaction.afterCommit(true);
            } else {
                transaction.afterRollback(rolledBack);
            }
            try {
                database.setAutoCommit(true);
            } catch (SQLException e) {
                if (problem == null) {
                    problem = e;
                } else {
                    problem.addSuppressed(e);
                }
            }
        }
        if (problem != null) {
            throw problem;
        }
    }
}
