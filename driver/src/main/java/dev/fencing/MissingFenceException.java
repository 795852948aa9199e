package dev.fencing;

import java.util.List;
import java.util.stream.Collectors;

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
     * The message of a write refused on this thread: it names the thread, and the threads that have
     * a fence in scope now, since the usual cause is work handed from a lock holder to another thread.
     */
    private static String noFenceOnThisThread(String table) {
        StringBuilder message = new StringBuilder("no fence in scope on thread '").append(Thread.currentThread().getName())
                .append("' for a write to fenced table ").append(table).append("; nothing was sent. ");
        List<String> others = Fence.otherThreadsInScope(3);
        if (!others.isEmpty()) {
            message.append("A fence is in scope on ").append(others.size() == 1 ? "thread " : "threads ")
                    .append(others.stream().map(name -> "'" + name + "'").collect(Collectors.joining(", ")))
                    .append(", not on this one. ");
        }
        return message.append("A fence belongs to the thread that entered it: run the write inside Fence.enter(token)"
                + " (or a lease's scope) on this thread, and hand work to other threads (a new thread, an executor,"
                + " CompletableFuture, a parallel stream) with the fence passed deliberately: Fence.wrap(task), or"
                + " with Spring Boot the starter's FencingTaskDecorator.").toString();
    }

    /** The fenced table the refused write was aimed at. */
    public String table() {
        return table;
    }
}
