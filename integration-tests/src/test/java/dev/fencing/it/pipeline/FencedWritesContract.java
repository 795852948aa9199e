package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.jdbc.FencingDataSource;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.MissingFenceException;
import dev.fencing.StaleFenceException;
import dev.fencing.UnfenceableStatementException;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * What a write to a fenced table does through plain and prepared statements, checked against
 * the rows the database holds afterwards. Runs on every database a subclass names.
 */
abstract class FencedWritesContract extends OrdersFixture {

    // ---- plain Statement ---------------------------------------------------------------------

    @Test
    void plainUpdateWithCurrentFenceIsAppliedAndRecordsTheFence() throws SQLException {
        seed(1, "pending", 100, 5);
        Statement statement = connection().createStatement();
        try (Fence.Scope scope = Fence.enter(7)) {
            assertThat(statement.executeUpdate("UPDATE orders SET status = 'paid' WHERE id = 1")).isEqualTo(1);
        }
        assertThat(order(1)).isEqualTo(new Order(1, "paid", 100, 7));
    }

    @Test
    void plainUpdateWithTheSameFenceIsAppliedUnderNewerOrEqual() throws SQLException {
        seed(1, "pending", 100, 7);
        Statement statement = connection().createStatement();
        try (Fence.Scope scope = Fence.enter(7)) {
            assertThat(statement.executeUpdate("UPDATE orders SET status = 'paid' WHERE id = 1")).isEqualTo(1);
        }
        assertThat(order(1)).isEqualTo(new Order(1, "paid", 100, 7));
    }

    @Test
    void plainUpdateWithStaleFenceIsRejectedAndNamesTheNewerFence() throws SQLException {
        seed(1, "pending", 100, 9);
        Statement statement = connection().createStatement();
        StaleFenceException stale;
        try (Fence.Scope scope = Fence.enter(7)) {
            stale = catchThrowableOfType(StaleFenceException.class,
                    () -> statement.executeUpdate("UPDATE orders SET status = 'paid' WHERE id = 1"));
        }
        assertThat((Throwable) stale).isNotNull();
        assertThat(stale.attemptedFence()).isEqualTo(7);
        assertThat(stale.currentFence()).hasValue(9);
        assertThat(stale.table()).isEqualTo("orders");
        assertThat(stale.getSQLState()).isEqualTo(StaleFenceException.SQL_STATE);
        assertThat(order(1)).isEqualTo(new Order(1, "pending", 100, 9));
    }

    @Test
    void plainUpdateWithoutFenceIsRefusedAndNothingIsSent() throws SQLException {
        seed(1, "pending", 100, 5);
        Statement statement = connection().createStatement();
        assertThatThrownBy(() -> statement.executeUpdate("UPDATE orders SET status = 'paid' WHERE id = 1"))
                .isInstanceOf(MissingFenceException.class)
                .hasMessageContaining("orders");
        assertThatThrownBy(() -> statement.execute("DELETE FROM orders WHERE id = 1"))
                .isInstanceOf(MissingFenceException.class);
        assertThat(order(1)).isEqualTo(new Order(1, "pending", 100, 5));
    }

    @Test
    void plainInsertWithoutFenceSendsNothing() throws SQLException {
        Statement statement = connection().createStatement();
        assertThatThrownBy(() -> statement.executeUpdate(
                "INSERT INTO orders (id, status, amount) VALUES (3, 'new', 1)"))
                .isInstanceOf(MissingFenceException.class);
        assertThat(order(3)).isNull();
    }

    @Test
    void plainInsertRecordsTheFence() throws SQLException {
        Statement statement = connection().createStatement();
        try (Fence.Scope scope = Fence.enter(12)) {
            assertThat(statement.executeUpdate("INSERT INTO orders (id, status, amount) VALUES (3, 'new', 1)"))
                    .isEqualTo(1);
        }
        assertThat(order(3)).isEqualTo(new Order(3, "new", 1, 12));
    }

    @Test
    void plainDeleteIsFenced() throws SQLException {
        seed(1, "pending", 100, 5);
        seed(2, "pending", 100, 9);
        Statement statement = connection().createStatement();
        try (Fence.Scope scope = Fence.enter(7)) {
            assertThat(statement.executeUpdate("DELETE FROM orders WHERE id = 1")).isEqualTo(1);
            StaleFenceException stale = catchThrowableOfType(StaleFenceException.class,
                    () -> statement.executeUpdate("DELETE FROM orders WHERE id = 2"));
            assertThat(stale.currentFence()).hasValue(9);
        }
        assertThat(order(1)).isNull();
        assertThat(order(2)).isEqualTo(new Order(2, "pending", 100, 9));
    }

