package dev.fencing.internal.guard;

import dev.fencing.FencingException;
import dev.fencing.internal.sql.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.Executor;

/**
 * What one database needs to hand the guard's triggers the fence (and lock) of the statements that
 * follow, and to take it away again: the texts only. When to send them is the driver's connection
 * policy ({@code GuardHook}); the rule both obey is that no value set here outlives the transaction
 * it was set for (PostgreSQL) or the driver's hold of the connection (MariaDB, H2).
 *
 * <ul>
 *   <li>PostgreSQL ({@link #transactionLocal()}): {@code set_config(.., true)}, which ends with its
 *       transaction whatever the server does to it (a COMMIT of a failed transaction is a rollback;
 *       a pooler may hand the next transaction to another session). Spliced writes carry the fence
 *       inside their own text ({@link dev.fencing.internal.sql.FenceSlot}).</li>
 *   <li>MariaDB and H2: user variables, which live as long as the session: set when they differ,
 *       cleared before the connection leaves the driver.</li>
 * </ul>
 * Every {@link #set} also empties the migration mark for what it covers, so a mark a raw script left
 * on a pooled connection never covers a statement the driver sends.
 */
public abstract sealed class SessionFence permits SessionFence.TransactionLocal, SessionFence.SessionVariables {

    final Connection database;
    private PreparedStatement setter;
    private PreparedStatement setterClearingTheSession;
    private PreparedStatement clearer;

    private SessionFence(Connection database) {
        this.database = database;
    }

    /** The session fence of {@code database} (the driver's connection); nothing is sent until asked. */
    public static SessionFence of(Connection database, Dialect dialect) throws FencingException {
        return Guards.of(dialect).sessionFence(database);
    }

    /** True when {@link #set} values end with the transaction they were set in (PostgreSQL). */
    public abstract boolean transactionLocal();

    /**
     * Makes the guard's triggers see {@code fence} (0: none) and {@code lock} (null: none), and no
     * migration mark: PostgreSQL for the rest of the current transaction, MariaDB/H2 for the session.
     */
    public final void set(long fence, String lock) throws SQLException {
        if (setter == null) {
            setter = database.prepareStatement(setText());
        }
        bind(setter, fence, lock);
        setter.execute();
    }

    /**
     * {@link #set}, and in the same statement {@link #clearSession}: PostgreSQL keeps the cleared
     * session-level values only when the transaction commits (a rollback restores them), so the
     * caller counts the session clean only after a commit. MariaDB/H2: {@link #set} already
     * replaces the session's values.
     */
    public final void setAndClearSession(long fence, String lock) throws SQLException {
        String text = setAndClearSessionText();
        if (text == null) {
            set(fence, lock);
            return;
        }
        if (setterClearingTheSession == null) {
            setterClearingTheSession = database.prepareStatement(text);
        }
        bind(setterClearingTheSession, fence, lock);
        setterClearingTheSession.execute();
    }

    /** The text of {@link #setAndClearSession}, or null when {@link #set} clears the session already. */
    abstract String setAndClearSessionText();

    /**
     * Empties every value the triggers read at the session's own level: PostgreSQL's session-level
     * settings (a raw script's {@code set_config(.., false)}), MariaDB's and H2's variables.
     */
    public final void clearSession() throws SQLException {
        if (clearer == null) {
            clearer = database.prepareStatement(clearText());
        }
        clearer.execute();
    }

    abstract String setText();

    abstract String clearText();

    abstract void bind(PreparedStatement statement, long fence, String lock) throws SQLException;

    /** Closes the prepared texts (the connection is leaving the driver). */
    public final void close() {
        for (PreparedStatement statement : new PreparedStatement[] {setter, setterClearingTheSession, clearer}) {
            if (statement != null) {
                try {
                    statement.close();
                } catch (SQLException ignored) {
                    // the connection is being released: nothing left to free
                }
            }
        }
        setter = null;
        setterClearingTheSession = null;
        clearer = null;
    }

    /** PostgreSQL: transaction-local custom settings. */
    static final class TransactionLocal extends SessionFence {

        TransactionLocal(Connection database) {
            super(database);
        }

        @Override
        public boolean transactionLocal() {
            return true;
        }

        @Override
        String setText() {
            return "SELECT set_config('fencing.fence', ?, true), set_config('fencing.lock', ?, true),"
                    + " set_config('fencing.migration', '', true)";
        }

        @Override
        String clearText() {
            return "SELECT set_config('fencing.fence', '', false), set_config('fencing.lock', '', false),"
                    + " set_config('fencing.migration', '', false)";
        }

        @Override
        String setAndClearSessionText() {
            // the session-level values first: a later set_config(.., true) in the transaction wins over them
            return "SELECT set_config('fencing.fence', '', false), set_config('fencing.lock', '', false),"
                    + " set_config('fencing.migration', '', false), set_config('fencing.fence', ?, true),"
                    + " set_config('fencing.lock', ?, true), set_config('fencing.migration', '', true)";
        }

        @Override
        void bind(PreparedStatement statement, long fence, String lock) throws SQLException {
            statement.setString(1, fence == 0 ? "" : Long.toString(fence));
            statement.setString(2, lock == null ? "" : lock);
        }
    }

    /** MariaDB and H2: user variables of the session. */
    static final class SessionVariables extends SessionFence {

