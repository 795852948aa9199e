package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.testing.TestDatabase;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/** The catalog-reach oracle on MariaDB: two databases. */
@TestDatabase(TestDatabase.Kind.MARIADB)
class MariaDbCatalogReachOracleTest extends CatalogReachOracleContract {

    private final DataSource database;

    MariaDbCatalogReachOracleTest(DataSource database) {
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
        run("CREATE DATABASE " + name);
    }

    @Override
    String dropNamespaceText(String name) {
        return "DROP DATABASE IF EXISTS " + name;
    }

    @Override
    String dropsAnyOrder() {
        return "SET FOREIGN_KEY_CHECKS = 0";
    }

    @Override
    String cascadeWord() {
        return "";
    }

    private void run(String text) throws SQLException {
        try (Connection connection = database.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(text);
        }
    }
}