    @Test
    void executeReturningFalseAndLargeUpdateAreChecked() throws SQLException {
        seed(1, "pending", 100, 5);
        seed(2, "pending", 100, 9);
        Statement statement = connection().createStatement();
        try (Fence.Scope scope = Fence.enter(7)) {
            assertThat(statement.execute("UPDATE orders SET amount = 1 WHERE id = 1")).isFalse();
            assertThat(statement.getUpdateCount()).isEqualTo(1);
            assertThat(statement.executeLargeUpdate("UPDATE orders SET amount = 2 WHERE id = 1")).isEqualTo(1L);
            assertThatThrownBy(() -> statement.execute("UPDATE orders SET amount = 3 WHERE id = 2"))
                    .isInstanceOf(StaleFenceException.class);
            assertThatThrownBy(() -> statement.executeLargeUpdate("UPDATE orders SET amount = 4 WHERE id = 2"))
                    .isInstanceOf(StaleFenceException.class);
        }
        assertThat(order(1)).isEqualTo(new Order(1, "pending", 2, 7));
        assertThat(order(2)).isEqualTo(new Order(2, "pending", 100, 9));
    }

    @Test
    void aBusinessPredicateThatMatchesNothingReturnsZero() throws SQLException {
        seed(1, "paid", 100, 5);
        Connection connection = connection();
        try (Fence.Scope scope = Fence.enter(7)) {
            assertThat(connection.createStatement()
                    .executeUpdate("UPDATE orders SET status = 'shipped' WHERE id = 1 AND status = 'pending'"))
                    .isZero();
            assertThat(connection.createStatement().executeUpdate("UPDATE orders SET status = 'x' WHERE id = 404"))
                    .isZero();
            PreparedStatement update = connection.prepareStatement(
                    "UPDATE orders SET status = ? WHERE id = ? AND status = ?");
            update.setString(1, "shipped");
            update.setLong(2, 1);
            update.setString(3, "pending");
            assertThat(update.executeUpdate()).isZero();
        }
        assertThat(order(1)).isEqualTo(new Order(1, "paid", 100, 5));
    }

    @Test
    void aPredicateMissIsStaleWhenTheRowFoundByItsKeyHoldsANewerFence() throws SQLException {
        // PRIMER.md: the business predicate no longer matches because a newer holder changed the row
        seed(1, "paid", 100, 9);
        PreparedStatement update = connection().prepareStatement(
                "UPDATE orders SET status = ? WHERE id = ? AND status = ?");
        try (Fence.Scope scope = Fence.enter(7)) {
            update.setString(1, "shipped");
            update.setLong(2, 1);
            update.setString(3, "pending");
            // no row matches id = 1 AND status = 'pending'; the row read by its key (id = 1) holds 9
            StaleFenceException stale = catchThrowableOfType(StaleFenceException.class, update::executeUpdate);
            assertThat(stale.currentFence()).hasValue(9);
        }
        assertThat(order(1)).isEqualTo(new Order(1, "paid", 100, 9));
    }

    @Test
    void tablesThatAreNotFencedNeedNoFence() throws SQLException {
        Statement statement = connection().createStatement();
        assertThat(statement.executeUpdate("INSERT INTO notes (id, body) VALUES (1, 'hello')")).isEqualTo(1);
        assertThat(statement.executeUpdate("UPDATE notes SET body = 'bye' WHERE id = 1")).isEqualTo(1);
        assertThat(count("notes")).isEqualTo(1);
    }

    @Test
    void readsOfAFencedTableNeedNoFence() throws SQLException {
        seed(1, "pending", 100, 5);
        try (var rows = connection().createStatement().executeQuery("SELECT status FROM orders WHERE id = 1")) {
            assertThat(rows.next()).isTrue();
            assertThat(rows.getString(1)).isEqualTo("pending");
        }
    }

