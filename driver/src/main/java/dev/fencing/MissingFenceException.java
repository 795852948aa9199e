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
        this(table, "no fence in scope for a write to fenced table " + table
                + "; nothing was sent. Run the write inside Fence.enter(token) (or a lease's scope).");
    }

    public MissingFenceException(String table, String message) {
        super(message, SQL_STATE, null);
        this.table = table;
    }

    /** The fenced table the refused write was aimed at. */
    public String table() {
        return table;
    }
}
