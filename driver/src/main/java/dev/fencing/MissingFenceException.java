package dev.fencing;

import dev.fencing.internal.fence.FenceHolders;

/**
 * A write to a fenced table was attempted with no fence in scope (SQLState {@code ZF002}).
 * Nothing was sent to the database. Open a scope with {@link Fence#enter(long)} (or run the
 * write under a lease) around the write.
 */
public class MissingFenceException extends FencingException {

    private static final long serialVersionUID = 1L;

    /** SQLState of a write refused for lack of a fence. */
    public static final String SQL_STATE = "ZF002";

    private final String table;

    public MissingFenceException(String table) {
        this(table, noFenceOnThisThread(table));
    }

    public MissingFenceException(String table, String message) {
        super(message, SQL_STATE, null);
        this.table = table;
    }

    /**
     * The message of a write refused on this thread: it names the thread and the threads that hold
     * a fence at that moment (with their locks), since the usual cause is work a lock holder handed
     * to another thread, and says how to hand the fence over.
     */
    private static String noFenceOnThisThread(String table) {
        return "no fence in scope on thread '" + Thread.currentThread().getName() + "' for a write to fenced table "
                + table + "; nothing was sent. " + FenceHolders.heldElsewhere()
                + "A fence belongs to the thread that entered it: run the write inside"
                + " Fence.enter(token) (or a lease's scope) on this thread; work a lock holder hands to other threads"
                + " (a new thread, an executor, CompletableFuture, a parallel stream) carries the fence only when"
                + " passed deliberately: Fence.wrap(task), or with Spring Boot the starter's FencingTaskDecorator.";
    }

    /** The fenced table the refused write was aimed at. */
    public String table() {
        return table;
    }
}