    @Test
    void writesThatCannotCarryTheCheckAreRefusedBeforeAnythingIsSent() throws SQLException {
        seed(1, "pending", 100, 5);
        Connection connection = connection();
        try (Fence.Scope scope = Fence.enter(7)) {
            assertThatThrownBy(() -> connection.createStatement().execute("TRUNCATE TABLE orders"))
                    .isInstanceOf(UnfenceableStatementException.class);
            assertThatThrownBy(() -> connection.createStatement()
                    .executeUpdate("UPDATE orders SET last_fence = 100 WHERE id = 1"))
                    .isInstanceOf(UnfenceableStatementException.class);
            assertThatThrownBy(() -> connection.prepareStatement("UPDATE orders SET last_fence = ? WHERE id = 1"))
                    .isInstanceOf(UnfenceableStatementException.class);
        }
        assertThat(order(1)).isEqualTo(new Order(1, "pending", 100, 5));
    }

    // ---- PreparedStatement -------------------------------------------------------------------

    @Test
    void preparedUpdateKeepsTheApplicationsParameterIndexes() throws SQLException {
        seed(1, "pending", 100, 5);
        // parameters before the fence assignment (SET), inside the checked predicate (WHERE)
        PreparedStatement update = connection().prepareStatement(
                "UPDATE orders SET status = ?, amount = ? WHERE id = ? AND status = ?");
        try (Fence.Scope scope = Fence.enter(7)) {
            update.setString(1, "paid");
            update.setLong(2, 250);
            update.setLong(3, 1);
            update.setString(4, "pending");
            assertThat(update.executeUpdate()).isEqualTo(1);
        }
        assertThat(order(1)).isEqualTo(new Order(1, "paid", 250, 7));
    }

    @Test
    void preparedInsertKeepsIndexesAndRecordsTheFence() throws SQLException {
        PreparedStatement insert = connection().prepareStatement(
                "INSERT INTO orders (id, status, amount) VALUES (?, ?, ?)");
        try (Fence.Scope scope = Fence.enter(3)) {
            insert.setLong(1, 10);
            insert.setString(2, "new");
            insert.setObject(3, 42L);
            assertThat(insert.executeUpdate()).isEqualTo(1);
        }
        assertThat(order(10)).isEqualTo(new Order(10, "new", 42, 3));
    }

    @Test
    void parameterIndexesOutsideTheApplicationsTextAreRefused() throws SQLException {
        PreparedStatement update = connection().prepareStatement("UPDATE orders SET status = ? WHERE id = ?");
        assertThatThrownBy(() -> update.setLong(3, 99))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("parameter index 3 out of range (1..2)");
        assertThatThrownBy(() -> update.setLong(0, 99))
                .hasMessageContaining("parameter index 0 out of range (1..2)");
        assertThatThrownBy(() -> update.setNull(4, Types.BIGINT))
                .hasMessageContaining("out of range");
        assertThatThrownBy(() -> update.setObject(3, 99L, Types.BIGINT))
                .hasMessageContaining("out of range");
    }

    @Test
    void parameterMetadataUsesTheApplicationsNumbering() throws SQLException {
        PreparedStatement update = connection().prepareStatement("UPDATE orders SET status = ? WHERE id = ?");
        var metadata = update.getParameterMetaData();
        assertThat(metadata.getParameterCount()).isEqualTo(2);
        assertThatThrownBy(() -> metadata.getParameterType(3)).hasMessageContaining("out of range");
    }

    @Test
    void preparedStaleWriteIsDiagnosedWithTheApplicationsValues() throws SQLException {
        seed(1, "pending", 100, 9);
        seed(2, "pending", 100, 1);
        PreparedStatement update = connection().prepareStatement(
                "UPDATE orders SET amount = ? WHERE id = ? AND status = ?");
        try (Fence.Scope scope = Fence.enter(7)) {
            update.setLong(1, 5);
            update.setLong(2, 1);
            update.setString(3, "pending");
            StaleFenceException stale = catchThrowableOfType(StaleFenceException.class, update::executeUpdate);
            assertThat(stale.currentFence()).hasValue(9);
            assertThat(stale.attemptedFence()).isEqualTo(7);
            update.setLong(2, 2);
            assertThat(update.executeUpdate()).isEqualTo(1);
        }
        assertThat(order(1)).isEqualTo(new Order(1, "pending", 100, 9));
        assertThat(order(2)).isEqualTo(new Order(2, "pending", 5, 7));
    }

    @Test
    void theDiagnosisBindsValuesTheWayTheApplicationDid() throws SQLException {
        seed(1, "pending", 100, 9);
        PreparedStatement update = connection().prepareStatement(
                "UPDATE orders SET amount = ? WHERE id = ? AND status = ?");
        try (Fence.Scope scope = Fence.enter(7)) {
            update.setObject(1, 5L);
            update.setObject(2, "1", Types.BIGINT);
            update.setObject(3, "pending", Types.VARCHAR, 0);
            StaleFenceException stale = catchThrowableOfType(StaleFenceException.class, update::executeUpdate);
            assertThat(stale.currentFence()).hasValue(9);
        }
        assertThat(order(1)).isEqualTo(new Order(1, "pending", 100, 9));
    }

