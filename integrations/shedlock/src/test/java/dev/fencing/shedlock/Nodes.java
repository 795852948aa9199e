package dev.fencing.shedlock;

import dev.fencing.testing.locks.ServerProcess;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;

import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import org.springframework.jdbc.core.JdbcTemplate;

/** What the ShedLock tests share: a job table, its writes, and a node running a job as a scheduler would. */
final class Nodes {

    private Nodes() {
    }

    /** A table with one row that jobs write: who wrote last, how many writes landed. */
    static void createJobTable(DataSource raw, String table) throws SQLException {
        try (Connection c = raw.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, writer VARCHAR(20), writes INT NOT NULL,"
                    + " last_fence BIGINT NOT NULL DEFAULT 0)");
            s.execute("INSERT INTO " + table + " (id, writer, writes) VALUES (1, 'nobody', 0)");
        }
    }

    /** The job's one write; fails unless it changed the row. */
    static void write(DataSource data, String table, String writer) throws SQLException {
        try (Connection c = data.getConnection();
             PreparedStatement update = c.prepareStatement("UPDATE " + table + " SET writer = ?, writes = writes + 1 WHERE id = 1")) {
            update.setString(1, writer);
            int changed = update.executeUpdate();
            if (changed != 1) {
                throw new IllegalStateException("the job's write changed " + changed + " rows");
            }
        }
    }

    /** The row as the database holds it, read without the driver. */
    static Map<String, Object> row(DataSource raw, String table) {
        return new JdbcTemplate(raw).queryForMap("SELECT writer, writes, last_fence FROM " + table + " WHERE id = 1");
    }

    static LockConfiguration job(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
        return new LockConfiguration(ClockProvider.now(), name, lockAtMostFor, lockAtLeastFor);
    }

    /** A job body that may throw anything, as ShedLock's Task may. */
    interface Body {
        void run() throws Exception;
    }

    /** One scheduler node: its own LockingTaskExecutor and its own scheduler thread. */
    static final class Node implements AutoCloseable {
        final LockingTaskExecutor executor;
        final ExecutorService thread = Executors.newSingleThreadExecutor();

        Node(LockProvider provider) {
            this.executor = new DefaultLockingTaskExecutor(provider);
        }

        /** Fires the job on the node's thread, as its scheduler would; true when it ran. */
        Future<Boolean> fire(LockConfiguration job, Body body) {
            return thread.submit(call(job, body));
        }

        Callable<Boolean> call(LockConfiguration job, Body body) {
            return () -> {
                try {
                    return executor.executeWithLock(() -> {
                        body.run();
                        return null;
                    }, job).wasExecuted();
                } catch (Exception | Error e) {
                    throw e;
                } catch (Throwable t) {
                    throw new IllegalStateException(t);
                }
            };
        }

        /** Fires the job until it runs here: the node's scheduler firing while another node holds the lock. */
        void fireUntilItRuns(String job, Duration lockAtMostFor, Body body) {
            ServerProcess.awaitUntil("the job runs on this node", Duration.ofSeconds(30), () -> {
                try {
                    return fire(job(job, lockAtMostFor, Duration.ZERO), body).get();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(e);
                } catch (ExecutionException e) {
                    throw new AssertionError("the job failed on this node", e.getCause());
                }
            });
        }

        @Override
        public void close() {
            thread.shutdownNow();
        }
    }
}
