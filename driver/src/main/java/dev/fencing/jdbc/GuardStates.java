package dev.fencing.jdbc;

import dev.fencing.FencingConfig;
import dev.fencing.FencingException;
import dev.fencing.guard.Guards;
import dev.fencing.sql.Dialect;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Whether the database behind a connection carries the current guard, checked at the first
 * connection to it ({@code fencing.database-guard=required}) and remembered per database (URL and
 * user) and configuration. A failed check is remembered too: every fenced write on such a
 * database fails closed until the guard is installed ({@link DatabaseGuard#install} in this JVM
 * forgets the results; another process's install is seen by connections of a new data source).
 */
final class GuardStates {

    /** The outcome of one check: null when the guard is current, else why every fenced write is refused. */
    record State(String refusal) {
        FencingException refuse(String table) {
            return new FencingException("fenced table " + table + " cannot be written: " + refusal + " Nothing was sent.");
        }
    }

    private static final Map<String, State> STATES = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, State> eldest) {
            return size() > 64;
        }
    };

    private GuardStates() {
    }

    static State of(Connection database, Dialect dialect, FencingConfig config) {
        String key;
        try {
            DatabaseMetaData meta = database.getMetaData();
            key = meta.getURL() + "\u0000" + meta.getUserName() + "\u0000" + config;
        } catch (SQLException | RuntimeException e) {
            return check(database, dialect, config);
        }
        synchronized (STATES) {
            State known = STATES.get(key);
            if (known != null) {
                return known;
            }
        }
        State checked = check(database, dialect, config);
        synchronized (STATES) {
            STATES.put(key, checked);
        }
        return checked;
    }

    private static State check(Connection database, Dialect dialect, FencingConfig config) {
        try {
            boolean autoCommit = database.getAutoCommit();
            List<String> problems;
            try {
                problems = Guards.problems(database, dialect, config);
            } finally {
                if (!autoCommit) {
                    database.rollback();
                }
            }
            return new State(problems.isEmpty() ? null : FencingConfig.DATABASE_GUARD + "=required, but the database"
                    + " guard is missing or outdated: " + String.join("; ", problems) + ". Install it with"
                    + " DatabaseGuard.install(..) or the CLI's `guard .. install`.");
        } catch (SQLException | RuntimeException e) {
            return new State(FencingConfig.DATABASE_GUARD + "=required, but the database guard could not be verified ("
                    + e + ").");
        }
    }

    static void forget() {
        synchronized (STATES) {
            STATES.clear();
        }
    }
}