    @Test
    void aValueThatCannotBeReadTwiceLeavesAZeroRowWriteUndiagnosed() throws SQLException {
        seed(1, "pending", 100, 9);
        PreparedStatement update = connection().prepareStatement(
                "UPDATE orders SET amount = ? WHERE amount = ? AND status = ?");
        try (Fence.Scope scope = Fence.enter(7)) {
            update.setLong(1, 5);
            update.setLong(2, 100);
            update.setCharacterStream(3, new java.io.StringReader("pending"));
            // the write was not applied (the check is in the statement), but why cannot be told
            assertThat(update.executeUpdate()).isZero();
        }
        assertThat(order(1)).isEqualTo(new Order(1, "pending", 100, 9));
    }

    @Test
    void connectionsOfADataSourceShareOneAnalyzer() throws SQLException {
        FencingDataSource dataSource = fenced();
        FencedConnection first = (FencedConnection) connection(dataSource);
        FencedConnection second = (FencedConnection) connection(dataSource);
        assertThat(JdbcInternals.analyzer(first)).isSameAs(JdbcInternals.analyzer(second));
    }

    @Test
    void preparedWriteWithoutFenceIsRefusedAtExecute() throws SQLException {
        seed(1, "pending", 100, 5);
        Connection connection = connection();
        PreparedStatement update = connection.prepareStatement("UPDATE orders SET status = ? WHERE id = ?");
        update.setString(1, "paid");
        update.setLong(2, 1);
        assertThatThrownBy(update::executeUpdate).isInstanceOf(MissingFenceException.class);
        assertThatThrownBy(update::execute).isInstanceOf(MissingFenceException.class);
        assertThatThrownBy(update::executeLargeUpdate).isInstanceOf(MissingFenceException.class);
        assertThatThrownBy(update::addBatch).isInstanceOf(MissingFenceException.class);
        PreparedStatement insert = connection.prepareStatement("INSERT INTO orders (id, status) VALUES (?, ?)");
        insert.setLong(1, 8);
        insert.setString(2, "new");
        assertThatThrownBy(insert::executeUpdate).isInstanceOf(MissingFenceException.class);
        assertThat(order(1)).isEqualTo(new Order(1, "pending", 100, 5));
        assertThat(order(8)).isNull();
    }

    @Test
    void aPreparedStatementCarriesTheFenceInScopeAtEachExecution() throws SQLException {
        seed(1, "pending", 100, 5);
        PreparedStatement update = connection().prepareStatement("UPDATE orders SET amount = ? WHERE id = ?");
        update.setLong(2, 1);
        try (Fence.Scope scope = Fence.enter(6)) {
            update.setLong(1, 1);
            assertThat(update.executeUpdate()).isEqualTo(1);
        }
        assertThat(order(1).lastFence()).isEqualTo(6);
        try (Fence.Scope scope = Fence.enter(8)) {
            update.setLong(1, 2);
            assertThat(update.executeUpdate()).isEqualTo(1);
        }
        assertThat(order(1)).isEqualTo(new Order(1, "pending", 2, 8));
        try (Fence.Scope scope = Fence.enter(6)) {
            update.setLong(1, 3);
            assertThatThrownBy(update::executeUpdate).isInstanceOf(StaleFenceException.class);
        }
        assertThat(order(1)).isEqualTo(new Order(1, "pending", 2, 8));
    }

    @Test
    void clearParametersDoesNotLeaveTheFenceSlotsUnbound() throws SQLException {
        seed(1, "pending", 100, 5);
        PreparedStatement update = connection().prepareStatement("UPDATE orders SET amount = ? WHERE id = ?");
        try (Fence.Scope scope = Fence.enter(7)) {
            update.setLong(1, 1);
            update.setLong(2, 1);
            update.executeUpdate();
            update.clearParameters();
            update.setLong(1, 2);
            update.setLong(2, 1);
            assertThat(update.executeUpdate()).isEqualTo(1);
        }
        assertThat(order(1)).isEqualTo(new Order(1, "pending", 2, 7));
    }

    // ---- comparison and zero-row modes ---------------------------------------------------------

