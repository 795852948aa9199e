package dev.fencing;

import java.sql.SQLException;

/**
 * Base class of every error fencing-jdbc raises on its own account.
 *
 * <p>All SQLStates are in the implementation-defined class {@code ZF}, so that connection pools
 * never mistake a fencing rejection for a broken connection (class {@code 08}, {@code 0A000})
 * and retry loops never mistake it for a serialization failure ({@code 40001}, {@code 40P01}).
 *
 * <table>
 *   <caption>SQLStates</caption>
 *   <tr><td>{@code ZF001}</td><td>{@link StaleFenceException}</td></tr>
 *   <tr><td>{@code ZF002}</td><td>{@link MissingFenceException}</td></tr>
 *   <tr><td>{@code ZF003}</td><td>{@link UnfenceableStatementException}</td></tr>
 *   <tr><td>{@code ZF000}</td><td>any other fencing failure (for example an unusable configuration)</td></tr>
 * </table>
 */
public class FencingException extends SQLException {

    private static final long serialVersionUID = 1L;

    /** SQLState of fencing failures without a more specific class. */
    public static final String SQL_STATE = "ZF000";

    public FencingException(String message) {
        this(message, SQL_STATE, null);
    }

    public FencingException(String message, Throwable cause) {
        this(message, SQL_STATE, cause);
    }

    protected FencingException(String message, String sqlState, Throwable cause) {
        super(message, sqlState, 0, cause);
    }
}
