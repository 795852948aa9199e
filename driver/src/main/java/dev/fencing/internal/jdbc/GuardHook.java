package dev.fencing.internal.jdbc;

import dev.fencing.FencingConfig;
import dev.fencing.FencingException;
import dev.fencing.internal.guard.GuardErrors;
import dev.fencing.internal.guard.SessionFence;
import dev.fencing.internal.sql.Dialect;
import dev.fencing.internal.sql.FencePlan;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The database guard's step of the pipeline ({@code fencing.database-guard=required}): before any
 * statement is sent it refuses what relies on the guard where the guard is missing or outdated
 * (fenced writes, and the forms the analyzer lets through only because the triggers check them),
 * then keeps the session's fence equal to the admitted one ({@link SessionFence}). After a failure
 * it turns the triggers' {@code ZF001}/{@code ZF002} into {@link dev.fencing.StaleFenceException} /
 * {@link dev.fencing.MissingFenceException}.
 */
final class GuardHook implements SendHook {

    /** The guard's check of this database (null refusal: current). */
    private final GuardStates.State state;
    /** Null when the database is none the guard supports. */
    private final SessionFence session;

    private GuardHook(GuardStates.State state, SessionFence session) {
        this.state = state;
        this.session = session;
    }

    static GuardHook of(Connection database, Dialect dialect, TransactionState transaction, FencingConfig config) {
        try {
            SessionFence session = SessionFence.of(database, dialect, transaction::undoGeneration);
            return new GuardHook(GuardStates.of(database, dialect, config), session);
        } catch (FencingException unsupported) {
            return new GuardHook(new GuardStates.State(unsupported.getMessage()), null);
        }
    }

    /** True when the guard is verified here: the database checks every write itself. */
    boolean holds() {
        return state.refusal() == null && session != null;
    }

    @Override
    public void beforeSend(long fence, String lock) throws SQLException {
        beforeSend(null, null, TransactionText.Effect.NONE, fence, lock);
    }

    @Override
    public void beforeSend(FencePlan plan, String fencedTable, TransactionText.Effect effect, long fence, String lock)
            throws SQLException {
        if (state.refusal() != null && (fencedTable != null || plan != null && plan.checkedByGuard())) {
            throw state.refuse(fencedTable != null ? fencedTable
                    : plan.fencedTable() != null ? plan.fencedTable() : "(any, through a procedure call)");
        }
        if (session != null) {
            session.sync(fence, lock, effect == TransactionText.Effect.ROLLBACK
                    || effect == TransactionText.Effect.ROLLBACK_TO_SAVEPOINT);
        }
    }

    @Override
    public SQLException translate(Throwable failure) {
        SQLException mapped = GuardErrors.translate(failure);
        if (mapped != null && session != null) {
            session.unsure();
        }
        return mapped;
    }
}
