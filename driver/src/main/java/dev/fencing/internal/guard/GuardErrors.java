package dev.fencing.internal.guard;

import dev.fencing.FencingException;
import dev.fencing.MissingFenceException;
import dev.fencing.StaleFenceException;
import dev.fencing.UnfenceableStatementException;
import dev.fencing.internal.fence.FenceHolders;

import java.sql.SQLException;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The texts the guard's triggers raise, and their translation into the driver's exceptions.
 * Every trigger (PL/pgSQL, MariaDB {@code SIGNAL}, the H2 class) raises one of two messages, short
 * enough for MariaDB's 128-character {@code MESSAGE_TEXT}:
 * <ul>
 *   <li>{@code ZF002}: {@code fencing guard: no fence in session for <schema.table>}</li>
 *   <li>{@code ZF001}: {@code fencing guard: stale fence <n> on <schema.table> holding <m>}
 *       ({@code <m>} is {@code unknown} when the epoch row is missing)</li>
 * </ul>
 * Each names the migration path: PostgreSQL in the error's {@code HINT}, MariaDB and H2 after the
 * text in parentheses ({@link #MARIADB_HINT}, {@link #H2_HINT}; on MariaDB cut at 128 characters,
 * the hint first). PostgreSQL's event trigger refuses DDL with {@code ZF004}
 * ({@code fencing guard: DDL refused: ..}).
 */
public final class GuardErrors {

    static final String PREFIX = "fencing guard: ";
    static final String NO_FENCE = PREFIX + "no fence in session for ";
    static final String STALE = PREFIX + "stale fence ";
    static final String TRUNCATE = PREFIX + "TRUNCATE of fenced table ";
    static final String DDL = PREFIX + "DDL refused: ";

    /** PostgreSQL: the {@code HINT} of every guard error. */
    static final String POSTGRES_HINT = "a migration marks its transaction: SELECT set_config('fencing.migration',"
            + " '<reason>', true), or uses DatabaseGuard.migrate";
    /** MariaDB: appended to the message text, which MariaDB cuts at 128 characters. */
    static final String MARIADB_HINT = " (migration: DatabaseGuard.migrate or SET @fencing_migration)";
    /** H2: appended to the message text. */
    static final String H2_HINT = " (a migration sets @FENCING_MIGRATION = '<reason>' or uses DatabaseGuard.migrate)";
    /** MariaDB's limit for {@code SIGNAL .. MESSAGE_TEXT}. */
    static final int MARIADB_MESSAGE_LIMIT = 128;

    private static final Pattern STALE_TEXT = Pattern.compile(
            "fencing guard: stale fence (-?\\d+) on (\\S+?) holding (-?\\d+|unknown)");
    private static final Pattern MISSING_TEXT = Pattern.compile("fencing guard: no fence in session for (\\S+)");

    private GuardErrors() {
    }

    /**
     * The driver's exception for a failure the guard raised, found anywhere in {@code failure}'s
     * chain (a batch's next exceptions, causes); null when the guard did not raise it.
     */
    public static FencingException translate(Throwable failure) {
        if (failure instanceof FencingException) {
            return null;
        }
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 16; depth++) {
            if (t instanceof SQLException sql) {
                FencingException mapped = fromState(sql);
                if (mapped != null) {
                    return mapped;
                }
                SQLException next = sql.getNextException();
                if (next != null && next != t) {
                    FencingException nested = translate(next);
                    if (nested != null) {
                        nested.addSuppressed(failure);
                        return nested;
                    }
                }
            }
            t = t.getCause() == t ? null : t.getCause();
        }
        return null;
    }

    private static FencingException fromState(SQLException sql) {
        String state = sql.getSQLState();
        String message = String.valueOf(sql.getMessage());
        if (StaleFenceException.SQL_STATE.equals(state) || (state == null || state.startsWith("HY") || state.equals("45000"))
                && message.contains(STALE)) {
            Matcher m = STALE_TEXT.matcher(message);
            if (m.find()) {
                OptionalLong current = m.group(3).equals("unknown")
                        ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(m.group(3)));
                StaleFenceException stale = new StaleFenceException("the database guard refused the write: fence "
                        + m.group(1) + " is stale, table " + m.group(2) + " holds "
                        + (current.isPresent() ? "fence " + current.getAsLong() : "no claim of the session's lock")
                        + "; the statement was rolled back by the database", Long.parseLong(m.group(1)), current, m.group(2));
                return attach(stale, sql);
            }
            if (StaleFenceException.SQL_STATE.equals(state)) {
                StaleFenceException stale = new StaleFenceException("the database refused the write as stale: " + message,
                        0, OptionalLong.empty(), null);
                return attach(stale, sql);
            }
        }
        if (message.contains(TRUNCATE)) {
            UnfenceableStatementException refused = new UnfenceableStatementException(null, "the database guard refused"
                    + " TRUNCATE of a fenced table: it removes rows without row triggers, so no fence can be checked."
                    + " Delete the rows instead, or run it in DatabaseGuard.migrate(..).");
            return attach(refused, sql);
        }
        if (MissingFenceException.SQL_STATE.equals(state) || message.contains(NO_FENCE)) {
            Matcher m = MISSING_TEXT.matcher(message);
            String table = m.find() ? m.group(1) : null;
            MissingFenceException missing = new MissingFenceException(table, "the database guard refused a write to fenced"
                    + " table " + table + ": the session holds no fence. " + FenceHolders.heldElsewhere()
                    + "Run the write inside Fence.enter(..) (or a"
                    + " lease's scope); migrations use DatabaseGuard.migrate(..).");
            return attach(missing, sql);
        }
        return null;
    }

    /** Keeps the database's own exception reachable (its cause when free, else the next exception). */
    private static FencingException attach(FencingException mapped, SQLException original) {
        try {
            mapped.initCause(original);
        } catch (IllegalStateException causeAlreadySet) {
            mapped.setNextException(original);
        }
        return mapped;
    }
}
