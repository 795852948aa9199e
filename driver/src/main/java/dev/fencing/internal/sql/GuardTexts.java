package dev.fencing.internal.sql;

/**
 * Texts an application has no business sending when the database guard is required: they name
 * the session variables the triggers trust, the guard's triggers and functions, or PostgreSQL's
 * {@code session_replication_role} (which switches ordinary triggers off), or call
 * {@code set_config}. A best effort against accidents and misuse through the driver: a client
 * that builds such a text the driver cannot read (or connects around the driver) with the
 * application's credentials is outside the guard's threat model.
 */
final class GuardTexts {

    private static final String[] NAMES = {"fencing.fence", "fencing.lock", "fencing.migration", "fencing_fence",
            "fencing_lock", "fencing_migration", "fencing_guard", "session_replication_role"};

    private GuardTexts() {
    }

    /** True when {@code sql} names one of them, in any case; allocation-free (it runs before every statement). */
    static boolean touchesGuard(String sql, Dialect dialect) {
        int n = sql.length();
        for (int i = 0; i < n; i++) {
            char c = sql.charAt(i);
            if (c == 'f' || c == 'F') {
                for (String name : NAMES) {
                    if (name.charAt(0) == 'f' && sql.regionMatches(true, i, name, 0, name.length())) {
                        return true;
                    }
                }
                if (quotedSetting(sql, i)) {
                    return true;
                }
            } else if (c == 's' || c == 'S') {
                if (sql.regionMatches(true, i, "session_replication_role", 0, 24)
                        || dialect.hasSetConfig() && sql.regionMatches(true, i, "set_config", 0, 10)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** {@code "fencing"."fence"} and the like: the setting's name with its parts quoted. */
    private static boolean quotedSetting(String sql, int at) {
        if (!sql.regionMatches(true, at, "fencing", 0, 7)) {
            return false;
        }
        int i = at + 7;
        if (i < sql.length() && (sql.charAt(i) == '"' || sql.charAt(i) == '`')) {
            i++;
        }
        if (i >= sql.length() || sql.charAt(i) != '.') {
            return false;
        }
        i++;
        if (i < sql.length() && (sql.charAt(i) == '"' || sql.charAt(i) == '`')) {
            i++;
        }
        return sql.regionMatches(true, i, "fence", 0, 5) || sql.regionMatches(true, i, "lock", 0, 4)
                || sql.regionMatches(true, i, "migration", 0, 9);
    }
}