    @Test
    void strictlyNewerRejectsTheSameFence() throws SQLException {
        seed(1, "pending", 100, 7);
        seed(2, "pending", 100, 6);
        Connection connection = connection(fenced(b -> b.comparison(FencingConfig.Comparison.STRICTLY_NEWER)));
        PreparedStatement update = connection.prepareStatement("UPDATE orders SET status = ? WHERE id = ?");
        try (Fence.Scope scope = Fence.enter(7)) {
            update.setString(1, "paid");
            update.setLong(2, 1);
            StaleFenceException stale = catchThrowableOfType(StaleFenceException.class, update::executeUpdate);
            assertThat(stale.currentFence()).hasValue(7);
            update.setLong(2, 2);
            assertThat(update.executeUpdate()).isEqualTo(1);
            assertThatThrownBy(() -> connection.createStatement()
                    .executeUpdate("UPDATE orders SET status = 'again' WHERE id = 2"))
                    .isInstanceOf(StaleFenceException.class);
        }
        assertThat(order(1)).isEqualTo(new Order(1, "pending", 100, 7));
        assertThat(order(2)).isEqualTo(new Order(2, "paid", 100, 7));
    }

    @Test
    void raiseTurnsEveryFencedWriteThatChangesNoRowIntoStale() throws SQLException {
        seed(1, "paid", 100, 5);
        Connection connection = connection(fenced(b -> b.onZeroRows(FencingConfig.ZeroRows.RAISE)));
        try (Fence.Scope scope = Fence.enter(7)) {
            StaleFenceException stale = catchThrowableOfType(StaleFenceException.class,
                    () -> connection.createStatement()
                            .executeUpdate("UPDATE orders SET status = 'x' WHERE id = 1 AND status = 'pending'"));
            assertThat(stale.currentFence()).isEmpty();
            assertThat(stale.attemptedFence()).isEqualTo(7);
            // a write that changes rows is not affected
            assertThat(connection.createStatement().executeUpdate("UPDATE orders SET status = 'y' WHERE id = 1"))
                    .isEqualTo(1);
            // nor is a table that is not fenced
            assertThat(connection.createStatement().executeUpdate("UPDATE notes SET body = 'z' WHERE id = 1"))
                    .isZero();
        }
        assertThat(order(1)).isEqualTo(new Order(1, "y", 100, 7));
    }

    @Test
    void diagnoseWithStrictlyNewerAndRaiseTogether() throws SQLException {
        seed(1, "pending", 100, 7);
        Connection connection = connection(fenced(b -> b.comparison(FencingConfig.Comparison.STRICTLY_NEWER)
                .onZeroRows(FencingConfig.ZeroRows.RAISE)));
        PreparedStatement delete = connection.prepareStatement("DELETE FROM orders WHERE id = ?");
        try (Fence.Scope scope = Fence.enter(7)) {
            delete.setLong(1, 1);
            assertThatThrownBy(delete::executeUpdate).isInstanceOf(StaleFenceException.class);
        }
        assertThat(order(1)).isEqualTo(new Order(1, "pending", 100, 7));
    }

    // ---- batches -----------------------------------------------------------------------------

    @Test
    void preparedBatchReportsTheStaleEntriesByIndex() throws SQLException {
        seed(1, "pending", 100, 5);
        seed(2, "pending", 100, 9);
        seed(3, "pending", 100, 5);
        seed(4, "pending", 100, 10);
        PreparedStatement update = connection().prepareStatement("UPDATE orders SET status = ? WHERE id = ?");
        StaleFenceException stale;
        try (Fence.Scope scope = Fence.enter(7)) {
            for (long id = 1; id <= 4; id++) {
                update.setString(1, "paid");
                update.setLong(2, id);
                update.addBatch();
            }
            stale = catchThrowableOfType(StaleFenceException.class, update::executeBatch);
        }
        assertThat((Throwable) stale).isNotNull();
        assertThat(stale.staleBatchEntries()).containsExactly(1, 3);
        assertThat(stale.updateCounts()).containsExactly(1, 0, 1, 0);
        assertThat(stale.currentFence()).hasValue(9);
        assertThat(order(1)).isEqualTo(new Order(1, "paid", 100, 7));
        assertThat(order(2)).isEqualTo(new Order(2, "pending", 100, 9));
        assertThat(order(3)).isEqualTo(new Order(3, "paid", 100, 7));
        assertThat(order(4)).isEqualTo(new Order(4, "pending", 100, 10));
    }

