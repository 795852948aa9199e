package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.jdbc.DatabaseGuard;
import dev.fencing.jdbc.EpochTable;
import dev.fencing.jdbc.FencingDataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.FencingException;
import dev.fencing.MissingFenceException;
import dev.fencing.StaleFenceException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The database guard on one database: {@code orders} is fenced (schema-qualified in the
 * configuration, so that the shared test servers' other schemas are never touched), references
 * {@code customers}, which references {@code regions}, both with {@code ON DELETE CASCADE}.
 * Writers that bypass the driver (a raw connection, like a console) and paths the analyzer cannot
 * see (a function called from SELECT, a view, a cascade) must all meet the trigger.
 */
abstract class DatabaseGuardContract {

    /** The database, unfenced. */
    abstract DataSource raw();

    /** The schema (PostgreSQL, H2) or database (MariaDB) the tables live in, as configured. */
    abstract String schema();

    /** DDL of {@code pay(id)}: a function that sets the order's status to 'paid' and returns 1. */
    abstract List<String> payFunction();

    /** The text that makes a raw session hold {@code fence}, as a console user could. */
    abstract String setSessionFence(long fence);

    /** The text that makes a raw session name {@code lock} as its fence's lock. */
    abstract String setSessionLock(String lock);

    /** The migration mark a raw script sets for the whole session (the header older docs showed). */
    abstract String setSessionMark(String reason);

    /** True when the database can write through a plain view. */
    boolean updatableViews() {
        return true;
    }

    FencingConfig config() {
        return FencingConfig.builder().tables(schema() + ".orders").databaseGuard(FencingConfig.Guard.REQUIRED).build();
    }

    @BeforeEach
    void createTables() throws SQLException {
        DatabaseGuard.remove(raw(), config());
        sql("DROP VIEW IF EXISTS orders_view", "DROP TABLE IF EXISTS orders", "DROP TABLE IF EXISTS customers",
                "DROP TABLE IF EXISTS regions",
                "CREATE TABLE regions (id BIGINT PRIMARY KEY)",
                "CREATE TABLE customers (id BIGINT PRIMARY KEY, region_id BIGINT,"
                        + " FOREIGN KEY (region_id) REFERENCES regions (id) ON DELETE CASCADE)",
                "CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(20), customer_id BIGINT,"
                        + " last_fence BIGINT NOT NULL DEFAULT 0,"
                        + " FOREIGN KEY (customer_id) REFERENCES customers (id) ON DELETE CASCADE)",
                "CREATE VIEW orders_view AS SELECT id, status FROM orders",
                "INSERT INTO regions (id) VALUES (1), (2)",
                "INSERT INTO customers (id, region_id) VALUES (10, 1), (20, 2)",
                "INSERT INTO orders (id, status, customer_id, last_fence) VALUES (1, 'pending', 10, 5), (2, 'pending', 20, 5)");
        for (String ddl : payFunction()) {
            sql(ddl);
        }
        DatabaseGuard.install(raw(), config());
    }

    void sql(String... statements) throws SQLException {
        try (Connection connection = raw().getConnection(); Statement statement = connection.createStatement()) {
            for (String text : statements) {
                statement.execute(text);
            }
        }
    }

    /** Status and fence of an order as the database holds it; null when it is gone. */
    String order(long id) throws SQLException {
        try (Connection connection = raw().getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT status, last_fence FROM orders WHERE id = ?")) {
            select.setLong(1, id);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? rows.getString(1) + "@" + rows.getLong(2) : null;
            }
        }
    }

    static String stateOf(Throwable e) {
        return e instanceof SQLException sql ? sql.getSQLState() : null;
    }

    // ---- the second wall: writers that bypass the driver ----------------------------------------

    @Test
    void rawWritesWithoutAFenceAreRefusedForgedFenceColumnOrNot() throws SQLException {
        for (String write : List.of("UPDATE orders SET status = 'paid' WHERE id = 1",
                "UPDATE orders SET status = 'paid', last_fence = 99 WHERE id = 1",
                "DELETE FROM orders WHERE id = 1",
                "INSERT INTO orders (id, status, customer_id, last_fence) VALUES (3, 'new', 10, 99)")) {
            SQLException refused = catchThrowableOfType(SQLException.class, () -> sql(write));
            assertThat((Object) refused).as(write).isNotNull();
            assertThat(refused.getSQLState()).as(write).isEqualTo("ZF002");
        }
        assertThat(order(1)).isEqualTo("pending@5");
        assertThat(order(3)).isNull();
    }

    @Test
    void rawWriteWithAStaleSessionFenceIsRefusedAndACurrentOneRecorded() throws SQLException {
        try (Connection console = raw().getConnection(); Statement statement = console.createStatement()) {
            statement.execute(setSessionFence(3));
            SQLException stale = catchThrowableOfType(SQLException.class,
                    () -> statement.executeUpdate("UPDATE orders SET status = 'paid' WHERE id = 1"));
            assertThat(stale.getSQLState()).isEqualTo("ZF001");
            statement.execute(setSessionFence(6));
            assertThat(statement.executeUpdate("UPDATE orders SET status = 'paid', last_fence = 1 WHERE id = 1")).isEqualTo(1);
        }
        assertThat(order(1)).isEqualTo("paid@6");
    }

    @Test
    void writesThroughAnUnfencedViewAreRefusedWithoutAFence() throws SQLException {
        if (!updatableViews()) {
            return;
        }
        SQLException refused = catchThrowableOfType(SQLException.class,
                () -> sql("UPDATE orders_view SET status = 'paid' WHERE id = 1"));
        assertThat(refused.getSQLState()).isEqualTo("ZF002");
        assertThat(order(1)).isEqualTo("pending@5");
    }

    @Test
    void cascadingDeletesFromUnfencedParentsAreRefusedWithoutAFence() throws SQLException {
        for (String delete : List.of("DELETE FROM customers WHERE id = 10", "DELETE FROM regions WHERE id = 1")) {
            SQLException refused = catchThrowableOfType(SQLException.class, () -> sql(delete));
            assertThat((Object) refused).as(delete).isNotNull();
            assertThat(refused.getSQLState()).as(delete).isEqualTo("ZF002");
        }
        assertThat(order(1)).isEqualTo("pending@5");
    }

    @Test
    void cascadingDeletesAreCheckedAgainstTheCallersFence() throws Exception {
        try (FencingDataSource fenced = new FencingDataSource(raw(), config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
            try (Fence.Scope stale = Fence.enter(4)) {
                StaleFenceException refused = catchThrowableOfType(StaleFenceException.class,
                        () -> statement.executeUpdate("DELETE FROM regions WHERE id = 1"));
                assertThat(refused.attemptedFence()).isEqualTo(4);
                assertThat(refused.currentFence()).hasValue(5);
            }
            assertThat(order(1)).isEqualTo("pending@5");
            try (Fence.Scope current = Fence.enter(5)) {
                assertThat(statement.executeUpdate("DELETE FROM regions WHERE id = 1")).isEqualTo(1);
            }
        }
        assertThat(order(1)).isNull();
        assertThat(order(2)).isEqualTo("pending@5");
    }

    @Test
    void batchedCascadesThatMeetANewerFenceRaiseStaleFence() throws Exception {
        try (FencingDataSource fenced = new FencingDataSource(raw(), config());
             Connection connection = fenced.getConnection();
             PreparedStatement delete = connection.prepareStatement("DELETE FROM customers WHERE id = ?");
             Fence.Scope stale = Fence.enter(4)) {
            delete.setLong(1, 10);
            delete.addBatch();
            delete.setLong(1, 20);
            delete.addBatch();
            assertThatThrownBy(delete::executeBatch).isInstanceOf(StaleFenceException.class);
        }
        assertThat(order(1)).isEqualTo("pending@5");
    }

    // ---- paths the analyzer cannot see, fenced by the caller's fence ------------------------------

    @Test
    void aFunctionCalledFromSelectIsFencedByTheCallersFence() throws Exception {
        try (FencingDataSource fenced = new FencingDataSource(raw(), config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
            assertThatThrownBy(() -> statement.executeQuery("SELECT pay(1)")).isInstanceOf(MissingFenceException.class);
            try (Fence.Scope stale = Fence.enter(4)) {
                StaleFenceException refused = catchThrowableOfType(StaleFenceException.class,
                        () -> statement.executeQuery("SELECT pay(1)").close());
                assertThat(refused.attemptedFence()).isEqualTo(4);
                assertThat(refused.currentFence()).hasValue(5);
                assertThat(refused.table()).containsIgnoringCase("orders");
            }
            assertThat(order(1)).isEqualTo("pending@5");
            try (Fence.Scope current = Fence.enter(8); ResultSet rows = statement.executeQuery("SELECT pay(1)")) {
                assertThat(rows.next()).isTrue();
            }
        }
        assertThat(order(1)).isEqualTo("paid@8");
    }

    @Test
    void updatableResultSetsWriteBackUnderTheCallersFence() throws Exception {
        try (FencingDataSource fenced = new FencingDataSource(raw(), config());
             Connection connection = fenced.getConnection();
             Statement statement = connection.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_UPDATABLE)) {
            try (Fence.Scope stale = Fence.enter(4);
                 ResultSet rows = statement.executeQuery("SELECT id, status FROM orders WHERE id = 1")) {
                rows.next();
                rows.updateString(2, "paid");
                assertThatThrownBy(rows::updateRow).isInstanceOf(StaleFenceException.class);
            }
            assertThat(order(1)).isEqualTo("pending@5");
            try (Fence.Scope current = Fence.enter(7);
                 ResultSet rows = statement.executeQuery("SELECT id, status FROM orders WHERE id = 1")) {
                rows.next();
                rows.updateString(2, "paid");
                rows.updateRow();
            }
        }
        assertThat(order(1)).isEqualTo("paid@7");
    }

    // ---- the session fence ---------------------------------------------------------------------------

    @Test
    void aPooledConnectionBorrowedWithoutAFenceCannotWrite() throws Exception {
        HikariConfig pool = new HikariConfig();
        pool.setDataSource(raw());
        pool.setMaximumPoolSize(1);
        try (HikariDataSource hikari = new HikariDataSource(pool);
             FencingDataSource fenced = new FencingDataSource(hikari, config())) {
            try (Connection first = fenced.getConnection(); Statement statement = first.createStatement();
                 Fence.Scope scope = Fence.enter(6)) {
                assertThat(statement.executeUpdate("UPDATE orders SET status = 'seen' WHERE id = 2")).isEqualTo(1);
            }
            try (Connection second = fenced.getConnection(); Statement statement = second.createStatement()) {
                assertThatThrownBy(() -> statement.executeQuery("SELECT pay(1)").close())
                        .isInstanceOf(MissingFenceException.class);
            }
        }
        assertThat(order(1)).isEqualTo("pending@5");
        assertThat(order(2)).isEqualTo("seen@6");
    }

    @Test
    void aRollbackAfterTheSessionFenceWasSetLeavesNoWrongFence() throws Exception {
        try (FencingDataSource fenced = new FencingDataSource(raw(), config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
            connection.setAutoCommit(false);
            try (Fence.Scope scope = Fence.enter(7)) {
                statement.executeQuery("SELECT COUNT(*) FROM customers").close();
                connection.rollback();
                try (ResultSet rows = statement.executeQuery("SELECT pay(1)")) {
                    rows.next();
                }
                connection.commit();
            }
            try (Fence.Scope older = Fence.enter(6)) {
                statement.executeQuery("SELECT COUNT(*) FROM customers").close();
                connection.rollback();
                assertThatThrownBy(() -> statement.executeQuery("SELECT pay(1)").close())
                        .isInstanceOf(StaleFenceException.class);
                connection.rollback();
            }
        }
        assertThat(order(1)).isEqualTo("paid@7");
    }

    @Test
    void rollbacksToASavepointOrAsTextLeaveNoWrongFence() throws Exception {
        try (FencingDataSource fenced = new FencingDataSource(raw(), config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
            connection.setAutoCommit(false);
            try (Fence.Scope scope = Fence.enter(7)) {
                java.sql.Savepoint savepoint = connection.setSavepoint();
                statement.executeQuery("SELECT COUNT(*) FROM customers").close();
                connection.rollback(savepoint);
                statement.executeQuery("SELECT pay(2)").close();
                statement.executeQuery("SELECT COUNT(*) FROM regions").close();
                statement.execute("ROLLBACK");
                statement.executeQuery("SELECT pay(1)").close();
                connection.commit();
            }
        }
        assertThat(order(1)).isEqualTo("paid@7");
        assertThat(order(2)).isEqualTo("pending@5");
    }

    @Test
    void epochTablesAreCheckedAgainstTheGuardRowOfTheSessionsLock() throws Exception {
        String lock = "acct:" + dev.fencing.it.UniqueNames.next("t_");
        FencingConfig epoch = FencingConfig.builder().tables(schema() + ".orders", schema() + ".accounts")
                .tableMode(schema() + ".accounts", FencingConfig.Mode.EPOCH)
                .databaseGuard(FencingConfig.Guard.REQUIRED).build();
        sql("DROP TABLE IF EXISTS accounts", "CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL)",
                "INSERT INTO accounts (id, balance) VALUES (1, 100)");
        EpochTable.createTable(raw(), epoch);
        DatabaseGuard.install(raw(), epoch);
        try {
            SQLException refused = catchThrowableOfType(SQLException.class,
                    () -> sql("UPDATE accounts SET balance = 0 WHERE id = 1"));
            assertThat(refused.getSQLState()).isEqualTo("ZF002");
            try (FencingDataSource fenced = new FencingDataSource(raw(), epoch);
                 Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
                 Fence.Scope scope = Fence.enter(lock, 5)) {
                assertThat(statement.executeUpdate("UPDATE accounts SET balance = 90 WHERE id = 1")).isEqualTo(1);
            }
            EpochTable.claim(raw(), epoch, lock, 7);
            try (Connection console = raw().getConnection(); Statement statement = console.createStatement()) {
                statement.execute(setSessionFence(5));
                statement.execute(setSessionLock(lock));
                SQLException stale = catchThrowableOfType(SQLException.class,
                        () -> statement.executeUpdate("UPDATE accounts SET balance = 0 WHERE id = 1"));
                assertThat(stale.getSQLState()).isEqualTo("ZF001");
                statement.execute(setSessionFence(7));
                assertThat(statement.executeUpdate("UPDATE accounts SET balance = 70 WHERE id = 1")).isEqualTo(1);
            }
            try (Connection console = raw().getConnection(); Statement statement = console.createStatement();
                 ResultSet rows = statement.executeQuery("SELECT balance FROM accounts WHERE id = 1")) {
                rows.next();
                assertThat(rows.getLong(1)).isEqualTo(70);
            }
        } finally {
            DatabaseGuard.remove(raw(), epoch);
        }
    }

    // ---- installing, verifying, migrating ------------------------------------------------------------

    @Test
    void withoutTheGuardEveryFencedWriteFailsClosedAndVerifyNamesTheTable() throws Exception {
        DatabaseGuard.remove(raw(), config());
        FencingException missing = catchThrowableOfType(FencingException.class, () -> DatabaseGuard.verify(raw(), config()));
        assertThat(missing.getMessage()).containsIgnoringCase("orders").contains("missing");
        try (FencingDataSource fenced = new FencingDataSource(raw(), config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
             Fence.Scope scope = Fence.enter(9)) {
            FencingException refused = catchThrowableOfType(FencingException.class,
                    () -> statement.executeUpdate("UPDATE orders SET status = 'paid' WHERE id = 1"));
            assertThat(refused.getSQLState()).isEqualTo("ZF000");
            assertThat(refused.getMessage()).contains("fencing.database-guard");
            try (ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM orders")) {
                assertThat(rows.next()).isTrue();
            }
        }
        assertThat(order(1)).isEqualTo("pending@5");
        DatabaseGuard.install(raw(), config());
        DatabaseGuard.install(raw(), config());
        DatabaseGuard.verify(raw(), config());
        FencingConfig strictly = FencingConfig.builder().tables(schema() + ".orders")
                .comparison(FencingConfig.Comparison.STRICTLY_NEWER).databaseGuard(FencingConfig.Guard.REQUIRED).build();
        FencingException outdated = catchThrowableOfType(FencingException.class, () -> DatabaseGuard.verify(raw(), strictly));
        assertThat(outdated.getMessage()).contains("outdated");
        assertThat(DatabaseGuard.ddl(raw(), config())).isNotEmpty();
    }

    @Test
    void aSanctionedMigrationWritesAndIsClearedAfterwards() throws Exception {
        DatabaseGuard.migrate(raw(), "test backfill of statuses", connection -> {
            try (Statement statement = connection.createStatement()) {
                assertThat(statement.executeUpdate("UPDATE orders SET status = 'migrated'")).isEqualTo(2);
            }
        });
        assertThat(order(1)).isEqualTo("migrated@5");
        assertThatThrownBy(() -> sql("UPDATE orders SET status = 'again' WHERE id = 1"))
                .satisfies(e -> assertThat(stateOf(e)).isEqualTo("ZF002"));
    }

    @Test
    void driverWritesUnderTheGuardAreAppliedAndStaleOnesRefused() throws Exception {
        try (FencingDataSource fenced = new FencingDataSource(raw(), config());
             Connection connection = fenced.getConnection()) {
            try (PreparedStatement update = connection.prepareStatement("UPDATE orders SET status = ? WHERE id = ?");
                 Fence.Scope scope = Fence.enter(9)) {
                update.setString(1, "paid");
                update.setLong(2, 1);
                assertThat(update.executeUpdate()).isEqualTo(1);
            }
            try (PreparedStatement update = connection.prepareStatement("UPDATE orders SET status = ? WHERE id = ?");
                 Fence.Scope scope = Fence.enter(8)) {
                update.setString(1, "late");
                update.setLong(2, 1);
                assertThatThrownBy(update::executeUpdate).isInstanceOf(StaleFenceException.class);
            }
        }
        assertThat(order(1)).isEqualTo("paid@9");
    }

    // ---- nothing the driver sets outlives its hold of the connection (issue 27, class 1 and 3) ------

    /** One physical connection shared by the fenced data source and raw code, as Flyway or a report job share a pool. */
    private static HikariDataSource poolOfOne(DataSource raw) {
        HikariConfig pool = new HikariConfig();
        pool.setDataSource(raw);
        pool.setMaximumPoolSize(1);
        return new HikariDataSource(pool);
    }

    /** Raw writes on {@code pool}: each must meet the trigger with no fence (ZF002). */
    private void rawWritersFindNoFence(DataSource pool) throws SQLException {
        try (Connection raw = pool.getConnection(); Statement statement = raw.createStatement()) {
            for (String write : List.of("SELECT pay(1)", "UPDATE orders SET status = 'raw' WHERE id = 1",
                    "UPDATE orders SET status = 'raw', last_fence = 99 WHERE id = 1", "DELETE FROM orders WHERE id = 1",
                    "INSERT INTO orders (id, status, customer_id) VALUES (3, 'raw', 10)")) {
                SQLException refused = catchThrowableOfType(SQLException.class, () -> {
                    if (write.startsWith("SELECT")) {
                        statement.executeQuery(write).close();
                    } else {
                        statement.executeUpdate(write);
                    }
                });
                assertThat((Throwable) refused).as(write).isNotNull();
                assertThat(stateOf(refused)).as(write).isEqualTo("ZF002");
                if (!raw.getAutoCommit()) {
                    raw.rollback();
                }
            }
        }
    }

    @Test
    void aRawWriterOnTheSamePoolFindsNoFenceAfterAFencedReadOrWrite() throws Exception {
        try (HikariDataSource pool = poolOfOne(raw()); FencingDataSource fenced = new FencingDataSource(pool, config())) {
            try (Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
                 Fence.Scope scope = Fence.enter(40)) {
                statement.executeQuery("SELECT COUNT(*) FROM orders").close();
            }
            rawWritersFindNoFence(pool);
            try (Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
                 Fence.Scope scope = Fence.enter(40)) {
                assertThat(statement.executeUpdate("UPDATE orders SET status = 'fenced' WHERE id = 2")).isEqualTo(1);
                statement.executeQuery("SELECT pay(2)").close();
            }
            rawWritersFindNoFence(pool);
        }
        assertThat(order(1)).isEqualTo("pending@5");
        assertThat(order(2)).isEqualTo("paid@40");
        assertThat(order(3)).isNull();
    }

    @Test
    void aRawWriterOnTheSamePoolFindsNoFenceAfterAFencedTransaction() throws Exception {
        try (HikariDataSource pool = poolOfOne(raw()); FencingDataSource fenced = new FencingDataSource(pool, config())) {
            try (Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
                 Fence.Scope scope = Fence.enter(40)) {
                connection.setAutoCommit(false);
                statement.executeQuery("SELECT pay(2)").close();
                connection.commit();
                statement.executeQuery("SELECT COUNT(*) FROM orders").close();
                // closed with the transaction open: the pool ends it
            }
            rawWritersFindNoFence(pool);
            try (Connection raw = pool.getConnection()) {
                raw.setAutoCommit(false);
                rawWritersFindNoFence(new SingleConnection(raw));
                raw.rollback();
            }
        }
        assertThat(order(1)).isEqualTo("pending@5");
        assertThat(order(2)).isEqualTo("paid@40");
    }

    @Test
    void aConnectionClosedInsideItsFenceScopeOrOnAnotherThreadLeavesNoFence() throws Exception {
        try (HikariDataSource pool = poolOfOne(raw()); FencingDataSource fenced = new FencingDataSource(pool, config())) {
            try (Fence.Scope scope = Fence.enter(40)) {
                Connection connection = fenced.getConnection();
                connection.createStatement().executeQuery("SELECT COUNT(*) FROM orders").close();
                connection.close();
                rawWritersFindNoFence(pool);
                java.util.concurrent.CompletableFuture.runAsync(Fence.wrap(() -> {
                    try (Connection other = fenced.getConnection(); Statement statement = other.createStatement()) {
                        statement.executeQuery("SELECT COUNT(*) FROM orders").close();
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                })).get();
                rawWritersFindNoFence(pool);
            }
        }
        assertThat(order(1)).isEqualTo("pending@5");
    }

    /** Java 21+: fenced statements on virtual threads leave nothing on the pooled connection either. */
    @Test
    void aConnectionUsedOnVirtualThreadsLeavesNoFence() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Runtime.version().feature() >= 21, "virtual threads need Java 21");
        try (HikariDataSource pool = poolOfOne(raw()); FencingDataSource fenced = new FencingDataSource(pool, config())) {
            java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
            Runnable work = () -> {
                try (Fence.Scope scope = Fence.enter(40); Connection connection = fenced.getConnection();
                     Statement statement = connection.createStatement()) {
                    statement.executeQuery("SELECT pay(2)").close();
                } catch (Throwable e) {
                    failure.set(e);
                }
            };
            Thread virtual = (Thread) Thread.class.getMethod("startVirtualThread", Runnable.class).invoke(null, work);
            virtual.join();
            assertThat(failure.get()).isNull();
            rawWritersFindNoFence(pool);
        }
        assertThat(order(2)).isEqualTo("paid@40");
    }

    @Test
    void aStaleHolderOnTheSamePoolCannotWriteWithTheNewHoldersFence() throws Exception {
        try (HikariDataSource pool = poolOfOne(raw()); FencingDataSource fenced = new FencingDataSource(pool, config())) {
            try (Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
                 Fence.Scope scope = Fence.enter(36)) {
                assertThat(statement.executeUpdate("UPDATE orders SET status = 'held' WHERE id = 1")).isEqualTo(1);
            }
            try (Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
                 Fence.Scope scope = Fence.enter(40)) {
                statement.executeQuery("SELECT COUNT(*) FROM orders").close();
            }
            try (Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
                try (Fence.Scope stale = Fence.enter(35)) {
                    assertThatThrownBy(() -> statement.executeQuery("SELECT pay(1)").close())
                            .isInstanceOf(StaleFenceException.class);
                }
                assertThatThrownBy(() -> statement.executeQuery("SELECT pay(1)").close())
                        .isInstanceOf(MissingFenceException.class);
            }
        }
        assertThat(order(1)).isEqualTo("held@36");
    }

    @Test
    void aMigrationMarkARawScriptLeftOnAPooledConnectionCoversNoFencedStatement() throws Exception {
        try (HikariDataSource pool = poolOfOne(raw()); FencingDataSource fenced = new FencingDataSource(pool, config())) {
            try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute(setSessionMark("old script header"));
            }
            try (Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
                assertThatThrownBy(() -> statement.executeQuery("SELECT pay(1)").close())
                        .isInstanceOf(MissingFenceException.class);
                try (Fence.Scope stale = Fence.enter(3)) {
                    assertThatThrownBy(() -> statement.executeQuery("SELECT pay(1)").close())
                            .isInstanceOf(StaleFenceException.class);
                    connection.setAutoCommit(false);
                    assertThatThrownBy(() -> statement.executeQuery("SELECT pay(1)").close())
                            .isInstanceOf(StaleFenceException.class);
                    connection.rollback();
                }
            }
        }
        assertThat(order(1)).isEqualTo("pending@5");
    }

    @Test
    void aMigrationLeavesNoMarkWhateverItsWorkDid() throws Exception {
        try (HikariDataSource pool = poolOfOne(raw())) {
            assertThatThrownBy(() -> DatabaseGuard.migrate(pool, "turns auto-commit off, then fails", connection -> {
                connection.setAutoCommit(false);
                try (Statement statement = connection.createStatement()) {
                    statement.executeUpdate("UPDATE orders SET status = 'undone' WHERE id = 1");
                }
                throw new IllegalStateException("the work failed");
            })).hasMessageContaining("the work failed");
            rawWritersFindNoFence(pool);
            assertThatThrownBy(() -> DatabaseGuard.migrate(pool, "hits an SQL error", connection -> {
                try (Statement statement = connection.createStatement()) {
                    statement.executeUpdate("UPDATE no_such_table SET x = 1");
                }
            })).isInstanceOf(SQLException.class);
            rawWritersFindNoFence(pool);
            DatabaseGuard.migrate(pool, "succeeds", connection -> {
                try (Statement statement = connection.createStatement()) {
                    statement.executeUpdate("UPDATE orders SET status = 'migrated' WHERE id = 2");
                }
            });
            rawWritersFindNoFence(pool);
        }
        assertThat(order(1)).isEqualTo("pending@5");
        assertThat(order(2)).isEqualTo("migrated@5");
    }
}
