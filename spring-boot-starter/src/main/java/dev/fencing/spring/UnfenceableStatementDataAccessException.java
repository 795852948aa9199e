package dev.fencing.spring;

import java.sql.SQLException;

/**
 * SQLState {@code ZF003}: the statement would change a fenced table but cannot carry the fence
 * check (TRUNCATE, COPY, a statement that sets the fence column itself, SQL that cannot be
 * parsed...). Nothing was sent to the database.
 */
public class UnfenceableStatementDataAccessException extends FencingDataAccessException {

    public UnfenceableStatementDataAccessException(String message, String table, SQLException cause) {
        super(message, table, cause);
    }
}
