package dev.fencing.internal.guard;

import dev.fencing.FencingException;
import dev.fencing.internal.sql.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Keeps one database session's fence in step with the calling thread's fence (and lock name), as
 * the pipeline admitted it, for the database guard's triggers. {@link #sync} runs before every statement
 * the driver sends on a guarded connection, reads included: it sends nothing when the session
 * already holds the thread's fence (the value last set is cached), and one statement when it
 * differs. A thread with no fence clears the session's, so a pooled connection never keeps the
 * last holder's fence.
 *
 * <p>The cache must never claim a value the session does not hold. PostgreSQL undoes a
 * {@code set_config} made in a transaction that rolls back (to a savepoint too), and the server
 * can end a transaction by itself (a deadlock, a timeout): the value is kept with the connection's
 * transaction state's undo generation, which changes at every end that may have undone something
 * (JDBC rollbacks, rollback texts, server-ended transactions), and is set again when it changed.
 * After a failure the guard raised, it is set again too. Not thread-safe: one per connection, used as the connection is.
 */
public final class SessionFence {

    private final Connection database;
    private final Dialect dialect;
    private PreparedStatement setter;
    private final LongSupplier undoGeneration;
    private boolean known;
    /** The transaction state's undo generation when the value was set: it changes when a set may have been undone. */
    private long setInGeneration;
    private long fence;
    private String lock;

    private SessionFence(Connection database, Dialect dialect, LongSupplier undoGeneration) {
        this.database = database;
        this.dialect = dialect;
        this.undoGeneration = undoGeneration;
    }

    /** The session fence of {@code database} (the driver's connection); nothing is sent until the first {@link #sync}. */
    public static SessionFence of(Connection database, Dialect dialect, LongSupplier undoGeneration)
            throws FencingException {
        Guards.of(dialect);
        return new SessionFence(Objects.requireNonNull(database, "database"), dialect,
                Objects.requireNonNull(undoGeneration, "undoGeneration"));
    }

    /**
     * Makes the session hold {@code wanted} (0: none) and {@code wantedLock}, before a statement is sent.
     *
     * @param rollback true when the statement to be sent is a ROLLBACK (to a savepoint too): on
     *                 PostgreSQL a failed transaction refuses every other statement, so when the set
     *                 is refused for that reason the ROLLBACK still goes out, and the value stays unknown
     */
    public void sync(long wanted, String wantedLock, boolean rollback) throws SQLException {
        long generation = undoGeneration.getAsLong();
        if (known && generation == setInGeneration && wanted == fence && Objects.equals(wantedLock, lock)) {
            return;
        }
        known = false;
        try {
            set(wanted, wantedLock);
        } catch (SQLException e) {
            if (rollback && "25P02".equals(e.getSQLState())) {
                return;
            }
            throw e;
        }
        fence = wanted;
        lock = wantedLock;
        setInGeneration = generation;
        known = true;
    }

    /** After anything the transaction state does not report that may have undone the last set: set again next time. */
    public void unsure() {
        known = false;
    }

    private void set(long wanted, String wantedLock) throws SQLException {
        if (setter == null) {
            setter = database.prepareStatement(switch (dialect) {
                case POSTGRESQL -> "SELECT set_config('fencing.fence', ?, false), set_config('fencing.lock', ?, false)";
                case MARIADB -> "SET @fencing_fence = ?, @fencing_lock = ?";
                default -> "SELECT SET(@FENCING_FENCE, ?), SET(@FENCING_LOCK, ?)";
            });
        }
        if (dialect == Dialect.POSTGRESQL) {
            setter.setString(1, wanted == 0 ? "" : Long.toString(wanted));
            setter.setString(2, wantedLock == null ? "" : wantedLock);
        } else {
            if (wanted == 0) {
                setter.setNull(1, Types.BIGINT);
            } else {
                setter.setLong(1, wanted);
            }
            if (wantedLock == null) {
                setter.setNull(2, Types.VARCHAR);
            } else {
                setter.setString(2, wantedLock);
            }
        }
        setter.execute();
    }

    /**
     * A sanctioned migration: {@code work} runs with the session marked as migrating. With auto-commit
     * off, its transaction commits when it returns and rolls back when it throws; the mark is always
     * cleared afterwards.
     */
    public static void migrate(Connection database, Dialect dialect, String reason, SqlWork work) throws SQLException {
        Guards.of(dialect);
        String mark = switch (dialect) {
            case POSTGRESQL -> "SELECT set_config('fencing.migration', ?, false)";
            case MARIADB -> "SET @fencing_migration = ?";
            default -> "SELECT SET(@FENCING_MIGRATION, ?)";
        };
        boolean autoCommit = database.getAutoCommit();
        Guards.logMigration(reason);
        try {
            try (PreparedStatement statement = database.prepareStatement(mark)) {
                statement.setString(1, reason);
                statement.execute();
            }
            work.run();
            if (!autoCommit) {
                database.commit();
            }
        } catch (SQLException | RuntimeException | Error e) {
            if (!autoCommit) {
                try {
                    database.rollback();
                } catch (SQLException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        } finally {
            try (PreparedStatement statement = database.prepareStatement(mark)) {
                statement.setString(1, "");
                statement.execute();
            }
            if (!autoCommit) {
                database.commit();
            }
        }
    }

    /** Work run inside {@link #migrate}. */
    @FunctionalInterface
    public interface SqlWork {
        void run() throws SQLException;
    }
}
