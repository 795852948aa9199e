package dev.fencing.internal.jdbc;

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
}
