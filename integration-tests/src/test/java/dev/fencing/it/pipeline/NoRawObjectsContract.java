package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.jdbc.FencingDataSource;

import dev.fencing.Fence;
import dev.fencing.FencingException;
import dev.fencing.UnfenceableStatementException;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * No path from a fenced object leads to the driver's own objects: unwrap refuses, and every
 * back-reference returns a wrapper. Also: rows of a fenced table cannot be written back through
 * an updatable result set, and a closed connection reaches nothing.
 */
abstract class NoRawObjectsContract extends OrdersFixture {

    @Test
    void unwrapReturnsOnlyTheWrapperItself() throws SQLException {
        Connection connection = connection();
        assertThat(connection.unwrap(Connection.class)).isSameAs(connection);
        assertThat(connection.isWrapperFor(Connection.class)).isTrue();
        assertThat(connection.isWrapperFor(driverConnectionClass())).isFalse();
        assertThatThrownBy(() -> connection.unwrap(driverConnectionClass()))
                .isInstanceOf(FencingException.class)
                .hasMessageContaining("does not unwrap");
        Statement statement = connection.createStatement();
        assertThat(statement.unwrap(Statement.class)).isSameAs(statement);
        assertThatThrownBy(() -> statement.unwrap(driverStatementClass())).isInstanceOf(FencingException.class);
        assertThat(statement.isWrapperFor(driverStatementClass())).isFalse();
        ResultSet rows = statement.executeQuery("SELECT 1");
        assertThat(rows.unwrap(ResultSet.class)).isSameAs(rows);
        assertThat(rows.unwrap(Object.class)).isSameAs(rows);
        assertThatThrownBy(() -> rows.unwrap(driverResultSetClass())).isInstanceOf(FencingException.class);
        DatabaseMetaData metadata = connection.getMetaData();
        assertThatThrownBy(() -> metadata.unwrap(driverMetaDataClass())).isInstanceOf(FencingException.class);
    }

    @Test
    void theDataSourceDoesNotUnwrapToWhatItWraps() throws SQLException {
        FencingDataSource dataSource = fenced();
        assertThat(dataSource.unwrap(DataSource.class)).isSameAs(dataSource);
        assertThat(dataSource.isWrapperFor(raw().getClass())).isFalse();
        assertThatThrownBy(() -> dataSource.unwrap(raw().getClass())).isInstanceOf(FencingException.class);
        assertThatThrownBy(dataSource::createConnectionBuilder).isInstanceOf(SQLException.class);
    }

    @Test
    void everyBackReferenceIsAWrapper() throws SQLException {
        Connection connection = connection();
        assertThat(connection).isInstanceOf(FencedConnection.class);
        Statement statement = connection.createStatement();
        assertThat(statement.getConnection()).isSameAs(connection);
        ResultSet rows = statement.executeQuery("SELECT id FROM orders");
        assertThat(rows).isInstanceOf(JdbcInternals.FENCED_RESULT_SET);
        assertThat(rows.getStatement()).isSameAs(statement);
        assertThat(statement.execute("SELECT id FROM notes")).isTrue();
        assertThat(statement.getResultSet()).isInstanceOf(JdbcInternals.FENCED_RESULT_SET);
        assertThat(statement.getResultSet().getStatement()).isSameAs(statement);

        PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO notes (id, body) VALUES (?, ?)", Statement.RETURN_GENERATED_KEYS);
        insert.setLong(1, 1);
        insert.setString(2, "x");
        insert.executeUpdate();
        ResultSet keys = insert.getGeneratedKeys();
        assertThat(keys).isInstanceOf(JdbcInternals.FENCED_RESULT_SET);
        assertThat(keys.getStatement()).isSameAs(insert);
        assertThat(insert.getConnection()).isSameAs(connection);

        DatabaseMetaData metadata = connection.getMetaData();
        assertThat(metadata).isInstanceOf(JdbcInternals.FENCED_DATABASE_META_DATA);
        assertThat(metadata.getConnection()).isSameAs(connection);
        ResultSet tables = metadata.getTables(null, null, "%", null);
        assertThat(tables).isInstanceOf(JdbcInternals.FENCED_RESULT_SET);
        Statement tablesStatement = tables.getStatement();
        if (tablesStatement != null) {
            assertThat(tablesStatement).isInstanceOf(JdbcInternals.FENCED_STATEMENT);
            assertThat(tablesStatement.getConnection()).isSameAs(connection);
        }
        for (ResultSet more : new ResultSet[] {metadata.getColumns(null, null, "%", "%"),
                metadata.getPrimaryKeys(null, null, "orders"), metadata.getSchemas(), metadata.getTypeInfo()}) {
            assertThat(more).isInstanceOf(JdbcInternals.FENCED_RESULT_SET);
            Statement owner = more.getStatement();
            if (owner != null) {
                assertThat(owner.getConnection()).isSameAs(connection);
            }
        }
    }

