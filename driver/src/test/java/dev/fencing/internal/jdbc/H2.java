package dev.fencing.internal.jdbc;

import dev.fencing.testing.TestDatabases;

import javax.sql.DataSource;

/** One private H2 in-memory database per test class. */
final class H2 {

    private H2() {
    }

    static DataSource database() {
        return TestDatabases.h2();
    }
}
