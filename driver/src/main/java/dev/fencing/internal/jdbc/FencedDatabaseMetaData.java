package dev.fencing.internal.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.RowIdLifetime;
import java.sql.SQLException;

/**
 * Database metadata whose result sets and connection are fenced wrappers: a driver's metadata
 * result set answers {@code getStatement().getConnection()} with the driver's own connection.
 */
final class FencedDatabaseMetaData extends DatabaseMetaDataDelegate {

    private final FencedConnection connection;

    FencedDatabaseMetaData(FencedConnection connection, DatabaseMetaData delegate) {
        super(delegate);
        this.connection = connection;
    }

    private ResultSet fenced(ResultSet rows) {
        return FencedResultSet.detached(connection, rows);
    }

    @Override
    public Connection getConnection() throws SQLException {
        return connection;
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return Wrappers.unwrap(this, iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return Wrappers.isWrapperFor(this, iface);
    }

    // ---- delegation; every result set fenced ---------------------------------------------

    @Override
    public ResultSet getProcedures(String catalog, String schemaPattern, String procedureNamePattern) throws SQLException {
        return fenced(delegate.getProcedures(catalog, schemaPattern, procedureNamePattern));
    }

    @Override
    public ResultSet getProcedureColumns(String catalog, String schemaPattern, String procedureNamePattern, String columnNamePattern) throws SQLException {
        return fenced(delegate.getProcedureColumns(catalog, schemaPattern, procedureNamePattern, columnNamePattern));
    }

    @Override
    public ResultSet getTables(String catalog, String schemaPattern, String tableNamePattern, String[] types) throws SQLException {
        return fenced(delegate.getTables(catalog, schemaPattern, tableNamePattern, types));
    }

    @Override
    public ResultSet getSchemas() throws SQLException {
        return fenced(delegate.getSchemas());
    }

    @Override
    public ResultSet getCatalogs() throws SQLException {
        return fenced(delegate.getCatalogs());
    }

    @Override
    public ResultSet getTableTypes() throws SQLException {
        return fenced(delegate.getTableTypes());
    }

    @Override
    public ResultSet getColumns(String catalog, String schemaPattern, String tableNamePattern, String columnNamePattern) throws SQLException {
        return fenced(delegate.getColumns(catalog, schemaPattern, tableNamePattern, columnNamePattern));
    }

    @Override
    public ResultSet getColumnPrivileges(String catalog, String schema, String table, String columnNamePattern) throws SQLException {
        return fenced(delegate.getColumnPrivileges(catalog, schema, table, columnNamePattern));
    }

    @Override
    public ResultSet getTablePrivileges(String catalog, String schemaPattern, String tableNamePattern) throws SQLException {
        return fenced(delegate.getTablePrivileges(catalog, schemaPattern, tableNamePattern));
    }

    @Override
    public ResultSet getBestRowIdentifier(String catalog, String schema, String table, int scope, boolean nullable) throws SQLException {
        return fenced(delegate.getBestRowIdentifier(catalog, schema, table, scope, nullable));
    }

    @Override
    public ResultSet getVersionColumns(String catalog, String schema, String table) throws SQLException {
        return fenced(delegate.getVersionColumns(catalog, schema, table));
    }

    @Override
    public ResultSet getPrimaryKeys(String catalog, String schema, String table) throws SQLException {
        return fenced(delegate.getPrimaryKeys(catalog, schema, table));
    }

    @Override
    public ResultSet getImportedKeys(String catalog, String schema, String table) throws SQLException {
        return fenced(delegate.getImportedKeys(catalog, schema, table));
    }

    @Override
    public ResultSet getExportedKeys(String catalog, String schema, String table) throws SQLException {
        return fenced(delegate.getExportedKeys(catalog, schema, table));
    }

    @Override
    public ResultSet getCrossReference(String parentCatalog, String parentSchema, String parentTable, String foreignCatalog, String foreignSchema, String foreignTable) throws SQLException {
        return fenced(delegate.getCrossReference(parentCatalog, parentSchema, parentTable, foreignCatalog, foreignSchema, foreignTable));
    }

    @Override
    public ResultSet getTypeInfo() throws SQLException {
        return fenced(delegate.getTypeInfo());
    }

    @Override
    public ResultSet getIndexInfo(String catalog, String schema, String table, boolean unique, boolean approximate) throws SQLException {
        return fenced(delegate.getIndexInfo(catalog, schema, table, unique, approximate));
    }

    @Override
    public ResultSet getUDTs(String catalog, String schemaPattern, String typeNamePattern, int[] types) throws SQLException {
        return fenced(delegate.getUDTs(catalog, schemaPattern, typeNamePattern, types));
    }

    @Override
    public ResultSet getSuperTypes(String catalog, String schemaPattern, String typeNamePattern) throws SQLException {
        return fenced(delegate.getSuperTypes(catalog, schemaPattern, typeNamePattern));
    }

    @Override
    public ResultSet getSuperTables(String catalog, String schemaPattern, String tableNamePattern) throws SQLException {
        return fenced(delegate.getSuperTables(catalog, schemaPattern, tableNamePattern));
    }

    @Override
    public ResultSet getAttributes(String catalog, String schemaPattern, String typeNamePattern, String attributeNamePattern) throws SQLException {
        return fenced(delegate.getAttributes(catalog, schemaPattern, typeNamePattern, attributeNamePattern));
    }

    @Override
    public ResultSet getSchemas(String catalog, String schemaPattern) throws SQLException {
        return fenced(delegate.getSchemas(catalog, schemaPattern));
    }

    @Override
    public ResultSet getClientInfoProperties() throws SQLException {
        return fenced(delegate.getClientInfoProperties());
    }

    @Override
    public ResultSet getFunctions(String catalog, String schemaPattern, String functionNamePattern) throws SQLException {
        return fenced(delegate.getFunctions(catalog, schemaPattern, functionNamePattern));
    }

    @Override
    public ResultSet getFunctionColumns(String catalog, String schemaPattern, String functionNamePattern, String columnNamePattern) throws SQLException {
        return fenced(delegate.getFunctionColumns(catalog, schemaPattern, functionNamePattern, columnNamePattern));
    }

    @Override
    public ResultSet getPseudoColumns(String catalog, String schemaPattern, String tableNamePattern, String columnNamePattern) throws SQLException {
        return fenced(delegate.getPseudoColumns(catalog, schemaPattern, tableNamePattern, columnNamePattern));
    }

}
