package dev.fencing.internal.jdbc;

import dev.fencing.internal.sql.FencePlan;

import java.sql.PreparedStatement;

/**
 * A prepared statement planned once, at prepare time: the driver prepared the plan's text, with
 * the fence check spliced in. The application keeps its own parameter indexes, which are mapped
 * to the database's by {@link StatementCore#parameterIndex}; an index outside the application's
 * text is refused, so no setter can reach a fence slot. The fence is bound by the
 * {@link Pipeline} alone, from the fence it admitted, before each execution and each
 * {@code addBatch}.
 *
 * <p>The setters are generated ({@link PreparedStatementDelegate}) and route through the
 * {@link StatementCore}'s hooks; the execute methods are the core's.
 */
final class FencedPreparedStatement extends PreparedStatementDelegate {

    FencedPreparedStatement(FencedConnection connection, FencePlan plan, PreparedStatement statement) {
        super(statement, new StatementCore(connection, plan, statement));
        core.ownedBy(this);
    }

    @Override
    public String toString() {
        return core.toString();
    }
}
