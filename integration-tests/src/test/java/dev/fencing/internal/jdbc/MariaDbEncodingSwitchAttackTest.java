package dev.fencing.internal.jdbc;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.UnfenceableStatementException;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mariadb.jdbc.MariaDbDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A prepared text of several statements whose first switches the character set: MariaDB reads
 * each statement of a text after the one before it ran, so the value Connector/J writes into the
 * second statement is read in gbk although the session was utf8mb4 when the execution was checked.
 * The character before the value's quote takes the backslash Connector/J escapes the quote with;
 * the quote then ends the string, and the rest of the value, the spliced fence check commented
 * out, is SQL.
 */
@TestDatabase(TestDatabase.Kind.MARIADB)
class MariaDbEncodingSwitchAttackTest extends OrdersFixture {

    /** A character whose UTF-8 bytes leave a gbk lead byte last (E7 B8 B7). */
    private static final String GBK_LEAD = "\u7e37";

    private final DataSource database;

    MariaDbEncodingSwitchAttackTest(DataSource database) {
        this.database = database;
    }

    @Override
    DataSource raw() {
        return database;
    }

    private Connection multiQueries() throws SQLException {
        return withOptions("allowMultiQueries=true");
    }

    private Connection withOptions(String options) throws SQLException {
        String url = ScratchAreas.url(database);
        MariaDbDataSource dataSource = new MariaDbDataSource(url + (url.contains("?") ? "&" : "?") + options);
        return connection(new FencingDataSource(dataSource, FencingConfig.builder().tables("orders").build()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"SET NAMES gbk", "SET character_set_client = gbk", "SET @@character_set_client = gbk"})
    void aValueAfterASwitchInTheSameTextCannotEscapeItsQuotes(String switchForm) throws SQLException {
        seed(42, "pending", 100, 100);
        seed(43, "pending", 100, 100);
        Connection connection = multiQueries();
        try (Fence.Scope scope = Fence.enter(40);
             PreparedStatement update = connection.prepareStatement(switchForm + "; UPDATE orders SET status = ? WHERE id = ?")) {
            update.setString(1, GBK_LEAD + "', status = CHAR(104,97,99,107,101,100) -- ");
            update.setLong(2, 43);
            Throwable thrown = catchThrowable(update::execute);
            assertThat(order(42)).isEqualTo(new Order(42, "pending", 100, 100));
            assertThat(order(43)).isEqualTo(new Order(43, "pending", 100, 100));
            assertThat(thrown).isInstanceOf(UnfenceableStatementException.class);
        }
    }

    /**
     * With {@code useServerPrepStmts} Connector/J prepares on the server at the first execution,
     * and when the server will not prepare the text (here: it holds two statements) it runs the
     * statement client-side instead, writing the values into the text: in gbk the value's quote
     * escapes as above, though the statement was a server-side one when it was checked.
     */
    @org.junit.jupiter.api.Test
    void aServerPreparedStatementThatFallsBackToTheClientCannotEscapeItsQuotes() throws SQLException {
        seed(42, "pending", 100, 100);
        seed(43, "pending", 100, 100);
        Connection connection = withOptions("useServerPrepStmts=true&allowMultiQueries=true");
        try (java.sql.Statement statement = connection.createStatement()) {
            statement.execute("SET NAMES gbk");
        }
        try (Fence.Scope scope = Fence.enter(40);
             PreparedStatement update = connection.prepareStatement("UPDATE orders SET status = ? WHERE id = ?; SELECT 1")) {
            update.setString(1, GBK_LEAD + "', status = CHAR(104,97,99,107,101,100) -- ");
            update.setLong(2, 43);
            Throwable thrown = catchThrowable(update::execute);
            assertThat(order(42)).isEqualTo(new Order(42, "pending", 100, 100));
            assertThat(order(43)).isEqualTo(new Order(43, "pending", 100, 100));
            assertThat(thrown).isInstanceOf(UnfenceableStatementException.class);
        }
    }
}
