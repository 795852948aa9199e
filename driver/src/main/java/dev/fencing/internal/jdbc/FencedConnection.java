package dev.fencing.internal.jdbc;

import dev.fencing.internal.guard.SendHook;
import dev.fencing.internal.txn.TransactionState;
import dev.fencing.internal.epoch.EpochRows;
import dev.fencing.internal.epoch.EpochClaims;
import dev.fencing.FencingConfig;
import dev.fencing.FencingException;
import dev.fencing.internal.sql.FencePlan;
import dev.fencing.internal.sql.StatementAnalyzer;

import java.sql.Array;
import java.sql.CallableStatement;
import java.sql.ClientInfoStatus;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.SQLClientInfoException;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executor;

/**
 * A connection whose statements carry the fence check. SQL is planned by the data source's (or
 * driver's) shared {@link StatementAnalyzer}: prepared statements at prepare time, plain
 * statements at each execute. Every object it hands out is a fenced wrapper; once closed, it
 * refuses every call rather than reach the driver's connection.
 */
public final class FencedConnection extends ConnectionDelegate {

    private final StatementAnalyzer analyzer;
    private final FencingConfig config;
    /** What the driver knows of this connection's transaction. */
    private final TransactionState transaction;
    /** The epoch rows' claims and checks; null when no fenced table is in epoch mode (then nothing of it costs anything). */
    private final EpochRows epoch;
    /** The steps every statement of this connection takes. */
    private final Pipeline pipeline;
    private volatile boolean closed;

    /**
     * Made by {@link ConnectionContext#fence(Connection)} only.
     *
     * @param claims    the epoch claims shared with the context's other connections to the same
     *                  database (null when no table is in epoch mode)
     * @param sendHooks the factory of the {@link SendHook}, or null for none
     */
    FencedConnection(Connection delegate, StatementAnalyzer analyzer, EpochClaims claims, SendHook.Factory sendHooks,
                     Listeners listeners) throws SQLException {
        super(delegate);
        this.analyzer = analyzer;
        this.config = analyzer.config();
        this.transaction = new TransactionState(delegate, analyzer.dialect());
        this.epoch = config.hasEpochTables()
                ? new EpochRows(delegate, analyzer.dialect(), config.epochTable(),
                        claims == null ? new EpochClaims() : claims, transaction)
                : null;
        SendHook hook = sendHooks == null ? null : sendHooks.forConnection(delegate, analyzer.dialect(), transaction);
        this.pipeline = new Pipeline(this, delegate, analyzer, transaction, epoch, hook, listeners);
    }

    public FencingConfig config() {
        return config;
    }

    StatementAnalyzer analyzer() {
        return analyzer;
    }

    /** What the driver knows of this connection's transaction. */
    TransactionState transaction() {
        return transaction;
    }

    /** The epoch rows' claims and checks, or null when no fenced table is in epoch mode. */
    public EpochRows epoch() {
        return epoch;
    }

    /** The steps every statement of this connection takes. */
    Pipeline pipeline() {
        return pipeline;
    }

    /**
     * The driver's connection, for the fencing layer's own queries (the analyzer's metadata, the
     * zero-row diagnosis through the {@link Pipeline}). Not public: {@code unwrap} refuses the
     * raw connection, and so does everything a user can reach.
     */
    Connection database() throws SQLException {
        return open();
    }

    /**
     * The fenced connection that {@code connection} is, or that its {@code unwrap(..)} hands back
     * (a pool's proxy over one: the {@code jdbc:fencing:} driver and the agent hand those out); null
     * when it is neither. Only an object that is a fenced connection counts: a wrapper that merely
     * answers {@code isWrapperFor} with true, unwraps to something else or cannot answer is not
     * fenced (so a lying wrapper reads as unfenced, never as a ClassCastException).
     */
    public static FencedConnection fencedBehind(Connection connection) {
        if (connection instanceof FencedConnection fenced) {
            return fenced;
        }
        if (connection == null) {
            return null;
        }
        try {
            if (!connection.isWrapperFor(FencedConnection.class)) {
                return null; // the common case, answered without the exception a failed unwrap costs
            }
            Object inner = connection.unwrap(FencedConnection.class);
            return inner instanceof FencedConnection fenced ? fenced : null;
        } catch (SQLException | RuntimeException cannotTell) {
            return null;
        }
    }

    private static final StackWalker CALLERS = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    /**
     * The driver's connection behind a fenced one, else {@code connection} itself: for the driver's
     * own sanctioned work on a connection an application passed in (the epoch claim, the database
     * guard's DDL and migrations). Refused to any caller outside the driver's own code, since it
     * hands out what {@code unwrap} refuses.
     */
    public static Connection databaseBehind(Connection connection) throws SQLException {
        Class<?> caller = CALLERS.getCallerClass();
        if (caller.getClassLoader() != FencedConnection.class.getClassLoader()
                || !java.util.Objects.equals(caller.getProtectionDomain().getCodeSource(),
                        FencedConnection.class.getProtectionDomain().getCodeSource())) {
            throw new FencingException("the driver's connection behind a fenced one is not handed out (" + caller.getName()
                    + " asked for it): use the fenced connection, or a raw connection of your own for sanctioned"
                    + " migrations (DatabaseGuard.migrate)");
        }
        FencedConnection fenced = fencedBehind(connection);
        return fenced == null ? connection : fenced.database();
    }

