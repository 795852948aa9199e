package dev.fencing.jdbc;

import dev.fencing.FencingConfig;
import dev.fencing.FencingException;
import dev.fencing.guard.GuardErrors;
import dev.fencing.guard.SessionFence;
import dev.fencing.sql.Dialect;
import dev.fencing.sql.FencePlan;
import dev.fencing.sql.StatementAnalyzer;

import java.sql.Array;
import java.sql.Blob;
import java.sql.CallableStatement;
import java.sql.ClientInfoStatus;
import java.sql.Clob;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.NClob;
import java.sql.PreparedStatement;
import java.sql.SQLClientInfoException;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.SQLXML;
import java.sql.Savepoint;
import java.sql.ShardingKey;
import java.sql.Statement;
import java.sql.Struct;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executor;

/**
 * A connection whose statements carry the fence check. SQL is planned by the data source's (or
 * driver's) shared {@link StatementAnalyzer}: prepared statements at prepare time, plain
 * statements at each execute. Every object it hands out is a fenced wrapper; once closed, it
 * refuses every call rather than reach the driver's connection.
 */
final class FencedConnection implements Connection {

    private final Connection delegate;
    private final StatementAnalyzer analyzer;
    private final FencingConfig config;
    /** What the driver knows of this connection's transaction. */
    private final TransactionState transaction;
    /** The epoch guard; null when no fenced table is in epoch mode (then nothing of it costs anything). */
    private final EpochGuard epoch;
    /** The database guard's check of this database; null when {@code fencing.database-guard=off}. */
    private final GuardStates.State guard;
    /** The session's fence for the guard's triggers; null when the guard is off or cannot run here. */
    private final SessionFence sessionFence;
    private volatile boolean closed;

    FencedConnection(Connection delegate, StatementAnalyzer analyzer) {
        this(delegate, analyzer, null);
    }

    /**
     * @param claims the epoch claims shared with the other connections to the same database, or
     *               null for claims of this connection's own
     */
    FencedConnection(Connection delegate, StatementAnalyzer analyzer, EpochClaims claims) {
        this.delegate = delegate;
        this.analyzer = analyzer;
        this.config = analyzer.config();
        this.transaction = new TransactionState(delegate, analyzer.dialect());
        this.epoch = config.hasEpochTables()
                ? new EpochGuard(delegate, analyzer.dialect(), config.epochTable(),
                        claims == null ? new EpochClaims() : claims, transaction)
                : null;
        if (config.guardRequired()) {
            SessionFence session = null;
            GuardStates.State state;
            try {
                session = SessionFence.of(delegate, analyzer.dialect(), transaction::undoGeneration);
                state = GuardStates.of(delegate, analyzer.dialect(), config);
            } catch (FencingException unsupported) {
                state = new GuardStates.State(unsupported.getMessage());
            }
            this.guard = state;
            this.sessionFence = session;
        } else {
            this.guard = null;
            this.sessionFence = null;
        }
    }

    /**
     * The database guard's step before anything is sent (with {@code fencing.database-guard=required};
     * a no-op otherwise): refuses a fenced write when the guard is missing, and makes the session
     * hold the thread's fence, for reads too, because the analysis may have misread a write.
     *
     * @param plan the statement's plan, or null for a batch or a row written back
     * @param fencedTable        the fenced table the statement writes, or null
     * @param transactionControl true when the statement only begins, ends or rolls back a transaction
     */
    void beforeSend(FencePlan plan, String fencedTable, boolean transactionControl) throws SQLException {
        if (guard == null) {
            return;
        }
        if (guard.refusal() != null && (fencedTable != null || plan != null && plan.checkedByGuard())) {
            throw guard.refuse(fencedTable != null ? fencedTable
                    : plan.fencedTable() != null ? plan.fencedTable() : "(any, through a procedure call)");
        }
        if (sessionFence != null) {
            sessionFence.sync(transactionControl);
        }
    }

    /** True when the database guard is required and verified here: the database checks every write itself. */
    boolean guardHolds() {
        return guard != null && guard.refusal() == null && sessionFence != null;
    }

    /** {@code failure} as the driver's exception when the database guard raised it; the session's fence is re-set next time. */
    SQLException guardTranslated(SQLException failure) {
        SQLException mapped = GuardErrors.translate(failure);
        if (mapped == null) {
            return failure;
        }
        sessionUnsure();
        return mapped;
    }

    /** After a failure or a rollback: the session's fence may have been undone; set it again before the next statement. */
    void sessionUnsure() {
        if (sessionFence != null) {
            sessionFence.unsure();
        }
    }

