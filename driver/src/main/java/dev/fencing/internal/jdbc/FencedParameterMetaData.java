package dev.fencing.internal.jdbc;

import dev.fencing.internal.sql.FencePlan;

import java.sql.ParameterMetaData;
import java.sql.SQLException;

/**
 * Parameter metadata in the application's numbering: the fence slots the driver sees are not the
 * application's parameters, so they are neither counted nor reachable.
 */
final class FencedParameterMetaData extends ParameterMetaDataDelegate {

    private final FencePlan plan;

    FencedParameterMetaData(ParameterMetaData delegate, FencePlan plan) {
        super(delegate);
        this.plan = plan;
    }

    @Override
    int parameterIndex(int param) throws SQLException {
        return StatementCore.databaseIndex(plan, param);
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
}
