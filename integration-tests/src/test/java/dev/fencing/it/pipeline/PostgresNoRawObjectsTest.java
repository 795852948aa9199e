package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.testing.TestDatabase;

import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGStatement;
import org.postgresql.jdbc.PgDatabaseMetaData;
import org.postgresql.jdbc.PgResultSet;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.UnfenceableStatementException;

import javax.sql.DataSource;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Blob;
import java.sql.Clob;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
        assertThat(owner).isInstanceOf(JdbcInternals.FENCED_STATEMENT);
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
            assertThat(cursor).isInstanceOf(JdbcInternals.FENCED_RESULT_SET);
            ResultSet nested = (ResultSet) cursor;
            assertThat(nested.getStatement().getConnection()).isSameAs(connection);
            assertThat(nested.next()).isTrue();
            assertThat(nested.getLong(1)).isEqualTo(1);
        }
        connection.rollback();
    }

    /**
     * A Blob or Clob read from an {@code oid} column is the large object itself: a write through it
     * would change what a fenced row refers to with no statement, so no fence check and no trigger.
     * Read through a fenced connection it is read-only; a new value goes in with a fenced UPDATE.
     */
    @Test
    void aLargeObjectReadThroughAFencedConnectionCannotBeWrittenAround() throws Exception {
        sql("ALTER TABLE orders ADD COLUMN doc oid",
                "INSERT INTO orders (id, status, amount, last_fence, doc)"
                        + " VALUES (1, 'pending', 100, 9, lo_from_bytea(0, convert_to('original', 'UTF8')))");
        Connection connection = connection();
        connection.setAutoCommit(false);
        try (Fence.Scope stale = Fence.enter(7)) {
            ResultSet rows = connection.createStatement().executeQuery("SELECT doc FROM orders WHERE id = 1");
            assertThat(rows.next()).isTrue();
            Blob blob = rows.getBlob(1);
            assertThat(new String(blob.getBytes(1, 8), StandardCharsets.UTF_8)).isEqualTo("original");
            assertThatThrownBy(() -> blob.setBytes(1, "HACKED!!".getBytes(StandardCharsets.UTF_8)))
                    .isInstanceOf(UnfenceableStatementException.class).hasMessageContaining("Blob.setBytes is refused");
            assertThatThrownBy(() -> blob.setBinaryStream(1)).isInstanceOf(UnfenceableStatementException.class);
            assertThatThrownBy(() -> blob.truncate(0)).isInstanceOf(UnfenceableStatementException.class);
            Clob clob = rows.getClob(1);
            assertThatThrownBy(() -> clob.setString(1, "HACKED!!")).isInstanceOf(UnfenceableStatementException.class);
            assertThatThrownBy(() -> clob.truncate(0)).isInstanceOf(UnfenceableStatementException.class);
            connection.commit();
        }
        assertThat(document(1)).isEqualTo("original");

        // the way to change it: a new large object (pgjdbc makes one from a stream), bound on a
        // fenced UPDATE; a read one bound again is copied into a new one
        try (Fence.Scope current = Fence.enter(10)) {
            PreparedStatement update = connection.prepareStatement("UPDATE orders SET doc = ? WHERE id = 1");
            update.setBlob(1, new ByteArrayInputStream("replaced".getBytes(StandardCharsets.UTF_8)));
            assertThat(update.executeUpdate()).isEqualTo(1);
            connection.commit();
        }
        assertThat(document(1)).isEqualTo("replaced");
        assertThat(order(1).lastFence()).isEqualTo(10);
        try (Fence.Scope current = Fence.enter(11)) {
            ResultSet rows = connection.createStatement().executeQuery("SELECT doc FROM orders WHERE id = 1");
            assertThat(rows.next()).isTrue();
            PreparedStatement copy = connection.prepareStatement("UPDATE orders SET doc = ? WHERE id = 1");
            copy.setBlob(1, rows.getBlob(1));
            assertThat(copy.executeUpdate()).isEqualTo(1);
            connection.commit();
        }
        assertThat(document(1)).isEqualTo("replaced");
        assertThat(order(1).lastFence()).isEqualTo(11);
    }

    /** The same write through PostgreSQL's large-object functions: refused before it is sent. */
    @Test
    void largeObjectFunctionsThatWriteAreRefusedOnAFencedTable() throws Exception {
        sql("ALTER TABLE orders ADD COLUMN doc oid",
                "INSERT INTO orders (id, status, amount, last_fence, doc)"
                        + " VALUES (1, 'pending', 100, 9, lo_from_bytea(0, convert_to('original', 'UTF8')))");
        Connection connection = connection();
        try (Fence.Scope stale = Fence.enter(7)) {
            for (String sql : new String[] {
                    "SELECT lo_put(doc, 0, convert_to('HACKED!!', 'UTF8')) FROM orders WHERE id = 1",
                    "SELECT lo_unlink(doc) FROM orders WHERE id = 1"}) {
                assertThatThrownBy(() -> connection.createStatement().executeQuery(sql))
                        .as(sql).isInstanceOf(UnfenceableStatementException.class)
                        .hasMessageContaining("outside every table");
            }
        }
        assertThat(document(1)).isEqualTo("original");

        // naming no fenced table: refused under procedure-calls=reject (the test's user is a superuser,
        // who may write the catalog that holds large objects, or wrap lo_unlink in an operator)
        Connection rejecting = connection(fenced(builder -> builder.procedureCalls(FencingConfig.ProcedureCalls.REJECT)));
        long oid;
        try (ResultSet row = rejecting.createStatement().executeQuery("SELECT doc FROM orders WHERE id = 1")) {
            assertThat(row.next()).isTrue();
            oid = row.getLong(1);
        }
        for (String sql : new String[] {
                "UPDATE pg_largeobject SET data = convert_to('HACKED!!', 'UTF8') WHERE loid = " + oid,
                "SELECT lo_put(" + oid + ", 0, convert_to('HACKED!!', 'UTF8'))",
                "CREATE OPERATOR !!!! (RIGHTARG = oid, FUNCTION = lo_unlink)"}) {
            assertThatThrownBy(() -> rejecting.createStatement().execute(sql))
                    .as(sql).isInstanceOf(UnfenceableStatementException.class);
        }
        assertThat(document(1)).isEqualTo("original");
    }

    /** The large object of order {@code id}, read through an unfenced connection. */
    private String document(long id) throws SQLException {
        try (Connection check = raw().getConnection();
             ResultSet rows = check.createStatement().executeQuery(
                     "SELECT convert_from(lo_get(doc), 'UTF8') FROM orders WHERE id = " + id)) {
            assertThat(rows.next()).isTrue();
            return rows.getString(1);
        }
    }

    @Override
    Class<?> driverResultSetClass() {
        return PgResultSet.class;
    }
}
