package dev.fencing.internal.guard;

import dev.fencing.internal.txn.TransactionState;
import dev.fencing.internal.txn.TransactionText;
import dev.fencing.internal.sql.Dialect;
import dev.fencing.internal.sql.FencePlan;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * <b>Extension point</b>: a step the pipeline runs around <em>every</em> statement sent on a
 * fenced connection: reads, writes, texts the analyzer refused to look into, every execute path
 * (plain, prepared, callable, batches, rows written back), and before every prepare. It receives
 * the fence admitted for that statement, read once from the thread by {@code Pipeline.admit}, so
 * it never reads {@link dev.fencing.Fence} itself. Meant for the database guard: hand the triggers
 * the statement's fence and lock, so that nothing it sets outlives the statement's transaction or
 * the connection ({@link #release}).
 *
 * <p>One instance per connection, made by the {@link Factory} that
 * {@code ConnectionContext.sendHookFactory(config)} chooses for the
 * configuration; used by one thread at a time, like the connection. A value it caches per
 * transaction must be checked against the {@link TransactionState} it was given.
 * Whatever it throws refuses the statement: nothing is sent.
 */
public interface SendHook {

    /**
     * Before a statement is sent, knowing what it is: the plan (null for a row written back), the
     * fenced table it writes, and what its text does to the transaction.
     *
     * @param fence the fence in scope on the calling thread, 0 when none
     * @param lock  the lock that fence belongs to, null when none was named
     */
    void beforeSend(FencePlan plan, String fencedTable, TransactionText.Effect effect, long fence, String lock)
            throws SQLException;

    /**
     * Before a batch is sent: {@code fencedTables} are the fenced tables its entries write (empty:
     * none); {@code everyEntryCarriesItsFence} when each entry's own text hands the fence it was
     * added under to the guard's trigger; {@code everyEntryAddedUnderTheFence} when every entry was
     * added under {@code fence}, the one in scope now. By default
     * {@link #beforeSend(FencePlan, String, TransactionText.Effect, long, String)} without a plan.
     */
    default void beforeBatch(java.util.Set<String> fencedTables, boolean everyEntryCarriesItsFence,
                             boolean everyEntryAddedUnderTheFence, long fence, String lock) throws SQLException {
        beforeSend(null, fencedTables.isEmpty() ? null : fencedTables.iterator().next(), TransactionText.Effect.NONE,
                fence, lock);
    }

    /** Before a text is prepared (nothing runs yet): refuses what must not be prepared. */
    default void beforePrepare(FencePlan plan) throws SQLException {
    }

    /** After the statement (or batch, or row written back) that {@code beforeSend} prepared for succeeded. */
    default void afterSend() throws SQLException {
    }

    /** After it failed (or was refused after {@code beforeSend}): before {@link #translate}. */
    default void afterFailure(Throwable failure) {
    }

    /**
     * Before the connection leaves the driver (closed): nothing the hook set may stay with it. When
     * that cannot be made sure, the hook aborts {@code connection} (the driver's connection, so a pool
     * never hands it out again) and throws.
     */
    default void release(Connection connection) throws SQLException {
    }

    /**
     * The connection was aborted (nothing can be sent on it): when a value the hook set may live on
     * in its session, the hook ends that session for sure.
     */
    default void abandon(Connection connection) {
    }

    /**
     * After a statement failed: the exception the application should get instead of
     * {@code failure}, or null to rethrow {@code failure} (the default).
     */
    default SQLException translate(Throwable failure) {
        return null;
    }

    /** Makes the hook of one connection; what it throws fails the connection (which is closed). */
    @FunctionalInterface
    interface Factory {
        /**
         * @param database    the driver's connection (statements sent on it are not analysed)
         * @param dialect     its dialect
         * @param transaction what the driver knows of its transaction
         */
        SendHook forConnection(Connection database, Dialect dialect, TransactionState transaction) throws SQLException;
    }
}
