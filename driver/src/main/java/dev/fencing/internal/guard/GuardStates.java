package dev.fencing.internal.guard;


import dev.fencing.FencingConfig;
import dev.fencing.FencingException;
import dev.fencing.internal.guard.Guards;
import dev.fencing.internal.sql.Dialect;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Whether the database behind a connection carries the current guard, checked at the first
 * connection to it ({@code fencing.database-guard=required}) and remembered per database (URL and
 * user) and configuration, for connections opened in the next minute (a failed check: the next
 * five seconds, so that an install by another process is seen soon). While a failed check holds,
 * every fenced write fails closed. {@code DatabaseGuard.install} and {@code remove} in this JVM
 * forget every result at once.
 */
public final class GuardStates {

    /**
     * The outcome of one check: {@code refusal} null when the guard is current, else why every
     * fenced write is refused; {@code codeFirst}, the guarded tables (lower case, unqualified) whose
     * writes run code of their own before their first row (PostgreSQL: BEFORE statement triggers,
     * rules), to which a spliced write's own text hands the fence too late.
     */
    public record State(String refusal, long checkedAtNanos, java.util.Set<String> codeFirst) {

        State(String refusal) {
            this(refusal, System.nanoTime(), java.util.Set.of());
        }

        State(String refusal, java.util.Set<String> codeFirst) {
            this(refusal, System.nanoTime(), codeFirst);
        }

        /** True when writes to {@code fencedTable} (as configured) may run code before their first row. */
        boolean runsCodeFirst(String fencedTable) {
            if (codeFirst.isEmpty() || fencedTable == null) {
                return false;
            }
            String table = fencedTable.substring(fencedTable.lastIndexOf('.') + 1).replace("\"", "")
                    .toLowerCase(java.util.Locale.ROOT);
            return codeFirst.contains(table);
        }

        /** True while a connection opened now may rely on this check. */
        boolean fresh() {
            long age = System.nanoTime() - checkedAtNanos;
            return age < (refusal == null ? RECHECK_CURRENT_NANOS : RECHECK_REFUSED_NANOS);
        }

        FencingException refuse(String table) {
            return new FencingException("fenced table " + table + " cannot be written: " + refusal + " Nothing was sent.");
        }
    }

    private static final long RECHECK_CURRENT_NANOS = 60_000_000_000L;
    private static final long RECHECK_REFUSED_NANOS = 5_000_000_000L;

    private static final Map<String, State> STATES = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, State> eldest) {
            return size() > 64;
        }
    };

    private GuardStates() {
    }

    public static State of(Connection database, Dialect dialect, FencingConfig config) {
        String key;
        try {
            DatabaseMetaData meta = database.getMetaData();
            key = meta.getURL() + "\u0000" + meta.getUserName() + "\u0000" + config;
        } catch (SQLException | RuntimeException e) {
            return check(database, dialect, config);
        }
        synchronized (STATES) {
            State known = STATES.get(key);
            if (known != null && known.fresh()) {
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
            java.util.Set<String> codeFirst;
            try {
                problems = Guards.problems(database, dialect, config);
                codeFirst = problems.isEmpty() ? Guards.runCodeBeforeTheirRows(database, dialect, config) : java.util.Set.of();
            } finally {
                if (!autoCommit) {
                    database.rollback();
                }
            }
            return new State(problems.isEmpty() ? null : FencingConfig.DATABASE_GUARD + "=required, but the database"
                    + " guard is missing or outdated: " + String.join("; ", problems) + ". Install it with"
                    + " DatabaseGuard.install(..) or the CLI's `guard .. install`.", codeFirst);
        } catch (SQLException | RuntimeException e) {
            return new State(FencingConfig.DATABASE_GUARD + "=required, but the database guard could not be verified ("
                    + e + ").");
        }
    }

    public static void forget() {
        synchronized (STATES) {
            STATES.clear();
        }
    }
}
