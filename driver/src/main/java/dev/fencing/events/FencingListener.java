package dev.fencing.events;

/**
 * Hears what fencing-jdbc does with each statement: for metrics, never for control. Register one
 * per data source ({@code FencingDataSource.addListener}) or process-wide for the connections of
 * the {@code jdbc:fencing:} driver and the agent ({@code FencingDriver.addListener}).
 *
 * <p>Called on the thread that runs the statement, synchronously, after the fact; every method
 * has an empty default so a listener implements only what it counts. A listener must be fast and
 * must not throw: what it throws is caught and dropped (the statement's outcome is never changed
 * by a listener), and it must not use the connection it hears about. With no listener registered
 * nothing is called and nothing is allocated for events.
 *
 * <p>The counts are of statements as the application executes them: a batch counts each entry
 * once, when it is added.
 */
public interface FencingListener {

    /** A write to fenced table {@code table} is being sent with the fence check. */
    default void statementFenced(String table) {
    }

    /** A statement that writes no fenced table is being sent unchanged. */
    default void statementPassedThrough() {
    }

    /** A statement was refused before anything was sent. */
    default void statementRefused(Refusal kind, String table) {
    }

    /** The fence check rejected a write: its fence is older than one already applied. */
    default void writeRejected(Rejection kind, String table) {
    }

    /**
     * A text was planned: {@code nanos} it took, {@code cacheHit} when no analysis was needed (the
     * plan came from the cache, or the pre-filter passed a text that names no fenced table without
     * analysing it), and how many plans the cache holds now (the hit ratio is the share of
     * {@code cacheHit}). Under concurrency a hit may be reported as a miss when another thread
     * analysed a text at the same moment.
     */
    default void statementPlanned(long nanos, boolean cacheHit, int cachedPlans) {
    }
}
