package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import org.h2.jdbc.JdbcConnection;
import org.h2.jdbc.JdbcDatabaseMetaData;
import org.h2.jdbc.JdbcResultSet;
import org.h2.jdbc.JdbcStatement;

import dev.fencing.Fence;
import dev.fencing.UnfenceableStatementException;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.nio.charset.StandardCharsets;
import java.sql.Blob;
import java.sql.Clob;
import java.sql.Connection;
import java.sql.NClob;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

    /**
     * LOBs read through a fenced connection are read-only on every database (H2 hands out a value
     * it would refuse to change anyway), by getBlob/getClob/getNClob and by getObject, and go back
     * to the driver as its own objects when bound on a fenced statement.
     */
    @Test
    void lobsReadThroughAFencedConnectionAreReadOnlyAndCanBeBoundAgain() throws SQLException {
        sql("ALTER TABLE orders ADD COLUMN doc BLOB", "ALTER TABLE orders ADD COLUMN memo CLOB",
                "INSERT INTO orders (id, status, amount, last_fence, doc, memo)"
                        + " VALUES (1, 'pending', 100, 5, X'6F726967696E616C', 'original')");
        Connection connection = connection();
        try (Fence.Scope scope = Fence.enter(6)) {
            ResultSet rows = connection.createStatement().executeQuery("SELECT doc, memo FROM orders WHERE id = 1");
            assertThat(rows.next()).isTrue();
            Blob blob = rows.getBlob(1);
            Clob clob = rows.getClob(2);
            NClob nclob = rows.getNClob(2);
            assertThat(new String(blob.getBytes(1, 8), StandardCharsets.UTF_8)).isEqualTo("original");
            assertThat(clob.getSubString(1, 8)).isEqualTo("original");
            assertThat(nclob.length()).isEqualTo(8);
            assertThat(rows.getObject(1)).isInstanceOf(JdbcInternals.FENCED_BLOB);
            assertThat(rows.getObject(2)).isInstanceOf(JdbcInternals.FENCED_CLOB);
            assertThat(rows.getObject(1, Blob.class)).isInstanceOf(JdbcInternals.FENCED_BLOB);
            assertThatThrownBy(() -> blob.setBytes(1, new byte[] {1})).isInstanceOf(UnfenceableStatementException.class);
            assertThatThrownBy(() -> clob.setString(1, "x")).isInstanceOf(UnfenceableStatementException.class);
            assertThatThrownBy(() -> nclob.setCharacterStream(1)).isInstanceOf(UnfenceableStatementException.class)
                    .hasMessageContaining("NClob.setCharacterStream is refused");

            PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO orders (id, status, amount, doc, memo) VALUES (2, 'copy', 0, ?, ?)");
            insert.setBlob(1, blob);
            insert.setObject(2, clob);
            assertThat(insert.executeUpdate()).isEqualTo(1);
        }
        try (Connection check = raw().getConnection();
             ResultSet copied = check.createStatement().executeQuery("SELECT doc, memo, last_fence FROM orders WHERE id = 2")) {
            assertThat(copied.next()).isTrue();
            assertThat(new String(copied.getBytes(1), StandardCharsets.UTF_8)).isEqualTo("original");
            assertThat(copied.getString(2)).isEqualTo("original");
            assertThat(copied.getLong(3)).isEqualTo(6);
        }
    }
}
