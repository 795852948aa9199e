package dev.fencing.internal.jdbc;

import dev.fencing.internal.sql.FencePlan;

import java.sql.CallableStatement;
import java.sql.SQLException;
import java.util.Map;

/**
 * A callable statement, planned at prepare time like any other text. OUT
 * parameters by index use the application's numbering, like IN parameters. Parameters by name
 * cannot be mapped around the fence slots, so on a fenced write they are refused; on other
 * statements they pass to the driver ({@link StatementCore#parameterName}). The getters, setters and
 * registrations of plain values are generated ({@link CallableStatementDelegate}) and route through
 * the {@link StatementCore}'s hooks; arrays and LOBs are handed out through
 * {@link StatementCore#toApplication}, the {@code Object}s written here may need wrapping too.
 */
final class FencedCallableStatement extends CallableStatementDelegate {

    FencedCallableStatement(FencedConnection connection, FencePlan plan, CallableStatement statement) {
        super(statement, new StatementCore(connection, plan, statement));
        core.ownedBy(this);
    }

    private Object fenced(Object value) {
        return FencedResultSet.fencedValue(core.connection, this, value);
    }

    @Override
    public Object getObject(int parameterIndex) throws SQLException {
        return fenced(delegate.getObject(parameterIndex(parameterIndex)));
    }

    @Override
    public Object getObject(int parameterIndex, Map<String, Class<?>> map) throws SQLException {
        return fenced(delegate.getObject(parameterIndex(parameterIndex), map));
    }

    @Override
    public Object getObject(String parameterName) throws SQLException {
        return fenced(delegate.getObject(parameterName));
    }

    @Override
    public Object getObject(String parameterName, Map<String, Class<?>> map) throws SQLException {
        return fenced(delegate.getObject(parameterName, map));
    }

    @Override
    public <T> T getObject(int parameterIndex, Class<T> type) throws SQLException {
        return FencedResultSet.fencedValue(core.connection, this, delegate.getObject(parameterIndex(parameterIndex), type), type);
    }

    @Override
    public <T> T getObject(String parameterName, Class<T> type) throws SQLException {
        return FencedResultSet.fencedValue(core.connection, this, delegate.getObject(parameterName, type), type);
    }

    @Override
    public String toString() {
        return core.toString();
    }
}
