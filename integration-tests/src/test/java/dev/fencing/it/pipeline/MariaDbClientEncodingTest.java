package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.UnfenceableStatementException;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mariadb.jdbc.MariaDbDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Issue 29, finding 2: the bytes MariaDB reads. Connector/J sends UTF-8 whatever the session's
 * {@code character_set_client}; in gbk, sjis or big5 a character whose UTF-8 bytes end in a lead
 * byte of that set takes the next byte with it: a closing backtick (the name then runs to the
 * next backtick, over the spliced fence check) or the backslash Connector/J escapes a value's
 * quote with. Every attack here wrote order 42 on main, through the driver, under a stale fence
 * (40 against the row's 100) or none; each is refused now and the row is read back raw.
 */
@TestDatabase(TestDatabase.Kind.MARIADB)
class MariaDbClientEncodingTest extends OrdersFixture {

    /** A character whose UTF-8 bytes leave a gbk and big5 lead byte last (E7 B8 B7). */
    private static final String GBK_BIG5_LEAD = "\u7e37";
    /** A character whose UTF-8 bytes leave an sjis (and gbk) lead byte last (E7 B8 81). */
    private static final String SJIS_LEAD = "\u7e01";

    private final DataSource database;

    MariaDbClientEncodingTest(DataSource database) {
        this.database = database;
    }

    @Override
    DataSource raw() {
        return database;
    }

    private MariaDbDataSource withOptions(String options) throws SQLException {
        return ScratchAreas.mariaDbWithOptions(database, options);
    }

    private FencingDataSource fencedOver(DataSource dataSource) {
        return new FencingDataSource(dataSource, FencingConfig.builder().tables("orders").build());
    }

    /**
     * The lexer reads a comment after the subquery; the server's name swallows its closing
     * backtick and ends at the comment's, so the fence check spliced before the comment is part
     * of a name and the comment's parentheses close the WHERE.
     */
    private static String swallowedFenceCheck(String lead) {
        return "UPDATE orders SET status = 'hacked' WHERE id = 42 OR id IN (SELECT 1 AS `" + lead + "`) -- `))\n";
    }

    /** The lexer reads one SELECT of a name and a string; the server a SELECT, then the UPDATE. */
    private static String hiddenSecondStatement(String lead) {
        return "SELECT 1 AS `" + lead + "`, '` ; UPDATE orders SET status = CHAR(104,97,99,107,101,100) WHERE id = 42; -- '";
    }

    private void assertRefused(ThrowingRunnable attack) throws SQLException {
        assertThatThrownBy(attack::run).isInstanceOf(UnfenceableStatementException.class)
                .hasMessageContaining("client encoding is");
        assertThat(order(42)).isEqualTo(new Order(42, "pending", 100, 100));
    }

    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }

    @ParameterizedTest
    @ValueSource(strings = {"gbk", "sjis", "big5"})
    void setNamesCannotMoveTheEndOfANameOverTheFenceCheck(String charset) throws SQLException {
        seed(42, "pending", 100, 100);
        Connection connection = connection();
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET NAMES " + charset);
            String lead = charset.equals("sjis") ? SJIS_LEAD : GBK_BIG5_LEAD;
            try (Fence.Scope scope = Fence.enter(40)) {
                assertRefused(() -> statement.executeUpdate(swallowedFenceCheck(lead)));
            }
        }
    }

    @Test
    void setCharacterSetClientRefusesAPreparedStatementWhoseNameSwallowsItsBacktick() throws SQLException {
        seed(42, "pending", 100, 100);
        Connection connection = connection();
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET character_set_client = gbk");
        }
        try (Fence.Scope scope = Fence.enter(40);
             PreparedStatement update = connection.prepareStatement(swallowedFenceCheck(GBK_BIG5_LEAD))) {
            assertRefused(update::executeUpdate);
        }
    }

    @Test
    void aCharacterSetFromTheUrlIsReadToo() throws SQLException {
        seed(42, "pending", 100, 100);
        Connection connection = connection(fencedOver(withOptions("sessionVariables=character_set_client=gbk")));
        try (Fence.Scope scope = Fence.enter(40);
             PreparedStatement update = connection.prepareStatement(swallowedFenceCheck(GBK_BIG5_LEAD))) {
            assertRefused(update::executeUpdate);
        }
    }

    /** The classic: the backslash Connector/J puts before a value's quote is taken by the character before it. */
    @Test
    void aValueWrittenIntoTheTextCannotEscapeItsQuotes() throws SQLException {
        seed(42, "pending", 100, 100);
        seed(43, "pending", 100, 100);
        Connection connection = connection();
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET NAMES gbk");
        }
        try (Fence.Scope scope = Fence.enter(40);
             PreparedStatement update = connection.prepareStatement("UPDATE orders SET status = ? WHERE id = ?")) {
            update.setString(1, GBK_BIG5_LEAD + "' OR 1=1 -- ");
            update.setLong(2, 43);
            assertRefused(update::executeUpdate);
        }
        assertThat(order(43)).isEqualTo(new Order(43, "pending", 100, 100));
    }

    @Test
    void aHiddenSecondStatementIsRefusedWithNoFence() throws SQLException {
        seed(42, "pending", 100, 100);
        Connection connection = connection(fencedOver(withOptions("allowMultiQueries=true")));
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET NAMES gbk");
            assertRefused(() -> statement.execute(hiddenSecondStatement(GBK_BIG5_LEAD)));
        }
    }

    @Test
    void aHiddenSecondStatementIsRefusedUnderAStaleFence() throws SQLException {
        seed(42, "pending", 100, 100);
        Connection connection = connection(fencedOver(withOptions("allowMultiQueries=true")));
        try (Statement statement = connection.createStatement(); Fence.Scope scope = Fence.enter(40)) {
            statement.execute("SET NAMES gbk");
            assertRefused(() -> statement.execute(hiddenSecondStatement(GBK_BIG5_LEAD)));
        }
    }

    @Test
    void aTextThatSwitchesTheCharacterSetBeforeNonAsciiTextIsRefused() throws SQLException {
        seed(42, "pending", 100, 100);
        Connection connection = connection(fencedOver(withOptions("allowMultiQueries=true")));
        try (Statement statement = connection.createStatement()) {
            assertThatThrownBy(() -> statement.execute("SET NAMES gbk; " + hiddenSecondStatement(GBK_BIG5_LEAD)))
                    .isInstanceOf(UnfenceableStatementException.class)
                    .hasMessageContaining("several statements with non-ASCII characters");
        }
        assertThat(order(42)).isEqualTo(new Order(42, "pending", 100, 100));
    }

    /**
     * The check asks the server, not Connector/J's session-tracked copy: that copy missed
     * {@code SET @@character_set_client = gbk} (it still said utf8mb3), and it misses every change
     * once session tracking is off.
     */
    @Test
    void theCheckIsNotBlindedWhenTheServerStopsReportingChanges() throws SQLException {
        seed(42, "pending", 100, 100);
        Connection connection = connection();
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET session_track_system_variables = ''");
            statement.execute("SET NAMES gbk");
            try (Fence.Scope scope = Fence.enter(40)) {
                assertRefused(() -> statement.executeUpdate(swallowedFenceCheck(GBK_BIG5_LEAD)));
            }
        }
    }

    /**
     * The character set the check reads is the server's: after each way of changing it, a
     * non-ASCII text is refused exactly when the server's {@code character_set_client} is not
     * one the lexer reads byte-exactly.
     */
    @Test
    void theCheckFollowsTheServersCharacterSetAfterEveryFormThatChangesIt() throws SQLException {
        sql("DROP PROCEDURE IF EXISTS switch_to_gbk", "CREATE PROCEDURE switch_to_gbk() SET NAMES gbk");
        seed(42, "pending", 100, 100);
        List<String> forms = List.of("SET NAMES gbk", "SET NAMES utf8mb4", "SET CHARACTER SET sjis", "SET NAMES latin1",
                "SET character_set_client = big5", "SET SESSION character_set_client = utf8mb3",
                "SET @@character_set_client = gbk", "SET @@session.character_set_client = latin1",
                "SET NAMES DEFAULT", "CALL switch_to_gbk()", "SET NAMES 'utf8mb4' COLLATE 'utf8mb4_bin'",
                "SET character_set_client = cp932", "SET character_set_client = DEFAULT");
        Connection connection = connection();
        try (Statement statement = connection.createStatement()) {
            for (String form : forms) {
                statement.execute(form);
                String server;
                try (ResultSet row = statement.executeQuery("SELECT @@character_set_client")) {
                    row.next();
                    server = row.getString(1);
                }
                boolean exact = List.of("utf8mb4", "utf8mb3", "utf8").contains(server);
                try (Fence.Scope scope = Fence.enter(100 + forms.indexOf(form))) {
                    if (exact) {
                        assertThat(statement.executeUpdate("UPDATE orders SET status = 'caf\u00e9' WHERE id = 42"))
                                .as(form + " leaves " + server).isEqualTo(1);
                    } else {
                        assertThatThrownBy(() -> statement.executeUpdate("UPDATE orders SET status = 'caf\u00e9' WHERE id = 42"))
                                .as(form + " leaves " + server).isInstanceOf(UnfenceableStatementException.class)
                                .hasMessageContaining("client encoding is " + server);
                    }
                }
            }
        }
    }

    /** What stays open: non-ASCII text in utf8mb4, ASCII text in any set, and switching back. */
    @Test
    void exactSetsAndAsciiTextStillRun() throws SQLException {
        seed(42, "pending", 100, 100);
        Connection connection = connection();
        try (Statement statement = connection.createStatement(); Fence.Scope scope = Fence.enter(110)) {
            assertThat(statement.executeUpdate("UPDATE orders SET status = 'caf\u00e9' WHERE id = 42")).isEqualTo(1);
            statement.execute("SET NAMES gbk");
            assertThat(statement.executeUpdate("UPDATE orders SET amount = 8 WHERE id = 42")).isEqualTo(1);
            statement.execute("SET NAMES utf8mb4");
            try (PreparedStatement update = connection.prepareStatement("UPDATE orders SET status = ? WHERE id = ?")) {
                update.setString(1, "d\u00e9j\u00e0");
                update.setLong(2, 42);
                assertThat(update.executeUpdate()).isEqualTo(1);
            }
        }
        assertThat(order(42)).isEqualTo(new Order(42, "d\u00e9j\u00e0", 8, 110));
    }

    /**
     * Runs {@code update} (status, then id 43) with a value whose character takes, in gbk, the
     * backslash Connector/J escapes its quote with: the quote ends the string and the rest of the
     * value, the spliced fence check commented out, sets every row. Refused, rows read back raw.
     */
    private void assertValueCannotEscape(Connection connection, String update) throws SQLException {
        seed(42, "pending", 100, 100);
        seed(43, "pending", 100, 100);
        try (Fence.Scope scope = Fence.enter(40); PreparedStatement statement = connection.prepareStatement(update)) {
            statement.setString(1, GBK_BIG5_LEAD + "', status = CHAR(104,97,99,107,101,100) -- ");
            statement.setLong(2, 43);
            Throwable thrown = catchThrowable(statement::execute);
            assertThat(order(42)).isEqualTo(new Order(42, "pending", 100, 100));
            assertThat(order(43)).isEqualTo(new Order(43, "pending", 100, 100));
            assertThat(thrown).isInstanceOf(UnfenceableStatementException.class);
        }
    }

    /**
     * MariaDB reads each statement of a text after the one before it ran: the session was
     * utf8mb4 when the execution was checked, but the value written into the UPDATE is read in
     * gbk. All three forms set every row under a stale fence on the first cut of this check.
     */
    @ParameterizedTest
    @ValueSource(strings = {"SET NAMES gbk", "SET character_set_client = gbk", "SET @@character_set_client = gbk"})
    void aValueAfterASwitchInTheSameTextCannotEscapeItsQuotes(String switchForm) throws SQLException {
        assertValueCannotEscape(connection(fencedOver(withOptions("allowMultiQueries=true"))),
                switchForm + "; UPDATE orders SET status = ? WHERE id = ?");
    }

    /**
     * With {@code useServerPrepStmts} Connector/J prepares on the server at the first execution,
     * and when the server will not prepare the text (here: it holds two statements) runs it
     * client-side, values written into the text: a server-side statement when it was checked.
     */
    @Test
    void aServerPreparedStatementThatFallsBackToTheClientCannotEscapeItsQuotes() throws SQLException {
        Connection connection = connection(fencedOver(withOptions("useServerPrepStmts=true&allowMultiQueries=true")));
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET NAMES gbk");
        }
        assertValueCannotEscape(connection, "UPDATE orders SET status = ? WHERE id = ?; SELECT 1");
    }
}