    @Test
    void eachBatchEntryCarriesTheFenceInScopeWhenItWasAdded() throws SQLException {
        seed(1, "pending", 100, 5);
        seed(2, "pending", 100, 5);
        PreparedStatement update = connection().prepareStatement("UPDATE orders SET amount = ? WHERE id = ?");
        try (Fence.Scope scope = Fence.enter(6)) {
            update.setLong(1, 1);
            update.setLong(2, 1);
            update.addBatch();
        }
        try (Fence.Scope outer = Fence.enter(8)) {
            update.setLong(1, 2);
            update.setLong(2, 2);
            update.addBatch();
            assertThat(update.executeBatch()).containsExactly(1, 1);
        }
        assertThat(order(1)).isEqualTo(new Order(1, "pending", 1, 6));
        assertThat(order(2)).isEqualTo(new Order(2, "pending", 2, 8));
    }

    @Test
    void aBatchExecutedAfterItsFenceScopeClosedIsRefusedAndCleared() throws SQLException {
        seed(1, "pending", 100, 5);
        PreparedStatement update = connection().prepareStatement("UPDATE orders SET amount = ? WHERE id = ?");
        try (Fence.Scope scope = Fence.enter(6)) {
            update.setLong(1, 1);
            update.setLong(2, 1);
            update.addBatch();
        }

        assertThatThrownBy(update::executeBatch).isInstanceOf(MissingFenceException.class)
                .hasMessageContaining("nothing was sent");
        assertThat(order(1)).isEqualTo(new Order(1, "pending", 100, 5));
        try (Fence.Scope scope = Fence.enter(6)) {
            assertThat(update.executeBatch()).isEmpty();
        }
        assertThat(order(1)).isEqualTo(new Order(1, "pending", 100, 5));
    }

    @Test
    void plainBatchMixesFencedAndOtherEntries() throws SQLException {
        seed(1, "pending", 100, 5);
        seed(2, "pending", 100, 9);
        Statement statement = connection().createStatement();
        StaleFenceException stale;
        try (Fence.Scope scope = Fence.enter(7)) {
            statement.addBatch("INSERT INTO notes (id, body) VALUES (1, 'a')");
            statement.addBatch("UPDATE orders SET status = 'paid' WHERE id = 1");
            statement.addBatch("UPDATE orders SET status = 'paid' WHERE id = 2");
            statement.addBatch("INSERT INTO orders (id, status, amount) VALUES (3, 'new', 1)");
            stale = catchThrowableOfType(StaleFenceException.class, statement::executeBatch);
        }
        assertThat(stale.staleBatchEntries()).containsExactly(2);
        assertThat(stale.updateCounts()).containsExactly(1, 1, 0, 1);
        assertThat(order(1)).isEqualTo(new Order(1, "paid", 100, 7));
        assertThat(order(2)).isEqualTo(new Order(2, "pending", 100, 9));
        assertThat(order(3)).isEqualTo(new Order(3, "new", 1, 7));
        assertThat(count("notes")).isEqualTo(1);
    }

    @Test
    void plainBatchRefusesAFencedEntryWithoutFenceWhenItIsAdded() throws SQLException {
        seed(1, "pending", 100, 5);
        Statement statement = connection().createStatement();
        statement.addBatch("INSERT INTO notes (id, body) VALUES (1, 'a')");
        assertThatThrownBy(() -> statement.addBatch("UPDATE orders SET status = 'paid' WHERE id = 1"))
                .isInstanceOf(MissingFenceException.class);
        assertThatThrownBy(() -> statement.addBatch("TRUNCATE TABLE orders"))
                .isInstanceOf(UnfenceableStatementException.class);
        assertThat(statement.executeBatch()).containsExactly(1);
        assertThat(order(1)).isEqualTo(new Order(1, "pending", 100, 5));
        assertThat(count("notes")).isEqualTo(1);
    }

    @Test
    void largeBatchIsCheckedToo() throws SQLException {
        seed(1, "pending", 100, 9);
        PreparedStatement update = connection().prepareStatement("UPDATE orders SET amount = ? WHERE id = ?");
        try (Fence.Scope scope = Fence.enter(7)) {
            update.setLong(1, 1);
            update.setLong(2, 1);
            update.addBatch();
            StaleFenceException stale = catchThrowableOfType(StaleFenceException.class, update::executeLargeBatch);
            assertThat(stale.staleBatchEntries()).containsExactly(0);
        }
        assertThat(order(1)).isEqualTo(new Order(1, "pending", 100, 9));
    }
}
