package dev.fencing.events;

/**
 * Hears what fencing-jdbc does with each statement: for metrics, never for control. Register one
 * per data source ({@code FencingDataSource.addListener}) or process-wide for the connections of
 * the {@code jdbc:fencing:} driver and the agent ({@code FencingDriver.addListener}).
 *
 * <p>Each method receives a context object ({@link StatementEvent}, {@link PlanningEvent}), as
 * jOOQ's {@code ExecuteListener} receives its {@code ExecuteContext}, so that an event can gain a
 * fact without a new method. Called on the thread that runs the statement, synchronously, after
 * the fact; every method has an empty default so a listener implements only what it counts. A listener must be fast and
 * must not throw: what it throws is caught and dropped (the statement's outcome is never changed
 * by a listener), and it must not use the connection it hears about. With no listener registered
 * nothing is called and nothing is allocated for events.
 *
 * <p>The counts are of statements as the application executes them: a batch counts each entry
 * once, when it is added.
 */
public interface FencingListener {

    /** A write to a fenced table ({@link StatementEvent#table()}) is being sent with the fence check. */
    default void statementFenced(StatementEvent event) {
    }

    /** A statement that writes no fenced table is being sent unchanged. */
    default void statementPassedThrough(StatementEvent event) {
    }

    /** A statement was refused before anything was sent ({@link StatementEvent#refusal()}). */
    default void statementRefused(StatementEvent event) {
    }

    /**
     * The fence check rejected a write ({@link StatementEvent#rejection()}): its fence is older than
     * one already applied.
     */
    default void writeRejected(StatementEvent event) {
    }

    /** A text was planned: how long it took and whether the cache answered ({@link PlanningEvent}). */
    default void statementPlanned(PlanningEvent event) {
    }
}
