package dev.fencing.internal.jdbc;

import dev.fencing.testing.TestDatabase;

import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGStatement;
import org.postgresql.jdbc.PgDatabaseMetaData;
import org.postgresql.jdbc.PgResultSet;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

@TestDatabase(TestDatabase.Kind.POSTGRESQL)
class PostgresNoRawObjectsTest extends NoRawObjectsContract {

    private final DataSource database;

    PostgresNoRawObjectsTest(DataSource database) {
        this.database = database;
    }

    @Override
    DataSource raw() {
        return database;
    }

    @Override
    Class<?> driverConnectionClass() {
        // unwrapping to PGConnection would hand out getCopyAPI(): COPY into a fenced table, unchecked
        return PGConnection.class;
    }

    @Override
    Class<?> driverStatementClass() {
        return PGStatement.class;
    }

    @Override
    Class<?> driverMetaDataClass() {
        return PgDatabaseMetaData.class;
    }

    @Test
    void metadataResultSetsLeadBackToTheFencedConnection() throws SQLException {
        Connection connection = connection();
        ResultSet tables = connection.getMetaData().getTables(null, null, "orders", null);
        Statement owner = tables.getStatement();
        assertThat(owner).isInstanceOf(FencedStatement.class);
        assertThat(owner.getConnection()).isSameAs(connection).isNotInstanceOf(PGConnection.class);
    }

    @Test
    void refcursorsAreFencedResultSets() throws SQLException {
        sql("CREATE OR REPLACE FUNCTION open_orders() RETURNS refcursor AS $$"
                + " DECLARE c refcursor := 'orders_cursor'; BEGIN OPEN c FOR SELECT id FROM orders; RETURN c; END"
                + " $$ LANGUAGE plpgsql");
        seed(1, "pending", 100, 5);
        Connection connection = connection();
        connection.setAutoCommit(false);
        try (ResultSet rows = connection.createStatement().executeQuery("SELECT open_orders()")) {
            assertThat(rows.next()).isTrue();
            Object cursor = rows.getObject(1);
            assertThat(cursor).isInstanceOf(FencedResultSet.class);
            ResultSet nested = (ResultSet) cursor;
            assertThat(nested.getStatement().getConnection()).isSameAs(connection);
            assertThat(nested.next()).isTrue();
            assertThat(nested.getLong(1)).isEqualTo(1);
        }
        connection.rollback();
    }

    @Override
    Class<?> driverResultSetClass() {
        return PgResultSet.class;
    }
}
