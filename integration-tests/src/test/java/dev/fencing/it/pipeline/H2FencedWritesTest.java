package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import javax.sql.DataSource;

class H2FencedWritesTest extends FencedWritesContract {

    private static final DataSource DATABASE = H2.database();

    @Override
    DataSource raw() {
        return DATABASE;
    }
}
