package dev.fencing.internal.jdbc;

import dev.fencing.internal.diagnosis.ReturningCheck;
import dev.fencing.FencingException;
import dev.fencing.UnfenceableStatementException;
import dev.fencing.internal.sql.FencePlan;

import java.io.InputStream;
import java.io.Reader;
import java.math.BigDecimal;
import java.net.URL;
import java.sql.Array;
import java.sql.Blob;
import java.sql.Clob;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Calendar;
import java.util.Map;

/**
 * A result set that leads back only to fenced wrappers ({@code getStatement()}, nested result sets
 * such as PostgreSQL refcursors, arrays), refuses to write rows back when it may hold rows of a
 * fenced table ({@code updateRow}, {@code insertRow}, {@code deleteRow} would bypass the check),
 * and, for a fenced write that returns rows, runs the zero-row check when {@code next()} first
 * reports the end.
 */
final class FencedResultSet extends ResultSetDelegate {

    private final FencedConnection connection;
    /** The statement wrapper; null until asked for when the rows did not come from one of ours. */
    private Statement statement;
    /** The plan of the statement that produced these rows; null when unknown. */
    private final FencePlan origin;
    private ReturningCheck check;
    private long rows;

    FencedResultSet(FencedConnection connection, Statement statement, ResultSet delegate, FencePlan origin,
                    ReturningCheck check) {
        super(delegate);
        this.connection = connection;
        this.statement = statement;
        this.origin = origin;
        this.check = check;
    }

    /** Rows that did not come from one of our statements (metadata, array views): read-only for us. */
    static FencedResultSet detached(FencedConnection connection, ResultSet rows) {
        return rows == null ? null : new FencedResultSet(connection, null, rows, null, null);
    }

    boolean wraps(ResultSet rows) {
        return delegate == rows;
    }

    @Override
    public boolean next() throws SQLException {
        boolean more = delegate.next();
        if (check != null) {
            if (more) {
                rows++;
            } else {
                ReturningCheck pending = check;
                check = null;
                pending.afterRows(rows);
            }
        }
        return more;
    }

    @Override
    public Statement getStatement() throws SQLException {
        if (statement == null) {
            Statement own = delegate.getStatement();
            if (own == null) {
                return null;
            }
            statement = new FencedStatement(connection, own);
        }
        return statement;
    }

    private Object fenced(Object value) {
        return fencedValue(connection, statement, value);
    }

    private <T> T fenced(Object value, Class<T> type) throws SQLException {
        return fencedValue(connection, statement, value, type);
    }

    /** A value read from the database, with result sets (PostgreSQL refcursors) and arrays fenced. */
    static Object fencedValue(FencedConnection connection, Statement statement, Object value) {
        if (value instanceof ResultSet nested) {
            return new FencedResultSet(connection, statement, nested, null, null);
        }
        if (value instanceof Array array) {
            return new FencedArray(connection, array);
        }
        if (value instanceof Blob blob) {
            return FencedBlob.wrap(blob);
        }
        if (value instanceof Clob clob) {
            return FencedClob.wrap(clob);
        }
        return value;
    }

    /** {@link #fencedValue(FencedConnection, Statement, Object)} as what {@code getObject(.., type)} asked for. */
    static <T> T fencedValue(FencedConnection connection, Statement statement, Object value, Class<T> type)
            throws SQLException {
        Object fenced = fencedValue(connection, statement, value);
        if (fenced != null && !type.isInstance(fenced)) {
            throw new FencingException("fencing-jdbc does not hand out a " + type.getName()
                    + ": the driver's own objects are not handed out; ask for " + ResultSet.class.getName()
                    + " or " + Array.class.getName() + " instead");
        }
        return type.cast(fenced);
    }

    /**
     * Before a row is written back: refused when it may belong to a fenced table, unless the database
     * guard is required and verified (its trigger checks the write); the session's fence is set first.
     */
    private void refuseWriteBack(String operation) throws SQLException {
        if (connection.pipeline().guardChecksWriteBack()) {
            connection.pipeline().beforeWriteBack();
            return;
        }
        if (origin == null || origin.namesFencedTable()) {
            String table = origin == null ? null : origin.fencedTable();
            throw new UnfenceableStatementException(table, "ResultSet." + operation + " is refused: "
                    + (table == null ? "these rows may belong to a fenced table"
                                     : "these rows were read from fenced table " + table)
                    + ", and the driver would write them back without the fence check; nothing was sent."
                    + " Change them with an UPDATE, INSERT or DELETE statement instead.");
        }
    }

    @Override
    public void insertRow() throws SQLException {
        refuseWriteBack("insertRow");
        try {
            delegate.insertRow();
            connection.pipeline().afterWriteBack();
        } catch (SQLException failure) {
            throw connection.pipeline().writeBackFailed(failure);
        }
    }

    @Override
    public void updateRow() throws SQLException {
        refuseWriteBack("updateRow");
        try {
            delegate.updateRow();
            connection.pipeline().afterWriteBack();
        } catch (SQLException failure) {
            throw connection.pipeline().writeBackFailed(failure);
        }
    }

    @Override
    public void deleteRow() throws SQLException {
        refuseWriteBack("deleteRow");
        try {
            delegate.deleteRow();
            connection.pipeline().afterWriteBack();
        } catch (SQLException failure) {
            throw connection.pipeline().writeBackFailed(failure);
        }
    }

    @Override
    public Object getObject(int columnIndex) throws SQLException {
        return fenced(delegate.getObject(columnIndex));
    }

    @Override
    public Object getObject(String columnLabel) throws SQLException {
        return fenced(delegate.getObject(columnLabel));
    }

    @Override
    public Object getObject(int columnIndex, Map<String, Class<?>> map) throws SQLException {
        return fenced(delegate.getObject(columnIndex, map));
    }

    @Override
    public Object getObject(String columnLabel, Map<String, Class<?>> map) throws SQLException {
        return fenced(delegate.getObject(columnLabel, map));
    }

    @Override
    public <T> T getObject(int columnIndex, Class<T> type) throws SQLException {
        return fenced(delegate.getObject(columnIndex, type), type);
    }

    @Override
    public <T> T getObject(String columnLabel, Class<T> type) throws SQLException {
        return fenced(delegate.getObject(columnLabel, type), type);
    }

    @Override
    public void close() throws SQLException {
        check = null;
        delegate.close();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return Wrappers.unwrap(this, iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return Wrappers.isWrapperFor(this, iface);
    }

    @Override
    public String toString() {
        return "FencedResultSet[" + delegate + "]";
    }

    @Override
    <T> T toDriver(T value) {
        return Wrappers.toDriver(value);
    }

    /**
     * getArray, getBlob, getClob, getNClob: as {@link #fencedValue} hands values out (LOBs read-only:
     * on PostgreSQL a write through one would change the large object without a statement, so
     * without the fence check). Sound: each wrapper implements the interface it wraps.
     */
    @Override
    @SuppressWarnings("unchecked")
    <T> T toApplication(T value) {
        return (T) fencedValue(connection, statement, value);
    }
}
