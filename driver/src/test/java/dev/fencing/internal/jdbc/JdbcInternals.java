package dev.fencing.internal.jdbc;

import dev.fencing.internal.sql.StatementAnalyzer;
import dev.fencing.internal.txn.TransactionState;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The test-only hook through which the proof and contract tests of other modules reach the
 * wrappers' internals: the analyzer and the transaction state of a fenced connection, the raw
 * connection behind it, and the wrapper classes an object must be. It lives in this module's test
 * jar (never in the driver's own), so that those tests sit in packages of their own instead of
 * sharing the driver's.
 */
public final class JdbcInternals {

    /** The wrapper classes, for {@code isInstanceOf} checks. */
    public static final Class<?> FENCED_RESULT_SET = FencedResultSet.class;
    public static final Class<?> FENCED_STATEMENT = FencedStatement.class;
    public static final Class<?> FENCED_DATABASE_META_DATA = FencedDatabaseMetaData.class;
    public static final Class<?> FENCED_BLOB = FencedBlob.class;
    public static final Class<?> FENCED_CLOB = FencedClob.class;
    public static final Class<?> FENCED_ARRAY = FencedArray.class;

    private JdbcInternals() {
    }

    /** The analyzer of a connection that fencing-jdbc handed out. */
    public static StatementAnalyzer analyzer(Connection fenced) {
        return ((FencedConnection) fenced).analyzer();
    }

    /** The transaction state the driver keeps for a connection that fencing-jdbc handed out. */
    public static TransactionState transaction(Connection fenced) {
        return ((FencedConnection) fenced).transaction();
    }

    /** The raw connection behind a fenced one: only tests may write around the front door. */
    public static Connection database(Connection fenced) throws SQLException {
        return ((FencedConnection) fenced).database();
    }
}