    @Test
    void arraysLeadBackToWrappersOnly() throws SQLException {
        Connection connection = connection();
        ResultSet rows = connection.createStatement().executeQuery("SELECT ARRAY[1, 2, 3]");
        assertThat(rows.next()).isTrue();
        java.sql.Array array = rows.getArray(1);
        assertThat(array).isInstanceOf(JdbcInternals.FENCED_ARRAY);
        assertThat(rows.getObject(1)).isInstanceOf(JdbcInternals.FENCED_ARRAY);
        ResultSet elements = array.getResultSet();
        assertThat(elements).isInstanceOf(JdbcInternals.FENCED_RESULT_SET);
        Statement owner = elements.getStatement();
        if (owner != null) {
            assertThat(owner.getConnection()).isSameAs(connection);
        }
        java.sql.Array created = connection.createArrayOf("INTEGER", new Object[] {1, 2});
        assertThat(created).isInstanceOf(JdbcInternals.FENCED_ARRAY);
    }

    @Test
    void rowsOfAFencedTableCannotBeWrittenBackThroughTheResultSet() throws SQLException {
        seed(1, "pending", 100, 5);
        Statement statement = connection().createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_UPDATABLE);
        try (Fence.Scope scope = Fence.enter(7)) {
            ResultSet rows = statement.executeQuery("SELECT id, status FROM orders WHERE id = 1");
            assertThat(rows.next()).isTrue();
            rows.updateString("status", "hacked");
            assertThatThrownBy(rows::updateRow)
                    .isInstanceOf(UnfenceableStatementException.class)
                    .hasMessageContaining("orders");
            assertThatThrownBy(rows::deleteRow).isInstanceOf(UnfenceableStatementException.class);
            rows.moveToInsertRow();
            rows.updateLong("id", 2);
            rows.updateString("status", "inserted");
            assertThatThrownBy(rows::insertRow).isInstanceOf(UnfenceableStatementException.class);
        }
        assertThat(order(1)).isEqualTo(new Order(1, "pending", 100, 5));
        assertThat(order(2)).isNull();
    }

    @Test
    void rowsOfOtherTablesCanBeWrittenBackThroughTheResultSet() throws SQLException {
        sql("INSERT INTO notes (id, body) VALUES (1, 'a')");
        Statement statement = connection().createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_UPDATABLE);
        ResultSet rows = statement.executeQuery("SELECT id, body FROM notes WHERE id = 1");
        assertThat(rows.next()).isTrue();
        rows.updateString("body", "b");
        rows.updateRow();
        rows.close();
        try (Connection check = raw().getConnection();
             ResultSet body = check.createStatement().executeQuery("SELECT body FROM notes WHERE id = 1")) {
            assertThat(body.next()).isTrue();
            assertThat(body.getString(1)).isEqualTo("b");
        }
    }

    @Test
    void aClosedConnectionReachesNothing() throws SQLException {
        Connection connection = fenced().getConnection();
        connection.close();
        assertThat(connection.isClosed()).isTrue();
        assertThat(connection.isValid(1)).isFalse();
        assertThatThrownBy(connection::createStatement).hasMessageContaining("closed");
        assertThatThrownBy(() -> connection.prepareStatement("SELECT 1")).hasMessageContaining("closed");
        assertThatThrownBy(() -> connection.prepareCall("SELECT 1")).hasMessageContaining("closed");
        assertThatThrownBy(connection::getMetaData).hasMessageContaining("closed");
        assertThatThrownBy(() -> connection.unwrap(Connection.class)).hasMessageContaining("closed");
        assertThatThrownBy(() -> connection.setAutoCommit(false)).hasMessageContaining("closed");
        assertThatThrownBy(() -> connection.createArrayOf("INTEGER", new Object[0])).hasMessageContaining("closed");
        connection.close();
    }

    @Test
    void aClosedStatementRefusesToExecute() throws SQLException {
        Statement statement = connection().createStatement();
        statement.close();
        assertThat(statement.isClosed()).isTrue();
        try (Fence.Scope scope = Fence.enter(7)) {
            assertThatThrownBy(() -> statement.executeUpdate("UPDATE orders SET status = 'x'"))
                    .hasMessageContaining("closed");
        }
        assertThatThrownBy(statement::getConnection).hasMessageContaining("closed");
    }

    @Test
    void callableStatementsAreFencedAndBindByIndex() throws SQLException {
        seed(1, "pending", 100, 5);
        CallableStatement call = connection().prepareCall("UPDATE orders SET status = ? WHERE id = ?");
        try (Fence.Scope scope = Fence.enter(7)) {
            call.setString(1, "paid");
            call.setLong(2, 1);
            assertThat(call.executeUpdate()).isEqualTo(1);
            assertThatThrownBy(() -> call.setString("status", "x")).isInstanceOf(UnfenceableStatementException.class);
            assertThatThrownBy(() -> call.setLong(3, 1)).hasMessageContaining("out of range");
        }
        assertThat(order(1)).isEqualTo(new Order(1, "paid", 100, 7));
    }

    abstract Class<?> driverConnectionClass();

    abstract Class<?> driverStatementClass();

    abstract Class<?> driverMetaDataClass();

    abstract Class<?> driverResultSetClass();
}