    /** The plan of a plain statement's text. */
    FencePlan plan(String sql) throws SQLException {
        open();
        return pipeline.plan(sql);
    }

    @Override
    Connection open() throws SQLException {
        if (closed) {
            throw Wrappers.connectionClosed();
        }
        return delegate;
    }

    /** The plan of a text to prepare; refused texts are refused here, before anything is prepared. */
    private FencePlan prepared(String sql) throws SQLException {
        open();
        return pipeline.planForPrepare(sql);
    }

    private FencePlan call(String sql) throws SQLException {
        return prepared(sql);
    }

    @Override
    public Statement createStatement() throws SQLException {
        return new FencedStatement(this, open().createStatement());
    }

    @Override
    public Statement createStatement(int resultSetType, int resultSetConcurrency) throws SQLException {
        return new FencedStatement(this, open().createStatement(resultSetType, resultSetConcurrency));
    }

    @Override
    public Statement createStatement(int resultSetType, int resultSetConcurrency, int resultSetHoldability)
            throws SQLException {
        return new FencedStatement(this,
                open().createStatement(resultSetType, resultSetConcurrency, resultSetHoldability));
    }

    @Override
    public PreparedStatement prepareStatement(String sql) throws SQLException {
        FencePlan plan = prepared(sql);
        return new FencedPreparedStatement(this, plan, delegate.prepareStatement(plan.preparedSql()));
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int resultSetType, int resultSetConcurrency)
            throws SQLException {
        FencePlan plan = prepared(sql);
        return new FencedPreparedStatement(this, plan,
                delegate.prepareStatement(plan.preparedSql(), resultSetType, resultSetConcurrency));
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int resultSetType, int resultSetConcurrency,
                                              int resultSetHoldability) throws SQLException {
        FencePlan plan = prepared(sql);
        return new FencedPreparedStatement(this, plan, delegate.prepareStatement(plan.preparedSql(), resultSetType,
                resultSetConcurrency, resultSetHoldability));
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int autoGeneratedKeys) throws SQLException {
        FencePlan plan = prepared(sql);
        return new FencedPreparedStatement(this, plan, delegate.prepareStatement(plan.preparedSql(), autoGeneratedKeys));
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int[] columnIndexes) throws SQLException {
        FencePlan plan = prepared(sql);
        return new FencedPreparedStatement(this, plan, delegate.prepareStatement(plan.preparedSql(), columnIndexes));
    }

    @Override
    public PreparedStatement prepareStatement(String sql, String[] columnNames) throws SQLException {
        FencePlan plan = prepared(sql);
        return new FencedPreparedStatement(this, plan, delegate.prepareStatement(plan.preparedSql(), columnNames));
    }

    @Override
    public CallableStatement prepareCall(String sql) throws SQLException {
        FencePlan plan = call(sql);
        return new FencedCallableStatement(this, plan, delegate.prepareCall(plan.preparedSql()));
    }

    @Override
    public CallableStatement prepareCall(String sql, int resultSetType, int resultSetConcurrency)
            throws SQLException {
        FencePlan plan = call(sql);
        return new FencedCallableStatement(this, plan,
                delegate.prepareCall(plan.preparedSql(), resultSetType, resultSetConcurrency));
    }

    @Override
    public CallableStatement prepareCall(String sql, int resultSetType, int resultSetConcurrency,
                                         int resultSetHoldability) throws SQLException {
        FencePlan plan = call(sql);
        return new FencedCallableStatement(this, plan, delegate.prepareCall(plan.preparedSql(), resultSetType,
                resultSetConcurrency, resultSetHoldability));
    }

    @Override
    public DatabaseMetaData getMetaData() throws SQLException {
        return new FencedDatabaseMetaData(this, open().getMetaData());
    }

    @Override
    public Array createArrayOf(String typeName, Object[] elements) throws SQLException {
        return FencedArray.wrap(this, open().createArrayOf(typeName, elements));
    }

    /**
     * createBlob, createClob, createNClob: a new LOB is the application's to fill, a value no row
     * refers to yet, so it is handed out writable; it reaches a fenced table only when bound on a
     * fenced statement. An array (none of the generated methods returns one) would be wrapped.
     */
    @Override
    @SuppressWarnings("unchecked")
    <T> T toApplication(T value) {
        return value instanceof Array array ? (T) FencedArray.wrap(this, array) : value;
    }

