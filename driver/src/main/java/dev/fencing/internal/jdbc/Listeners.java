package dev.fencing.internal.jdbc;

import dev.fencing.events.FencingListener;
import dev.fencing.events.Refusal;
import dev.fencing.events.Rejection;

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
        for (FencingListener listener : listeners) {
            try {
                listener.statementFenced(table);
            } catch (RuntimeException ignored) {
                // a listener never changes a statement's outcome
            }
        }
    }

    static void passedThrough(FencingListener[] listeners) {
        for (FencingListener listener : listeners) {
            try {
                listener.statementPassedThrough();
            } catch (RuntimeException ignored) {
                // a listener never changes a statement's outcome
            }
        }
    }

    static void refused(FencingListener[] listeners, Refusal kind, String table) {
        for (FencingListener listener : listeners) {
            try {
                listener.statementRefused(kind, table);
            } catch (RuntimeException ignored) {
                // a listener never changes a statement's outcome
            }
        }
    }

    static void rejected(FencingListener[] listeners, Rejection kind, String table) {
        for (FencingListener listener : listeners) {
            try {
                listener.writeRejected(kind, table);
            } catch (RuntimeException ignored) {
                // a listener never changes a statement's outcome
            }
        }
    }

    static void planned(FencingListener[] listeners, long nanos, boolean cacheHit, int cachedPlans) {
        for (FencingListener listener : listeners) {
            try {
                listener.statementPlanned(nanos, cacheHit, cachedPlans);
            } catch (RuntimeException ignored) {
                // a listener never changes a statement's outcome
            }
        }
    }
}
