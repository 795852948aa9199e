package dev.fencing.internal.jdbc;

import java.sql.Statement;

/**
 * A plain statement whose texts carry the fence check. Each text given to {@code execute*} or
 * {@code addBatch} is planned (from the analyzer's cache) and walks the connection's
 * {@link Pipeline}: texts that write no fenced table are sent unchanged; refused texts, and fenced
 * writes with no fence in scope, are refused before anything is sent; fenced writes are sent with
 * the admitted fence rendered into the text. The pass-through methods are generated
 * ({@link StatementDelegate}); what the generator refuses to pass through is the
 * {@link StatementCore}'s.
 */
final class FencedStatement extends StatementDelegate {

    FencedStatement(FencedConnection connection, Statement delegate) {
        super(delegate, new StatementCore(connection, delegate));
        core.ownedBy(this);
    }

    @Override
    public String toString() {
        return core.toString();
    }
}