    /**
     * Closes the connection; before it leaves the driver (to its pool, or closed), nothing the
     * database guard set stays with it: what cannot be cleared makes the driver abort the connection
     * instead, and then this throws.
     */
    @Override
    public void close() throws SQLException {
        if (!closed) {
            closed = true;
            if (epoch != null) {
                epoch.close();
            }
            try {
                pipeline.release(delegate);
            } catch (SQLException | RuntimeException | Error notReleased) {
                try {
                    delegate.close();
                } catch (SQLException | RuntimeException closing) {
                    notReleased.addSuppressed(closing);
                }
                throw notReleased;
            }
            delegate.close();
        }
    }

    @Override
    public boolean isClosed() throws SQLException {
        return closed || delegate.isClosed();
    }

    @Override
    public boolean isValid(int timeout) throws SQLException {
        return !closed && delegate.isValid(timeout);
    }

    /**
     * Aborts the driver's connection, then closes it, so that a pool's proxy goes back to its pool
     * (which evicts an aborted connection) rather than keeping its slot; with the database guard, a
     * session that may still hold values the driver set is ended for sure (H2's abort does nothing).
     */
    @Override
    public void abort(Executor executor) throws SQLException {
        if (!closed) {
            closed = true;
            try {
                delegate.abort(executor);
            } finally {
                pipeline.abandon(delegate);
                try {
                    delegate.close();
                } catch (SQLException | RuntimeException aborted) {
                    // the pool finds the connection aborted and evicts it
                }
            }
        }
    }

    @Override
    public void setClientInfo(String name, String value) throws SQLClientInfoException {
        if (closed) {
            throw new SQLClientInfoException("this fenced connection is closed", "08003", 0,
                    Map.of(name, ClientInfoStatus.REASON_UNKNOWN));
        }
        delegate.setClientInfo(name, value);
    }

    @Override
    public void setClientInfo(Properties properties) throws SQLClientInfoException {
        if (closed) {
            throw new SQLClientInfoException("this fenced connection is closed", "08003", 0, Map.of());
        }
        delegate.setClientInfo(properties);
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        open();
        return Wrappers.unwrap(this, iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        open();
        return Wrappers.isWrapperFor(this, iface);
    }

    @Override
    public String toString() {
        return "FencedConnection[" + delegate + "]";
    }

    // Everything below reaches the driver only while this connection is open.

    @Override
    public String nativeSQL(String sql) throws SQLException {
        return open().nativeSQL(sql);
    }

    @Override
    public void setAutoCommit(boolean autoCommit) throws SQLException {
        Connection database = open();
        boolean before = database.getAutoCommit();
        if (!before && autoCommit) {
            transaction.beforeCommit();
        }
        boolean succeeded = false;
        try {
            database.setAutoCommit(autoCommit);
            succeeded = true;
        } finally {
            transaction.afterSetAutoCommit(before, autoCommit, succeeded);
        }
    }

    @Override
    public void commit() throws SQLException {
        Connection database = open();
        transaction.beforeCommit();
        boolean committed = false;
        try {
            database.commit();
            committed = true;
        } finally {
            transaction.afterCommit(committed);
        }
    }

    @Override
    public void rollback() throws SQLException {
        Connection database = open();
        boolean rolledBack = false;
        try {
            database.rollback();
            rolledBack = true;
        } finally {
            transaction.afterRollback(rolledBack);
        }
    }

    // Forwarded as they are, but by hand: each could change what a later statement means or
    // whether a transaction is open (a catalog or schema decides which table an unqualified name
    // is; JDBC leaves a change of isolation or a request boundary inside a transaction to the
    // driver), so none of them may ever be generated without a reading like this one.

    @Override
    public void setCatalog(String catalog) throws SQLException {
        open().setCatalog(catalog);
    }

    @Override
    public void setTransactionIsolation(int level) throws SQLException {
        open().setTransactionIsolation(level);
    }

    @Override
    public Savepoint setSavepoint() throws SQLException {
        Savepoint savepoint = open().setSavepoint();
        transaction.savepointSet(savepoint);
        return savepoint;
    }

    @Override
    public Savepoint setSavepoint(String name) throws SQLException {
        Savepoint savepoint = open().setSavepoint(name);
        transaction.savepointSet(savepoint);
        return savepoint;
    }

    @Override
    public void rollback(Savepoint savepoint) throws SQLException {
        Connection database = open();
        boolean rolledBack = false;
        try {
            database.rollback(savepoint);
            rolledBack = true;
        } finally {
            // the check (and a claim) may have come after the savepoint: they are done again
            transaction.afterRollbackTo(savepoint, rolledBack);
        }
    }

    @Override
    public void releaseSavepoint(Savepoint savepoint) throws SQLException {
        open().releaseSavepoint(savepoint);
        transaction.savepointReleased(savepoint);
    }

    @Override
    public void setSchema(String schema) throws SQLException {
        open().setSchema(schema);
    }

    @Override
    public void beginRequest() throws SQLException {
        open().beginRequest();
    }

    @Override
    public void endRequest() throws SQLException {
        open().endRequest();
    }
}
