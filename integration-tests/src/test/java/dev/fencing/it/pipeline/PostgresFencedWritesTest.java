package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.StaleFenceException;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** The common contract on PostgreSQL, and what only PostgreSQL has: RETURNING, ON CONFLICT. */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
class PostgresFencedWritesTest extends FencedWritesContract {

    private final DataSource database;

    PostgresFencedWritesTest(DataSource database) {
        this.database = database;
    }

    @Override
    DataSource raw() {
        return database;
    }

    @Test
    void returningWithCurrentFenceReturnsTheRows() throws SQLException {
        seed(1, "pending", 100, 5);
        PreparedStatement update = connection().prepareStatement(
                "UPDATE orders SET status = ? WHERE id = ? RETURNING id, status, last_fence");
        try (Fence.Scope scope = Fence.enter(7)) {
            update.setString(1, "paid");
            update.setLong(2, 1);
            try (ResultSet rows = update.executeQuery()) {
                assertThat(rows.next()).isTrue();
                assertThat(rows.getLong(3)).isEqualTo(7);
                assertThat(rows.next()).isFalse();
            }
        }
        assertThat(order(1)).isEqualTo(new Order(1, "paid", 100, 7));
    }

    @Test
    void returningWithStaleFenceThrowsFromTheFirstNext() throws SQLException {
        seed(1, "pending", 100, 9);
        Connection connection = connection();
        PreparedStatement update = connection.prepareStatement(
                "UPDATE orders SET status = ? WHERE id = ? RETURNING id");
        try (Fence.Scope scope = Fence.enter(7)) {
            update.setString(1, "paid");
            update.setLong(2, 1);
            ResultSet rows = update.executeQuery();
            StaleFenceException stale = catchThrowableOfType(StaleFenceException.class, rows::next);
            assertThat(stale.currentFence()).hasValue(9);
            // plain statement, through execute() and getResultSet()
            Statement statement = connection.createStatement();
            assertThat(statement.execute("UPDATE orders SET status = 'paid' WHERE id = 1 RETURNING id")).isTrue();
            ResultSet result = statement.getResultSet();
            assertThat(statement.getResultSet()).isSameAs(result);
            assertThatThrownBy(result::next).isInstanceOf(StaleFenceException.class);
        }
        assertThat(order(1)).isEqualTo(new Order(1, "pending", 100, 9));
    }

    @Test
    void returningThatMatchesNothingIsJustEmpty() throws SQLException {
        seed(1, "paid", 100, 5);
        try (Fence.Scope scope = Fence.enter(7);
             ResultSet rows = connection().createStatement()
                     .executeQuery("UPDATE orders SET status = 'x' WHERE id = 1 AND status = 'pending' RETURNING id")) {
            assertThat(rows.next()).isFalse();
        }
        assertThat(order(1)).isEqualTo(new Order(1, "paid", 100, 5));
    }

    @Test
    void returningUnderRaiseThrowsForAnEmptyResult() throws SQLException {
        seed(1, "paid", 100, 5);
        Connection connection = connection(fenced(b -> b.onZeroRows(FencingConfig.ZeroRows.RAISE)));
        try (Fence.Scope scope = Fence.enter(7);
             ResultSet rows = connection.createStatement()
                     .executeQuery("UPDATE orders SET status = 'x' WHERE id = 1 AND status = 'pending' RETURNING id")) {
            assertThatThrownBy(rows::next).isInstanceOf(StaleFenceException.class);
        }
        assertThat(order(1)).isEqualTo(new Order(1, "paid", 100, 5));
    }

    @Test
    void upsertThatTheFenceStopsIsStale() throws SQLException {
        seed(1, "pending", 100, 9);
        PreparedStatement upsert = connection().prepareStatement("INSERT INTO orders (id, status, amount)"
                + " VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status");
        try (Fence.Scope scope = Fence.enter(7)) {
            upsert.setLong(1, 1);
            upsert.setString(2, "paid");
            upsert.setLong(3, 1);
            assertThatThrownBy(upsert::executeUpdate).isInstanceOf(StaleFenceException.class);
            upsert.setLong(1, 2);
            assertThat(upsert.executeUpdate()).isEqualTo(1);
        }
        try (Fence.Scope scope = Fence.enter(9)) {
            upsert.setLong(1, 1);
            assertThat(upsert.executeUpdate()).isEqualTo(1);
        }
        assertThat(order(1)).isEqualTo(new Order(1, "paid", 100, 9));
        assertThat(order(2)).isEqualTo(new Order(2, "paid", 1, 7));
    }

    @Test
    void generatedKeysOfAFencedInsert() throws SQLException {
        PreparedStatement insert = connection().prepareStatement(
                "INSERT INTO orders (id, status, amount) VALUES (?, ?, ?)", Statement.RETURN_GENERATED_KEYS);
        try (Fence.Scope scope = Fence.enter(4)) {
            insert.setLong(1, 5);
            insert.setString(2, "new");
            insert.setLong(3, 9);
            assertThat(insert.executeUpdate()).isEqualTo(1);
        }
        try (ResultSet keys = insert.getGeneratedKeys()) {
            assertThat(keys.next()).isTrue();
            assertThat(keys.getLong("id")).isEqualTo(5);
            assertThat(keys.getLong("last_fence")).isEqualTo(4);
        }
        assertThat(order(5)).isEqualTo(new Order(5, "new", 9, 4));
    }
}
