package dev.fencing.internal.jdbc;

import dev.fencing.FencingException;
import dev.fencing.MissingFenceException;
import dev.fencing.StaleFenceException;
import dev.fencing.UnfenceableStatementException;
import dev.fencing.events.FencingListener;
import dev.fencing.events.PlanningEvent;
import dev.fencing.events.StatementEvent;
import dev.fencing.events.Refusal;
import dev.fencing.events.Rejection;

import java.sql.SQLException;
import java.util.Arrays;
import java.util.Objects;

/**
 * The {@link FencingListener}s of one connection context: a copy-on-write array, so that the
 * pipeline's check for "anyone listening?" is one volatile read and a length test, and telling
 * them allocates nothing. What a listener throws is dropped: events never change an outcome.
 */
public final class Listeners {

    private static final FencingListener[] NONE = new FencingListener[0];

    /** The listeners of the {@code jdbc:fencing:} driver's and the agent's connections (after NONE: it uses it). */
    public static final Listeners PROCESS_WIDE = new Listeners();

    private volatile FencingListener[] all = NONE;

    public synchronized void add(FencingListener listener) {
        Objects.requireNonNull(listener, "listener");
        FencingListener[] more = Arrays.copyOf(all, all.length + 1);
        more[all.length] = listener;
        all = more;
    }

    public synchronized boolean remove(FencingListener listener) {
        FencingListener[] current = all;
        for (int i = 0; i < current.length; i++) {
            if (current[i] == listener) {
                FencingListener[] fewer = new FencingListener[current.length - 1];
                System.arraycopy(current, 0, fewer, 0, i);
                System.arraycopy(current, i + 1, fewer, i, current.length - i - 1);
                all = fewer;
                return true;
            }
        }
        return false;
    }

    /** The listeners now; empty (never null) when none. */
    FencingListener[] current() {
        return all;
    }

    static void fenced(FencingListener[] listeners, String table) {
        StatementEvent event = StatementEvent.fenced(table);
        for (FencingListener listener : listeners) {
            try {
                listener.statementFenced(event);
            } catch (RuntimeException ignored) {
                // a listener never changes a statement's outcome
            }
        }
    }

    static void passedThrough(FencingListener[] listeners) {
        for (FencingListener listener : listeners) {
            try {
                listener.statementPassedThrough(StatementEvent.PASSED_THROUGH);
            } catch (RuntimeException ignored) {
                // a listener never changes a statement's outcome
            }
        }
    }

    static void refused(FencingListener[] listeners, Refusal kind, String table) {
        StatementEvent event = StatementEvent.refused(kind, table);
        for (FencingListener listener : listeners) {
            try {
                listener.statementRefused(event);
            } catch (RuntimeException ignored) {
                // a listener never changes a statement's outcome
            }
        }
    }

    static void rejected(FencingListener[] listeners, Rejection kind, String table) {
        StatementEvent event = StatementEvent.rejected(kind, table);
        for (FencingListener listener : listeners) {
            try {
                listener.writeRejected(event);
            } catch (RuntimeException ignored) {
                // a listener never changes a statement's outcome
            }
        }
    }

    static void planned(FencingListener[] listeners, long nanos, boolean cacheHit, int cachedPlans) {
        PlanningEvent event = new PlanningEvent(nanos, cacheHit, cachedPlans);
        for (FencingListener listener : listeners) {
            try {
                listener.statementPlanned(event);
            } catch (RuntimeException ignored) {
                // a listener never changes a statement's outcome
            }
        }
    }

    /** A refusal (nothing was sent), told by its kind and table. */
    static void refused(FencingListener[] listeners, SQLException refusal) {
        if (listeners.length != 0) {
            String table = refusal instanceof MissingFenceException missing ? missing.table()
                    : refusal instanceof UnfenceableStatementException unfenceable ? unfenceable.table() : null;
            Refusal kind = refusal instanceof MissingFenceException ? Refusal.MISSING_FENCE
                    : refusal instanceof UnfenceableStatementException ? Refusal.UNFENCEABLE : Refusal.OTHER;
            refused(listeners, kind, table);
        }
    }

    /** A failure before sending: the epoch row's rejection, or a refusal. */
    static void beforeSendFailed(FencingListener[] listeners, Throwable failure) {
        if (listeners.length != 0) {
            if (failure instanceof StaleFenceException stale) {
                rejected(listeners, Rejection.EPOCH_ROW, stale.table());
            } else if (failure instanceof FencingException fencing) {
                refused(listeners, fencing);
            }
        }
    }

    /** A failure after sending: told when it is the row fence's rejection. */
    static void rowFenceRejected(FencingListener[] listeners, Throwable failure) {
        if (listeners.length != 0 && failure instanceof StaleFenceException stale) {
            rejected(listeners, Rejection.ROW_FENCE, stale.table());
        }
    }
}
