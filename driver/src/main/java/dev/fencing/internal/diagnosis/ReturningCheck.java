package dev.fencing.internal.diagnosis;

import dev.fencing.internal.sql.FencePlan;

import java.sql.SQLException;

/**
 * The zero-row check of a fenced write that returns rows ({@code RETURNING}): its result set
 * runs it when {@code next()} first reports the end, with the number of rows it returned.
 *
 * @param values the application's values at execution (a copy), or null
 */
public record ReturningCheck(DiagnosedConnection connection, FencePlan plan, long fence, Object[] values) {

    public void afterRows(long rows) throws SQLException {
        ZeroRowDiagnosis.afterWrite(connection, plan, fence, rows, values);
    }
}
