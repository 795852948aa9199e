package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import javax.sql.DataSource;

/** Fence scopes and the writes that follow them, on H2. */
class H2FenceScopeWritesTest extends FenceScopeWritesContract {

    private static final DataSource DATABASE = H2.database();

    @Override
    DataSource raw() {
        return DATABASE;
    }
}
