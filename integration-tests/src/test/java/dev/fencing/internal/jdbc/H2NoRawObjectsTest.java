package dev.fencing.internal.jdbc;

import org.h2.jdbc.JdbcConnection;
import org.h2.jdbc.JdbcDatabaseMetaData;
import org.h2.jdbc.JdbcResultSet;
import org.h2.jdbc.JdbcStatement;

import javax.sql.DataSource;

class H2NoRawObjectsTest extends NoRawObjectsContract {

    private static final DataSource DATABASE = H2.database();

    @Override
    DataSource raw() {
        return DATABASE;
    }

    @Override
    Class<?> driverConnectionClass() {
        return JdbcConnection.class;
    }

    @Override
    Class<?> driverStatementClass() {
        return JdbcStatement.class;
    }

    @Override
    Class<?> driverMetaDataClass() {
        return JdbcDatabaseMetaData.class;
    }

    @Override
    Class<?> driverResultSetClass() {
        return JdbcResultSet.class;
    }
}
