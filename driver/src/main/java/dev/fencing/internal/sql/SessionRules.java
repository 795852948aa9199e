package dev.fencing.internal.sql;

import java.sql.SQLException;

/**
 * What the connection must know of how a database's session and transactions behave: how an
 * error ends a transaction, how to ask whether one is open, how the JDBC driver reports itself.
 * Each answer here is the standard one (or none); {@link Dialect}'s constants override what
 * differs.
 */
public interface SessionRules {

    /**
     * True when an error inside a transaction block fails the whole transaction, so that a later
     * COMMIT rolls back (PostgreSQL).
     */
    default boolean errorFailsTheTransaction() {
        return false;
    }

    /**
     * True when {@code failure} is a lock wait timeout after which the server may have rolled the
     * transaction back, depending on its settings (MariaDB's 1205, {@code innodb_rollback_on_timeout}).
     */
    default boolean isLockWaitTimeout(SQLException failure) {
        return false;
    }

    /** The query that answers whether a transaction is open on the session; null where there is none. */
    default String inTransactionQuery() {
        return null;
    }

    /** True when a savepoint outside a transaction block is an error, so one asks whether a transaction is open (PostgreSQL). */
    default boolean savepointProbesTheTransaction() {
        return false;
    }

    /** True when {@code getAutoCommit()} turns false for a transaction a text began, so nothing else need be asked (H2). */
    default boolean autoCommitReportsTextTransactions() {
        return false;
    }

    /**
     * True when the JDBC driver may be pgjdbc, whose session reports the client encoding and
     * whether it writes values into the text (PostgreSQL); else the server is asked, and values
     * are taken to be written into the text.
     */
    default boolean driverMayReportItsSession() {
        return false;
    }

    /**
     * The statement that marks the session as migrating, binding the reason, for the database
     * guard's triggers; null where the mark is set inside the migration's transaction instead
     * (PostgreSQL's {@code set_config(.., true)}).
     */
    default String sessionMigrationMark() {
        return null;
    }
}
