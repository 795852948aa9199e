package dev.fencing.internal.lock;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * The connections of one {@link JdbcLockStore}: borrowed from the application's data source
 * and kept open between operations, up to a few idle ones, so that a data source that opens
 * a new connection on every call (a driver's plain data source, {@code DriverManager}) does
 * not cost a connection set-up per lock operation. Over a pool it costs nothing but the
 * idle connections held, and those go back to the data source after 10 s unused (also when
 * the instance was never closed).
 *
 * <p>Connections are used in auto-commit (every lock statement commits by itself; a pool
 * would roll back a claim left uncommitted) and with a network timeout per operation, so that
 * a database that stops answering fails the operation instead of blocking it. Both settings
 * are restored before a connection goes back to the data source.
 */
final class JdbcConnections implements AutoCloseable {

    /** Idle connections older than this are checked before use. */
    private static final long CHECK_AFTER_NANOS = TimeUnit.SECONDS.toNanos(5);
    /**
     * By default, idle connections unused this long go back to the data source, so that an
     * instance that is idle, or was never closed, holds none of a pool's connections for long.
     */
    static final java.time.Duration IDLE_TIMEOUT = java.time.Duration.ofSeconds(10);
    /** One daemon thread for every instance: it only hands back connections left idle. */
    private static final ScheduledExecutorService SWEEPER = sweeper();
    /** The network timeout is a backstop behind the server-side statement timeout. */
    private static final int NETWORK_MARGIN_MILLIS = 1_000;
    private static final Executor DIRECT = Runnable::run;

    private final DataSource dataSource;
    private final int maxIdle;
    private final long idleNanos;
    private final ArrayDeque<Kept> idle = new ArrayDeque<>(); // guarded by itself
    private boolean closed; // guarded by idle
    private boolean sweepScheduled; // guarded by idle

    JdbcConnections(DataSource dataSource, int maxIdle, java.time.Duration idleTimeout) {
        this.dataSource = dataSource;
        this.maxIdle = maxIdle;
        this.idleNanos = idleTimeout.toNanos();
    }

    /** A connection in auto-commit whose network timeout is {@code timeoutMillis} plus a margin. */
    Kept borrow(long timeoutMillis) throws SQLException {
        Kept kept;
        while ((kept = takeIdle()) != null) {
            if (System.nanoTime() - kept.idleSince < CHECK_AFTER_NANOS || isValid(kept.connection)) {
                break;
            }
            kept.discard();
        }
        if (kept == null) {
            kept = new Kept(dataSource.getConnection());
        }
        try {
            kept.limit(timeoutMillis);
        } catch (SQLException | RuntimeException e) {
            kept.discard();
            throw e;
        }
        return kept;
    }

    private Kept takeIdle() {
        synchronized (idle) {
            return idle.pollFirst();
        }
    }

    private static boolean isValid(Connection connection) {
        try {
            return connection.isValid(1);
        } catch (SQLException e) {
            return false;
        }
    }

    /** Takes back a connection after an operation; {@code reusable} false when it failed in a way that may have broken it. */
    void giveBack(Kept kept, boolean reusable) {
        if (reusable) {
            boolean keptIdle = false;
            boolean sweep = false;
            synchronized (idle) {
                if (!closed && idle.size() < maxIdle) {
                    kept.idleSince = System.nanoTime();
                    idle.addFirst(kept);
                    keptIdle = true;
                    sweep = !sweepScheduled;
                    sweepScheduled = true;
                }
            }
            if (sweep) {
                scheduleSweep(idleNanos);
            }
            if (!keptIdle) {
                kept.returnToDataSource();
            }
            return;
        } else {
            kept.discard();
        }
    }

    private void scheduleSweep(long delayNanos) {
        SWEEPER.schedule(this::sweep, delayNanos, TimeUnit.NANOSECONDS);
    }

    /** Hands back the connections idle for the idle timeout; runs again while any stay idle. */
    private void sweep() {
        java.util.List<Kept> stale = new java.util.ArrayList<>();
        long next;
        synchronized (idle) {
            long now = System.nanoTime();
            // The deque is newest first: the stale ones are at its end.
            while (!idle.isEmpty() && now - idle.peekLast().idleSince >= idleNanos) {
                stale.add(idle.pollLast());
            }
            if (idle.isEmpty()) {
                sweepScheduled = false;
                next = -1;
            } else {
                next = idle.peekLast().idleSince + idleNanos - now;
            }
        }
        stale.forEach(Kept::returnToDataSource);
        if (next >= 0) {
            scheduleSweep(next);
        }
    }

    private static ScheduledExecutorService sweeper() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "fencing-jdbc-locks-idle-connections");
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }

    @Override
    public void close() {
        Kept[] all;
        synchronized (idle) {
            closed = true;
            all = idle.toArray(new Kept[0]);
            idle.clear();
        }
        for (Kept kept : all) {
            kept.returnToDataSource();
        }
    }

    /** One connection and the settings to restore before it goes back to the data source. */
    static final class Kept {
        final Connection connection;
        private final boolean autoCommit;
        private final int networkTimeout;
        private boolean networkTimeoutSupported = true;
        private int currentNetworkTimeout;
        private long idleSince;

        private Kept(Connection connection) throws SQLException {
            this.connection = connection;
            try {
                this.autoCommit = connection.getAutoCommit();
                int timeout;
                try {
                    timeout = connection.getNetworkTimeout();
                } catch (SQLFeatureNotSupportedException | UnsupportedOperationException e) {
                    timeout = 0;
                    networkTimeoutSupported = false;
                }
                this.networkTimeout = timeout;
                this.currentNetworkTimeout = timeout;
                if (!autoCommit) {
                    connection.setAutoCommit(true);
                }
            } catch (SQLException | RuntimeException e) {
                closeQuietly(connection);
                throw e;
            }
        }

        private void limit(long timeoutMillis) throws SQLException {
            // Whole seconds, set only when they change: setting it costs as much as a lock
            // statement on some drivers and pools, and it is only a backstop.
            int wanted = (int) Math.min(Integer.MAX_VALUE / 1000, (timeoutMillis + NETWORK_MARGIN_MILLIS + 999) / 1000) * 1000;
            if (networkTimeoutSupported && wanted != currentNetworkTimeout) {
                try {
                    connection.setNetworkTimeout(DIRECT, wanted);
                    currentNetworkTimeout = wanted;
                } catch (SQLFeatureNotSupportedException | UnsupportedOperationException e) {
                    networkTimeoutSupported = false;
                }
            }
        }

        /** Restores what the data source handed out, then closes (returns) the connection. */
        private void returnToDataSource() {
            try {
                if (networkTimeoutSupported) {
                    connection.setNetworkTimeout(DIRECT, networkTimeout);
                }
                if (!autoCommit) {
                    connection.setAutoCommit(false);
                }
            } catch (SQLException | RuntimeException e) {
                // Closing below still hands it back; a pool resets or evicts it.
            }
            closeQuietly(connection);
        }

        private void discard() {
            closeQuietly(connection);
        }

        private static void closeQuietly(Connection connection) {
            try {
                connection.close();
            } catch (SQLException | RuntimeException e) {
                // Nothing more to do with a broken connection.
            }
        }
    }
}
