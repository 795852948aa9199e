package dev.fencing.internal.jdbc;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;

/**
 * A SQL {@code ARRAY} value whose result-set views are fenced: a driver's array result set
 * answers {@code getStatement()} with the driver's own statement, and through it its connection.
 */
final class FencedArray extends ArrayDelegate {

    private final FencedConnection connection;

    FencedArray(FencedConnection connection, Array delegate) {
        super(delegate);
        this.connection = connection;
    }

    /** The driver's array, null-safe: for values read from the database. */
    static Array wrap(FencedConnection connection, Array array) {
        return array == null ? null : new FencedArray(connection, array);
    }

    Array delegate() {
        return delegate;
    }

    private ResultSet fenced(ResultSet rows) {
        return FencedResultSet.detached(connection, rows);
    }

    @Override
    public Object getArray() throws SQLException {
        return delegate.getArray();
    }

    @Override
    public Object getArray(Map<String, Class<?>> map) throws SQLException {
        return delegate.getArray(map);
    }

    @Override
    public Object getArray(long index, int count) throws SQLException {
        return delegate.getArray(index, count);
    }

    @Override
    public Object getArray(long index, int count, Map<String, Class<?>> map) throws SQLException {
        return delegate.getArray(index, count, map);
    }

    @Override
    public ResultSet getResultSet() throws SQLException {
        return fenced(delegate.getResultSet());
    }

    @Override
    public ResultSet getResultSet(Map<String, Class<?>> map) throws SQLException {
        return fenced(delegate.getResultSet(map));
    }

    @Override
    public ResultSet getResultSet(long index, int count) throws SQLException {
        return fenced(delegate.getResultSet(index, count));
    }

    @Override
    public ResultSet getResultSet(long index, int count, Map<String, Class<?>> map) throws SQLException {
        return fenced(delegate.getResultSet(index, count, map));
    }

    @Override
    public String toString() {
        return delegate.toString();
    }
}
