package dev.fencing.internal.jdbc;

import dev.fencing.internal.sql.FencePlan;

import java.sql.ParameterMetaData;
import java.sql.SQLException;

/**
 * Parameter metadata in the application's numbering: the fence slots the driver sees are not the
 * application's parameters, so they are neither counted nor reachable.
 */
final class FencedParameterMetaData implements ParameterMetaData {

    private final ParameterMetaData delegate;
    private final FencePlan plan;

    FencedParameterMetaData(ParameterMetaData delegate, FencePlan plan) {
        this.delegate = delegate;
        this.plan = plan;
    }

    private int index(int param) throws SQLException {
        return FencedPreparedStatement.databaseIndex(plan, param);
    }

    @Override
    public int getParameterCount() throws SQLException {
        return plan.kind() == FencePlan.Kind.FENCED ? plan.parameterCount() : delegate.getParameterCount();
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
    public int isNullable(int param) throws SQLException {
        return delegate.isNullable(index(param));
    }

    @Override
    public boolean isSigned(int param) throws SQLException {
        return delegate.isSigned(index(param));
    }

    @Override
    public int getPrecision(int param) throws SQLException {
        return delegate.getPrecision(index(param));
    }

    @Override
    public int getScale(int param) throws SQLException {
        return delegate.getScale(index(param));
    }

    @Override
    public int getParameterType(int param) throws SQLException {
        return delegate.getParameterType(index(param));
    }

    @Override
    public String getParameterTypeName(int param) throws SQLException {
        return delegate.getParameterTypeName(index(param));
    }

    @Override
    public String getParameterClassName(int param) throws SQLException {
        return delegate.getParameterClassName(index(param));
    }

    @Override
    public int getParameterMode(int param) throws SQLException {
        return delegate.getParameterMode(index(param));
    }
}
