package dev.fencing.guard;

import dev.fencing.sql.Dialect;

import java.util.Locale;

/**
 * Texts an application has no business sending when the database guard is required: they name
 * the session variables the triggers trust, the guard's triggers and functions, or PostgreSQL's
 * {@code session_replication_role} (which switches ordinary triggers off), or call
 * {@code set_config}. A best effort against accidents and misuse through the driver: a client
 * that builds such a text the driver cannot read (or connects around the driver) with the
 * application's credentials is outside the guard's threat model.
 */
public final class GuardTexts {

    private static final String[] NAMES = {"fencing.fence", "fencing.lock", "fencing.migration", "fencing_fence",
            "fencing_lock", "fencing_migration", "fencing_guard", "session_replication_role"};

    private GuardTexts() {
    }

    public static boolean touchesGuard(String sql, Dialect dialect) {
        if (sql.indexOf('f') < 0 && sql.indexOf('F') < 0 && sql.indexOf('s') < 0 && sql.indexOf('S') < 0) {
            return false;
        }
        String lower = sql.toLowerCase(Locale.ROOT);
        for (String name : NAMES) {
            if (lower.contains(name)) {
                return true;
            }
        }
        return dialect == Dialect.POSTGRESQL && lower.contains("set_config");
    }
}
