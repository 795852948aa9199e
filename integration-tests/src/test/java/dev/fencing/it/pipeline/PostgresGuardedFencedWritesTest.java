package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.FencingConfig;
import dev.fencing.jdbc.DatabaseGuard;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.testing.TestDatabase;

import javax.sql.DataSource;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.function.Consumer;

/**
 * The front door's contract on PostgreSQL with the database guard required: every spliced write
 * now carries its fence to the trigger in its own text ({@link dev.fencing.internal.sql.FenceSlot}),
 * and must still do what the contract says, rows read back raw.
 */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
class PostgresGuardedFencedWritesTest extends PostgresFencedWritesTest {

    PostgresGuardedFencedWritesTest(DataSource database) {
        super(database);
    }

    private static FencingConfig guarded() {
        return FencingConfig.builder().tables("orders").databaseGuard(FencingConfig.Guard.REQUIRED).build();
    }

    @Override
    @org.junit.jupiter.api.BeforeEach
    void createTables() throws SQLException {
        super.createTables();
        DatabaseGuard.install(raw(), guarded());
    }

    @Override
    void seed(long id, String status, long amount, long lastFence) throws SQLException {
        DatabaseGuard.migrate(raw(), "test rows", connection -> {
            try (PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO orders (id, status, amount, last_fence) VALUES (?, ?, ?, ?)")) {
                insert.setLong(1, id);
                insert.setString(2, status);
                insert.setLong(3, amount);
                insert.setLong(4, lastFence);
                insert.executeUpdate();
            }
        });
    }

    /** The contract's data source with the guard required, installed for its configuration (a comparison changes the triggers). */
    @Override
    FencingDataSource fenced(Consumer<FencingConfig.Builder> settings) {
        FencingDataSource fenced = super.fenced(settings.andThen(builder -> builder.databaseGuard(FencingConfig.Guard.REQUIRED)));
        FencingConfig.Builder builder = FencingConfig.builder().tables("orders");
        settings.accept(builder);
        try {
            DatabaseGuard.install(raw(), builder.databaseGuard(FencingConfig.Guard.REQUIRED).build());
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return fenced;
    }

    /**
     * With the guard, a batch runs under one fence: entries added under different fences are
     * refused with the batch (an entry's code that runs before its own fence would see another
     * entry's), nothing sent.
     */
    @Override
    @org.junit.jupiter.api.Test
    void eachBatchEntryCarriesTheFenceInScopeWhenItWasAdded() throws SQLException {
        seed(1, "pending", 100, 5);
        seed(2, "pending", 100, 5);
        java.sql.PreparedStatement update = connection().prepareStatement("UPDATE orders SET amount = ? WHERE id = ?");
        try (dev.fencing.Fence.Scope scope = dev.fencing.Fence.enter(6)) {
            update.setLong(1, 1);
            update.setLong(2, 1);
            update.addBatch();
        }
        try (dev.fencing.Fence.Scope outer = dev.fencing.Fence.enter(8)) {
            update.setLong(1, 2);
            update.setLong(2, 2);
            update.addBatch();
            org.assertj.core.api.Assertions.assertThatThrownBy(update::executeBatch)
                    .isInstanceOf(dev.fencing.FencingException.class).hasMessageContaining("different fences");
        }
        org.assertj.core.api.Assertions.assertThat(order(1)).isEqualTo(new Order(1, "pending", 100, 5));
        org.assertj.core.api.Assertions.assertThat(order(2)).isEqualTo(new Order(2, "pending", 100, 5));
    }
}
