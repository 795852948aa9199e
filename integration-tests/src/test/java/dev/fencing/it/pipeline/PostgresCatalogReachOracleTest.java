package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.testing.TestDatabase;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/** The catalog-reach oracle on PostgreSQL: two schemas. */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
class PostgresCatalogReachOracleTest extends CatalogReachOracleContract {

    private final DataSource database;

    PostgresCatalogReachOracleTest(DataSource database) {
        this.database = database;
    }

    @Override
    DataSource raw() {
        return database;
    }

    @Override
    String scratch() {
        return ScratchAreas.name(database);
    }

    @Override
    void createNamespace(String name) throws SQLException {
        run("CREATE SCHEMA " + name);
    }

    @Override
    String dropNamespaceText(String name) {
        return "DROP SCHEMA IF EXISTS " + name + " CASCADE";
    }

    @Override
    String dropsAnyOrder() {
        return "SELECT 1";
    }

    @Override
    String cascadeWord() {
        return " CASCADE";
    }

    private void run(String text) throws SQLException {
        try (Connection connection = database.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(text);
        }
    }
}
