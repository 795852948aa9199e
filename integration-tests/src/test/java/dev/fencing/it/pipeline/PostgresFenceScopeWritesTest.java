package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.testing.TestDatabase;

import javax.sql.DataSource;

/** Fence scopes and the writes that follow them, on PostgreSQL (where the zombie fence was first seen). */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
class PostgresFenceScopeWritesTest extends FenceScopeWritesContract {

    private final DataSource database;

    PostgresFenceScopeWritesTest(DataSource database) {
        this.database = database;
    }

    @Override
    DataSource raw() {
        return database;
    }
}
