package dev.fencing;

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
     * The message of a write refused on this thread: it names the thread, since the usual cause is
     * work handed from a lock holder to another thread. (Which other thread holds a fence is not
     * tracked: under the agent {@link Fence} lives on the bootstrap class path, and a registry of
     * every open scope would cost every scope for the sake of a message.)
     */
    private static String noFenceOnThisThread(String table) {
        return "no fence in scope on thread '" + Thread.currentThread().getName() + "' for a write to fenced table "
                + table + "; nothing was sent. A fence belongs to the thread that entered it: run the write inside"
                + " Fence.enter(token) (or a lease's scope) on this thread; work a lock holder hands to other threads"
                + " (a new thread, an executor, CompletableFuture, a parallel stream) carries the fence only when"
                + " passed deliberately: Fence.wrap(task), or with Spring Boot the starter's FencingTaskDecorator.";
    }

    /** The fenced table the refused write was aimed at. */
    public String table() {
        return table;
    }
}
