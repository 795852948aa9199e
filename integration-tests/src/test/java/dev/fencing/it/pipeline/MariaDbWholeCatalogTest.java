package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.testing.TestDatabase;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;

/** The whole catalog on MariaDB, where each schema is a database. */
@TestDatabase(TestDatabase.Kind.MARIADB)
class MariaDbWholeCatalogTest extends WholeCatalogContract {

    private final DataSource database;

    MariaDbWholeCatalogTest(DataSource database) {
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
        sql("CREATE DATABASE " + name);
    }

    @Override
    void dropNamespace(String name) throws SQLException {
        sql("DROP DATABASE IF EXISTS " + name);
    }

    @Override
    String switchTo(String name) {
        return "USE " + name;
    }

    @Override
    void setCurrent(Connection connection, String name) throws SQLException {
        connection.setCatalog(name);
    }
}
