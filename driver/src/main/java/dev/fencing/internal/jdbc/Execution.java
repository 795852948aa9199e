package dev.fencing.internal.jdbc;

import dev.fencing.internal.txn.TransactionText;
import dev.fencing.internal.diagnosis.ReturningCheck;
import dev.fencing.internal.sql.FencePlan;

/**
 * What {@link Pipeline#admit} decided for one execution, handed to every later step: the plan,
 * the fence (read once from the thread) and the lock it belongs to, the application's values, and
 * what the text does to the transaction. Later it also holds the execution's results that are read
 * after it returned (the pending zero-row check of a fenced write that returns rows, the last
 * result set).
 *
 * <p>Filled again by each execution of a statement (so the hot path allocates nothing for it);
 * what must outlive an execution (a batch entry, a returning check) is copied. Package-private
 * fields, like a record's components, read by the pipeline and the wrappers.
 *
 * <p>A statement's {@link StatementCore} is its execution (it extends this class instead of holding
 * one: as a field it cost every prepared statement a second object, +40 B and about +20 % on the
 * wrapper benchmark's prepare-and-execute). The pipeline's steps see only an {@code Execution}; a
 * prepare, which has no statement yet, uses one of its own.
 */
class Execution {

    FencePlan plan;
    /** The fence the statement carries; 0 when none was in scope. */
    long fence;
    /** The lock the fence belongs to; null when none was named (or the fence was not needed). */
    String lock;
    /** The application's values (prepared statements whose diagnosis needs them), else null. */
    Object[] values;
    TransactionText.Effect effect = TransactionText.Effect.NONE;

    /** The zero-row check waiting for the result set of a fenced write that returned rows. */
    ReturningCheck pendingCheck;
    FencedResultSet lastResult;

    /** True when {@link #plan} is a fenced write (decided by admission, read by every later step). */
    boolean fenced;

    boolean fenced() {
        return fenced;
    }
}
