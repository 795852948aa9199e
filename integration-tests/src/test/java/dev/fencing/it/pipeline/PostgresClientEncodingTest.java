package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.Fence;
import dev.fencing.UnfenceableStatementException;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 29, finding 1: the bytes PostgreSQL reads. With pgjdbc's {@code allowEncodingChanges}
 * and {@code client_encoding} EUC_JP, pgjdbc encodes U+00A5 as the byte 0x5C, which the server
 * reads as a backslash: in an {@code E''} string it escapes the quote after it, the string ends
 * one quote early, and what the lexer read inside the string runs. Each attack is first shown to
 * change order 42 on an unfenced connection (rolled back), then sent through the driver with a
 * stale fence and with none; the row is read back raw.
 */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
class PostgresClientEncodingTest extends OrdersFixture {

    /** The lexer reads one SELECT of one string; the server reads a SELECT, then the UPDATE. */
    static final String SECOND_STATEMENT =
            "SELECT E'\u00a5'' ; UPDATE orders SET status = $$hacked$$ WHERE id = 42; --'";
    /** The lexer reads a CTE that selects a string; the server reads a data-modifying CTE. */
    static final String WRITING_CTE = "WITH a AS (SELECT E'\u00a5''), u AS (UPDATE orders SET status = $$hacked$$"
            + " WHERE id = 42 RETURNING 1) SELECT 1 AS v --' AS v) SELECT v FROM a";

    private final DataSource database;

    PostgresClientEncodingTest(DataSource database) {
        this.database = database;
    }

    @Override
    DataSource raw() {
        return database;
    }

    /** The database through pgjdbc with encoding changes allowed, in the given query mode. */
    private PGSimpleDataSource encodingChangesAllowed(String queryMode) {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(ScratchAreas.url(database) + "&allowEncodingChanges=true&preferQueryMode=" + queryMode);
        return dataSource;
    }

    private void assertTheAttackWritesOnTheRawPath(String attack) throws SQLException {
        try (Connection raw = encodingChangesAllowed("simple").getConnection(); Statement statement = raw.createStatement()) {
            statement.execute("SET client_encoding TO 'EUC_JP'");
            raw.setAutoCommit(false);
            statement.execute(attack);
            try (Statement check = raw.createStatement();
                 var rows = check.executeQuery("SELECT status FROM orders WHERE id = 42")) {
                rows.next();
                assertThat(rows.getString(1)).as("the attack works on the raw path").isEqualTo("hacked");
            }
            raw.rollback();
        }
    }