    /** Where a connection gets its analyzer: the data source's or the driver's. */
    @FunctionalInterface
    interface Analyzers {
        StatementAnalyzer forConnection(Connection connection) throws SQLException;
    }

    /** The dialect of the database behind {@code connection}, as its metadata names it. */
    static Dialect dialectOf(Connection connection) throws SQLException {
        return Dialect.fromProductName(connection.getMetaData().getDatabaseProductName());
    }

    /**
     * Fences a connection just opened. When that fails (no analyzer can be had), the connection is
     * closed: it is never handed out unfenced.
     */
    static FencedConnection fence(Connection connection, Analyzers analyzers) throws SQLException {
        return fence(connection, analyzers, null);
    }

    /** Like {@link #fence(Connection, Analyzers)}, sharing epoch {@code claims} (null: the connection's own). */
    static FencedConnection fence(Connection connection, Analyzers analyzers, EpochClaims claims) throws SQLException {
        try {
            return new FencedConnection(connection, analyzers.forConnection(connection), claims);
        } catch (SQLException | RuntimeException | Error e) {
            try {
                connection.close();
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    FencingConfig config() {
        return config;
    }

    StatementAnalyzer analyzer() {
        return analyzer;
    }

    /** What the driver knows of this connection's transaction. */
    TransactionState transaction() {
        return transaction;
    }

    /** The epoch guard, or null when no fenced table is in epoch mode. */
    EpochGuard epoch() {
        return epoch;
    }

    /** The driver's connection, for the fencing layer's own queries (zero-row diagnosis). */
    Connection database() throws SQLException {
        return open();
    }

    /** The plan of a plain statement's text. */
    FencePlan plan(String sql) throws SQLException {
        open();
        return analyzer.plan(sql);
    }

    private Connection open() throws SQLException {
        if (closed) {
            throw Wrappers.connectionClosed();
        }
        return delegate;
    }

    /** The plan of a text to prepare; refused texts are refused here, before anything is prepared. */
    private FencePlan prepared(String sql) throws SQLException {
        FencePlan plan = plan(sql);
        if (plan.kind() == FencePlan.Kind.REFUSED) {
            throw plan.refusal();
        }
        return plan;
    }

    private FencePlan call(String sql) throws SQLException {
        open();
        FencePlan plan = analyzer.planCall(sql);
        if (plan.kind() == FencePlan.Kind.REFUSED) {
            throw plan.refusal();
        }
        return plan;
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
        return new FencedPreparedStatement(this, delegate.prepareStatement(plan.preparedSql()), plan);
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int resultSetType, int resultSetConcurrency)
            throws SQLException {
        FencePlan plan = prepared(sql);
        return new FencedPreparedStatement(this,
                delegate.prepareStatement(plan.preparedSql(), resultSetType, resultSetConcurrency), plan);
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int resultSetType, int resultSetConcurrency,
                                              int resultSetHoldability) throws SQLException {
        FencePlan plan = prepared(sql);
        return new FencedPreparedStatement(this, delegate.prepareStatement(plan.preparedSql(), resultSetType,
                resultSetConcurrency, resultSetHoldability), plan);
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int autoGeneratedKeys) throws SQLException {
        FencePlan plan = prepared(sql);
        return new FencedPreparedStatement(this, delegate.prepareStatement(plan.preparedSql(), autoGeneratedKeys),
                plan);
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int[] columnIndexes) throws SQLException {
        FencePlan plan = prepared(sql);
        return new FencedPreparedStatement(this, delegate.prepareStatement(plan.preparedSql(), columnIndexes), plan);
    }

    @Override
    public PreparedStatement prepareStatement(String sql, String[] columnNames) throws SQLException {
        FencePlan plan = prepared(sql);
        return new FencedPreparedStatement(this, delegate.prepareStatement(plan.preparedSql(), columnNames), plan);
    }

    @Override
    public CallableStatement prepareCall(String sql) throws SQLException {
        FencePlan plan = call(sql);
        return new FencedCallableStatement(this, delegate.prepareCall(plan.preparedSql()), plan);
    }

    @Override
    public CallableStatement prepareCall(String sql, int resultSetType, int resultSetConcurrency)
            throws SQLException {
        FencePlan plan = call(sql);
        return new FencedCallableStatement(this,
                delegate.prepareCall(plan.preparedSql(), resultSetType, resultSetConcurrency), plan);
    }

    @Override
    public CallableStatement prepareCall(String sql, int resultSetType, int resultSetConcurrency,
                                         int resultSetHoldability) throws SQLException {
        FencePlan plan = call(sql);
        return new FencedCallableStatement(this, delegate.prepareCall(plan.preparedSql(), resultSetType,
                resultSetConcurrency, resultSetHoldability), plan);
    }

    @Override
    public DatabaseMetaData getMetaData() throws SQLException {
        return new FencedDatabaseMetaData(this, open().getMetaData());
    }

    @Override
    public Array createArrayOf(String typeName, Object[] elements) throws SQLException {
        return FencedArray.wrap(this, open().createArrayOf(typeName, elements));
    }

    @Override
    public void close() throws SQLException {
        if (!closed) {
            closed = true;
            if (epoch != null) {
                epoch.close();
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

    @Override
    public void abort(Executor executor) throws SQLException {
        if (!closed) {
            closed = true;
            delegate.abort(executor);
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
        boolean succeeded = false;
        try {
            database.setAutoCommit(autoCommit);
            succeeded = true;
        } finally {
            transaction.afterSetAutoCommit(before, autoCommit, succeeded);
        }
    }


    @Override
    public boolean getAutoCommit() throws SQLException {
        return open().getAutoCommit();
    }


    @Override
    public void commit() throws SQLException {
        Connection database = open();
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


    @Override
    public void setReadOnly(boolean readOnly) throws SQLException {
        open().setReadOnly(readOnly);
    }


    @Override
    public boolean isReadOnly() throws SQLException {
        return open().isReadOnly();
    }


    @Override
    public void setCatalog(String catalog) throws SQLException {
        open().setCatalog(catalog);
    }


    @Override
    public String getCatalog() throws SQLException {
        return open().getCatalog();
    }


    @Override
    public void setTransactionIsolation(int level) throws SQLException {
        open().setTransactionIsolation(level);
    }


    @Override
    public int getTransactionIsolation() throws SQLException {
        return open().getTransactionIsolation();
    }


    @Override
    public SQLWarning getWarnings() throws SQLException {
        return open().getWarnings();
    }


    @Override
    public void clearWarnings() throws SQLException {
        open().clearWarnings();
    }


    @Override
    public Map<String, Class<?>> getTypeMap() throws SQLException {
        return open().getTypeMap();
    }


    @Override
    public void setTypeMap(Map<String, Class<?>> map) throws SQLException {
        open().setTypeMap(map);
    }


    @Override
    public void setHoldability(int holdability) throws SQLException {
        open().setHoldability(holdability);
    }


    @Override
    public int getHoldability() throws SQLException {
        return open().getHoldability();
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
    public Clob createClob() throws SQLException {
        return open().createClob();
    }


    @Override
    public Blob createBlob() throws SQLException {
        return open().createBlob();
    }


    @Override
    public NClob createNClob() throws SQLException {
        return open().createNClob();
    }


    @Override
    public SQLXML createSQLXML() throws SQLException {
        return open().createSQLXML();
    }


    @Override
    public String getClientInfo(String name) throws SQLException {
        return open().getClientInfo(name);
    }


    @Override
    public Properties getClientInfo() throws SQLException {
        return open().getClientInfo();
    }


    @Override
    public Struct createStruct(String typeName, Object[] attributes) throws SQLException {
        return open().createStruct(typeName, attributes);
    }


    @Override
    public void setSchema(String schema) throws SQLException {
        open().setSchema(schema);
    }


    @Override
    public String getSchema() throws SQLException {
        return open().getSchema();
    }


    @Override
    public void setNetworkTimeout(Executor executor, int milliseconds) throws SQLException {
        open().setNetworkTimeout(executor, milliseconds);
    }


    @Override
    public int getNetworkTimeout() throws SQLException {
        return open().getNetworkTimeout();
    }


    @Override
    public void beginRequest() throws SQLException {
        open().beginRequest();
    }


    @Override
    public void endRequest() throws SQLException {
        open().endRequest();
    }


    @Override
    public boolean setShardingKeyIfValid(ShardingKey shardingKey, ShardingKey superShardingKey, int timeout) throws SQLException {
        return open().setShardingKeyIfValid(shardingKey, superShardingKey, timeout);
    }


    @Override
    public boolean setShardingKeyIfValid(ShardingKey shardingKey, int timeout) throws SQLException {
        return open().setShardingKeyIfValid(shardingKey, timeout);
    }


    @Override
    public void setShardingKey(ShardingKey shardingKey, ShardingKey superShardingKey) throws SQLException {
        open().setShardingKey(shardingKey, superShardingKey);
    }


    @Override
    public void setShardingKey(ShardingKey shardingKey) throws SQLException {
        open().setShardingKey(shardingKey);
    }
}
