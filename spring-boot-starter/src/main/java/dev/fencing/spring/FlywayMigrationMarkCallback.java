package dev.fencing.spring;

import java.sql.SQLException;
import java.util.logging.Level;
import java.util.logging.Logger;

import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.callback.Callback;
import org.flywaydb.core.api.callback.Context;
import org.flywaydb.core.api.callback.Event;

/**
 * Ends the database guard's migration mark with the migration that set it: after each migration,
 * on the connection it ran on (and inside its transaction, so the clearing commits or rolls back
 * with it), the session-level mark, fence and lock are emptied. A script's session variable
 * (MariaDB, H2) or session-level {@code set_config(.., false)} (PostgreSQL) therefore covers its own
 * script only, never the next migration and never the application's code that gets the pooled
 * connection afterwards. The documented PostgreSQL form, {@code set_config(.., true)}, ends with its
 * transaction by itself.
 *
 * <p>Only the per-migration events: {@code AFTER_MIGRATE} and {@code AFTER_MIGRATE_ERROR} run on an
 * extra "event" connection that Flyway opens just for the callbacks that support them (while it
 * still holds the migration's connection: on a pool of one, start-up would wait for it until the
 * pool's timeout), and that connection is not the one the migrations ran on. What any connection
 * Flyway used holds when it goes back to the pool is handled by {@link MigrationMarks#clearingOnClose}.
 */
final class FlywayMigrationMarkCallback implements Callback {

    private static final Logger LOG = Logger.getLogger(FlywayMigrationMarkCallback.class.getName());

    @Override
    public boolean supports(Event event, Context context) {
        return event == Event.AFTER_EACH_MIGRATE || event == Event.AFTER_EACH_MIGRATE_ERROR;
    }

    @Override
    public boolean canHandleInTransaction(Event event, Context context) {
        return true;
    }

    @Override
    public void handle(Event event, Context context) {
        try {
            MigrationMarks.clear(context.getConnection());
        } catch (SQLException e) {
            if (event == Event.AFTER_EACH_MIGRATE_ERROR) {
                // The migration failed (on PostgreSQL its transaction is aborted and refuses every
                // statement until the rollback, which undoes any mark set in it). Its own error is
                // the one to report; the connection is cleared, or aborted, when Flyway closes it.
                LOG.log(Level.FINE, "could not clear the guard's migration mark after a failed migration; it is"
                        + " cleared when Flyway releases the connection", e);
                return;
            }
            throw new FlywayException("the database guard's migration mark could not be cleared after migration "
                    + describe(context) + ": " + e.getMessage(), e);
        }
    }

    private static String describe(Context context) {
        return context.getMigrationInfo() == null ? "(unknown)" : context.getMigrationInfo().getScript();
    }

    @Override
    public String getCallbackName() {
        return "fencing: clear the database guard's migration mark";
    }
}