    private void assertRefusedThroughTheDriver(String attack, Long fence) throws SQLException {
        seed(42, "pending", 100, 100);
        assertTheAttackWritesOnTheRawPath(attack);
        FencingDataSource fenced = new FencingDataSource(encodingChangesAllowed("simple"),
                dev.fencing.FencingConfig.builder().tables("orders").build());
        Connection connection = connection(fenced);
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET client_encoding TO 'EUC_JP'");
            try (Fence.Scope scope = fence == null ? null : Fence.enter(fence)) {
                assertThatThrownBy(() -> statement.execute(attack))
                        .isInstanceOf(UnfenceableStatementException.class)
                        .hasMessageContaining("client encoding is EUC_JP");
            }
        }
        assertThat(order(42)).isEqualTo(new Order(42, "pending", 100, 100));
    }

    @Test
    void aSecondStatementHiddenByAnEncodedBackslashIsRefusedUnderAStaleFence() throws SQLException {
        assertRefusedThroughTheDriver(SECOND_STATEMENT, 40L);
    }

    @Test
    void aSecondStatementHiddenByAnEncodedBackslashIsRefusedWithNoFence() throws SQLException {
        assertRefusedThroughTheDriver(SECOND_STATEMENT, null);
    }

    @Test
    void aWritingCteHiddenByAnEncodedBackslashIsRefusedUnderAStaleFence() throws SQLException {
        assertRefusedThroughTheDriver(WRITING_CTE, 40L);
    }

    @Test
    void aWritingCteHiddenByAnEncodedBackslashIsRefusedWithNoFence() throws SQLException {
        assertRefusedThroughTheDriver(WRITING_CTE, null);
    }

    /** A switch inside the text: the server reads the later statement in the new encoding. */
    @Test
    void aTextThatSwitchesTheEncodingBeforeNonAsciiTextIsRefused() throws SQLException {
        seed(42, "pending", 100, 100);
        Connection connection = connection(new FencingDataSource(encodingChangesAllowed("simple"),
                dev.fencing.FencingConfig.builder().tables("orders").build()));
        try (Statement statement = connection.createStatement()) {
            assertThatThrownBy(() -> statement.execute("SET client_encoding TO 'EUC_JP'; " + SECOND_STATEMENT))
                    .isInstanceOf(UnfenceableStatementException.class)
                    .hasMessageContaining("several statements with non-ASCII characters");
        }
        assertThat(order(42)).isEqualTo(new Order(42, "pending", 100, 100));
    }

    /** A batch is sent in one go: an earlier entry may switch the encoding the later ones are read in. */
    @Test
    void aBatchEntryWithNonAsciiTextAfterTheFirstIsRefused() throws SQLException {
        seed(42, "pending", 100, 100);
        Connection connection = connection(new FencingDataSource(encodingChangesAllowed("extended"),
                dev.fencing.FencingConfig.builder().tables("orders").build()));
        try (Statement statement = connection.createStatement()) {
            statement.addBatch("SET client_encoding TO 'EUC_JP'");
            assertThatThrownBy(() -> statement.addBatch("UPDATE notes SET body = E'\u00a5'' WHERE id = 1"))
                    .isInstanceOf(UnfenceableStatementException.class)
                    .hasMessageContaining("batch entry after the first holds non-ASCII");
        }
    }

    /** Values written into the text in simple query mode are read in the session's encoding too. */
    @Test
    void preparedValuesInSimpleQueryModeAreRefusedInAnotherEncoding() throws SQLException {
        seed(42, "pending", 100, 100);
        Connection connection = connection(new FencingDataSource(encodingChangesAllowed("simple"),
                dev.fencing.FencingConfig.builder().tables("orders").build()));
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET client_encoding TO 'EUC_JP'");
        }
        try (Fence.Scope scope = Fence.enter(140);
             PreparedStatement update = connection.prepareStatement("UPDATE orders SET status = ? WHERE id = ?")) {
            update.setString(1, "ok");
            update.setLong(2, 42);
            assertThat(update.executeUpdate()).as("ASCII values read the same in EUC_JP").isEqualTo(1);
            update.setString(1, "\u00a5'; UPDATE orders SET amount = 0; --");
            assertThatThrownBy(update::executeUpdate).isInstanceOf(UnfenceableStatementException.class)
                    .hasMessageContaining("non-ASCII values");
        }
        assertThat(order(42)).isEqualTo(new Order(42, "ok", 100, 140));
    }

    /** What stays open: UTF8 sessions, ASCII text in any encoding, bound values in extended mode, and switching back. */
    @Test
    void utf8SessionsAsciiTextAndBoundValuesStillRun() throws SQLException {
        seed(42, "pending", 100, 100);
        Connection utf8 = connection(new FencingDataSource(encodingChangesAllowed("extended"),
                dev.fencing.FencingConfig.builder().tables("orders").build()));
        try (Fence.Scope scope = Fence.enter(110); Statement statement = utf8.createStatement()) {
            assertThat(statement.executeUpdate("UPDATE orders SET status = 'caf\u00e9' WHERE id = 42")).isEqualTo(1);
            statement.execute("SET client_encoding TO 'EUC_JP'");
            try (PreparedStatement update = utf8.prepareStatement("UPDATE orders SET amount = ? WHERE id = ?")) {
                update.setLong(1, 7);
                update.setLong(2, 42);
                assertThat(update.executeUpdate()).isEqualTo(1);
            }
            assertThat(statement.executeUpdate("UPDATE orders SET amount = 8 WHERE id = 42")).isEqualTo(1);
            statement.execute("SET client_encoding TO 'UTF8'");
            assertThat(statement.executeUpdate("UPDATE orders SET status = 'd\u00e9j\u00e0' WHERE id = 42")).isEqualTo(1);
        }
        assertThat(order(42)).isEqualTo(new Order(42, "d\u00e9j\u00e0", 8, 110));
    }
}