        private final String setText;
        private final String clearText;

        SessionVariables(Connection database, String setText, String clearText) {
            super(database);
            this.setText = setText;
            this.clearText = clearText;
        }

        @Override
        public boolean transactionLocal() {
            return false;
        }

        @Override
        String setText() {
            return setText;
        }

        @Override
        String clearText() {
            return clearText;
        }

        @Override
        String setAndClearSessionText() {
            return null;
        }

        @Override
        void bind(PreparedStatement statement, long fence, String lock) throws SQLException {
            if (fence == 0) {
                statement.setNull(1, java.sql.Types.BIGINT);
            } else {
                statement.setLong(1, fence);
            }
            if (lock == null) {
                statement.setNull(2, java.sql.Types.VARCHAR);
            } else {
                statement.setString(2, lock);
            }
        }
    }

    /**
     * A sanctioned migration: {@code work} runs on {@code connection} (whose driver connection is
     * {@code database}) with the guard's triggers letting it through, and nothing of the mark stays:
     * <ul>
     *   <li>PostgreSQL: the work runs in one transaction of its own, marked transaction-locally; it
     *       commits when the work returns and rolls back when it throws. The mark ends with that
     *       transaction whatever the work does (a commit inside the work ends the mark too, and what
     *       follows is refused like any unfenced write).</li>
     *   <li>MariaDB/H2: the session is marked, the work runs (committed when it returns with
     *       auto-commit off, rolled back when it throws), and the mark is cleared whatever happened;
     *       when it cannot be cleared the connection is aborted, never handed back to its pool.</li>
     * </ul>
     * Auto-commit is restored as it was.
     */
    public static void migrate(Connection connection, Connection database, Dialect dialect, String reason,
                               SqlWork work) throws SQLException {
        Guards.of(dialect);
        Guards.logMigration(reason);
        String sessionMark = dialect.sessionMigrationMark();
        if (sessionMark == null) {
            migrateInOneTransaction(database, reason, work);
        } else {
            migrateMarkingTheSession(connection, database, sessionMark, reason, work);
        }
    }

    private static void migrateInOneTransaction(Connection database, String reason, SqlWork work) throws SQLException {
        boolean autoCommit = database.getAutoCommit();
        if (autoCommit) {
            database.setAutoCommit(false);
        }
        try {
            try (PreparedStatement mark = database.prepareStatement("SELECT set_config('fencing.migration', ?, true)")) {
                mark.setString(1, reason);
                mark.execute();
            }
            work.run();
            database.commit();
        } catch (SQLException | RuntimeException | Error e) {
            try {
                database.rollback();
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        } finally {
            if (autoCommit) {
                database.setAutoCommit(true);
            }
        }
    }

    private static void migrateMarkingTheSession(Connection connection, Connection database, String markText,
                                                 String reason, SqlWork work) throws SQLException {
        boolean autoCommit = database.getAutoCommit();
        Throwable failure = null;
        try {
            try (PreparedStatement mark = database.prepareStatement(markText)) {
                mark.setString(1, reason);
                mark.execute();
            }
            work.run();
            if (!database.getAutoCommit()) {
                database.commit();
            }
        } catch (SQLException | RuntimeException | Error e) {
            failure = e;
            try {
                if (!database.getAutoCommit()) {
                    database.rollback();
                }
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        } finally {
            try (PreparedStatement clear = database.prepareStatement(markText)) {
                clear.setNull(1, java.sql.Types.VARCHAR);
                clear.execute();
                if (database.getAutoCommit() != autoCommit) {
                    database.setAutoCommit(autoCommit);
                }
            } catch (SQLException | RuntimeException cannotClear) {
                abort(connection, cannotClear, failure);
            }
        }
    }

    /**
     * Ends {@code connection}'s session because a value the driver set could not be cleared, and
     * throws {@code cause} (added to {@code failure} instead when the work failed too).
     */
    static void abort(Connection connection, Exception cause, Throwable failure) throws SQLException {
        discard(connection, cause);
        if (failure != null) {
            failure.addSuppressed(cause);
            return;
        }
        throw new FencingException("the database guard's migration mark could not be cleared, so the connection"
                + " was aborted rather than handed back to its pool", cause);
    }

    /**
     * Ends the server session behind {@code connection} (a pool's proxy or a driver's connection):
     * {@code abort}, and, since some drivers' {@code abort} does nothing (H2's), then closes the
     * driver's own connection behind a pool's proxy, so that the pool finds it closed and never
     * hands the session out again. What fails is added to {@code cause}.
     */
    public static void discard(Connection connection, Exception cause) {
        try {
            connection.abort(DIRECTLY);
        } catch (SQLException | RuntimeException notAborted) {
            cause.addSuppressed(notAborted);
        }
        try {
            Connection physical = connection.isWrapperFor(Connection.class) ? connection.unwrap(Connection.class) : connection;
            if (physical != null && !physical.isClosed()) {
                physical.close();
            }
        } catch (SQLException | RuntimeException notClosed) {
            cause.addSuppressed(notClosed);
        }
    }

    /** Runs the driver's abort on the calling thread. */
    public static final Executor DIRECTLY = Runnable::run;

    /** Work run inside {@link #migrate}. */
    @FunctionalInterface
    public interface SqlWork {
        void run() throws SQLException;
    }
}
