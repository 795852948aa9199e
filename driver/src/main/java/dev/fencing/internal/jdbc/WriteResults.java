package dev.fencing.internal.jdbc;

import dev.fencing.internal.diagnosis.DiagnosedConnection;
import dev.fencing.internal.diagnosis.ReturningCheck;
import dev.fencing.internal.diagnosis.ZeroRowDiagnosis;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Step 4 of the {@link Pipeline}: what it makes of the driver's answer to a fenced write before
 * settling. A count is diagnosed now ({@link ZeroRowDiagnosis}: was the fence the reason no row
 * changed?); rows returned by the write are diagnosed when they have been read to the end (the
 * count is theirs), or now when the count cannot tell. The diagnosis reaches the database only
 * through the pipeline, as a {@link DiagnosedConnection}.
 */
final class WriteResults {

    private WriteResults() {
    }

    /** The update count of the execution just done, after the zero-row check of a fenced write. */
    static long counted(DiagnosedConnection connection, Execution e, long count) throws SQLException {
        if (e.fenced()) {
            ZeroRowDiagnosis.afterWrite(connection, e.plan, e.fence, count, e.values);
        }
        return count;
    }

    /** The result of {@code execute}: checks an update count now, a result set's rows when they are read. */
    static boolean executed(DiagnosedConnection connection, Execution e, boolean resultSet, Statement delegate)
            throws SQLException {
        if (e.fenced()) {
            if (resultSet && ZeroRowDiagnosis.readsWhateverTheCount(e.plan)) {
                ZeroRowDiagnosis.afterWrite(connection, e.plan, e.fence, -1, e.values);
            } else if (resultSet) {
                e.pendingCheck = returningCheck(connection, e);
            } else {
                counted(connection, e, delegate.getUpdateCount());
            }
        }
        return resultSet;
    }

    /**
     * The check of a fenced write that returned {@code rows}: run when the rows are read to the end
     * (the count is theirs), or now when the count cannot tell ({@link ZeroRowDiagnosis#readsWhateverTheCount}),
     * so that reading only some rows (the one row of {@code WITH u AS (UPDATE ..) SELECT count(*) ..})
     * still tells a stale holder; the rows are closed when it throws.
     */
    static ReturningCheck rowsCheck(DiagnosedConnection connection, Execution e, ResultSet rows) throws SQLException {
        if (!ZeroRowDiagnosis.readsWhateverTheCount(e.plan)) {
            return returningCheck(connection, e);
        }
        try {
            ZeroRowDiagnosis.afterWrite(connection, e.plan, e.fence, -1, e.values);
        } catch (SQLException | RuntimeException failure) {
            try {
                rows.close();
            } catch (SQLException suppressed) {
                failure.addSuppressed(suppressed);
            }
            throw failure;
        }
        return null;
    }

    private static ReturningCheck returningCheck(DiagnosedConnection connection, Execution e) {
        return new ReturningCheck(connection, e.plan, e.fence, e.values == null ? null : e.values.clone());
    }
}
