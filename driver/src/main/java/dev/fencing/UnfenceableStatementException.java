package dev.fencing;

/**
 * A statement would change a fenced table but cannot carry the fence check (SQLState
 * {@code ZF003}): TRUNCATE, COPY, MERGE, a write through an updatable ResultSet, a statement
 * that sets the fence column itself, SQL the analyzer cannot parse, and the other forms listed
 * in the README. Nothing was sent to the database. The message says why and what to do.
 */
public class UnfenceableStatementException extends FencingException {

    private static final long serialVersionUID = 1L;

    /** SQLState of a statement refused because it cannot carry the check. */
    public static final String SQL_STATE = "ZF003";

    private final String table;

    public UnfenceableStatementException(String table, String message) {
        this(table, message, null);
    }

    public UnfenceableStatementException(String table, String message, Throwable cause) {
        super(message, SQL_STATE, cause);
        this.table = table;
    }

    /** The fenced table concerned, or {@code null} when the statement could not be read at all. */
    public String table() {
        return table;
    }
}
