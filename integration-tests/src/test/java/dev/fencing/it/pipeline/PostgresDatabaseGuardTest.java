package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.internal.txn.TransactionState;
import dev.fencing.jdbc.DatabaseGuard;
import dev.fencing.jdbc.FencingDataSource;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;

import javax.sql.DataSource;
import java.io.StringReader;
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
 * The database guard on PostgreSQL, in a database of its own: install adds event triggers, which
 * cover a whole database.
 */
class PostgresDatabaseGuardTest extends DatabaseGuardContract {

    private static OwnPostgresDatabase own;
    private static DataSource database;

    @BeforeAll
    static void createDatabase() throws SQLException {
        own = OwnPostgresDatabase.create();
        database = own.schema("guarded");
    }

    @AfterAll
    static void dropDatabase() throws SQLException {
        if (own != null) {
            own.close();
        }
    }

    @Override
    DataSource raw() {
        return database;
    }

    @Override
    String schema() {
        return "guarded";
    }

    @Override
    List<String> payFunction() {
        return List.of("CREATE OR REPLACE FUNCTION pay(order_id BIGINT) RETURNS INT LANGUAGE sql AS"
                + " 'UPDATE orders SET status = ''paid'' WHERE id = order_id; SELECT 1'");
    }

    @Override
    String setSessionLock(String lock) {
        return "SELECT set_config('fencing.lock', '" + lock + "', false)";
    }

    @Override
    String setSessionMark(String reason) {
        return "SELECT set_config('fencing.migration', '" + reason + "', false)";
    }

    @Override
    String setSessionFence(long fence) {
        return "SELECT set_config('fencing.fence', '" + fence + "', false)";
    }

    @Test
    void truncateAndCopyFromAreRefusedWithoutAFence() throws Exception {
        SQLException truncate = catchThrowableOfType(SQLException.class, () -> sql("TRUNCATE orders CASCADE"));
        assertThat(truncate.getSQLState()).isEqualTo("ZF002");
        try (Connection console = raw().getConnection()) {
            SQLException copy = catchThrowableOfType(SQLException.class, () -> console.unwrap(PGConnection.class)
                    .getCopyAPI().copyIn("COPY orders (id, status, customer_id) FROM STDIN", new StringReader("7\tnew\t10\n")));
            assertThat(copy.getSQLState()).isEqualTo("ZF002");
            try (Statement statement = console.createStatement()) {
                statement.execute(setSessionFence(11));
            }
            console.unwrap(PGConnection.class).getCopyAPI()
                    .copyIn("COPY orders (id, status, customer_id, last_fence) FROM STDIN", new StringReader("7\tnew\t10\t1\n"));
        }
        assertThat(order(7)).isEqualTo("new@11");
    }

    @Test
    void replicaModeDoesNotSwitchTheGuardOff() throws Exception {
        SQLException refused = catchThrowableOfType(SQLException.class,
                () -> sql("SET session_replication_role = replica", "UPDATE orders SET status = 'x' WHERE id = 1"));
        assertThat(refused.getSQLState()).isEqualTo("ZF002");
    }

    @Test
    void aProcedureIsFencedByTheCallersFence() throws Exception {
        sql("CREATE OR REPLACE PROCEDURE pay_proc(order_id BIGINT) LANGUAGE sql AS"
                + " 'UPDATE orders SET status = ''paid'' WHERE id = order_id'");
        try (FencingDataSource fenced = new FencingDataSource(raw(), config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
            try (Fence.Scope stale = Fence.enter(2)) {
                assertThatThrownBy(() -> statement.execute("CALL pay_proc(1)"))
                        .isInstanceOf(dev.fencing.StaleFenceException.class);
            }
            try (Fence.Scope current = Fence.enter(12)) {
                statement.execute("CALL pay_proc(1)");
            }
        }
        assertThat(order(1)).isEqualTo("paid@12");
    }

    /** Runs {@code sql} through the driver under {@code fence} (0: none). */
    private void fenced(long fence, String sql) throws Exception {
        try (FencingDataSource fenced = new FencingDataSource(raw(), config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
            if (fence == 0) {
                statement.execute(sql);
                return;
            }
            try (Fence.Scope scope = Fence.enter(fence)) {
                statement.execute(sql);
            }
        }
    }

    @Test
    void formsTheFrontDoorRefusesRunUnderTheGuardAndMeetTheTrigger() throws Exception {
        String merge = "MERGE INTO orders o USING (VALUES (1, 'merged')) v (id, status) ON o.id = v.id"
                + " WHEN MATCHED THEN UPDATE SET status = v.status";
        String doBlock = "DO $$ BEGIN UPDATE orders SET status = 'done' WHERE id = 2; END $$";
        for (String text : List.of(merge, doBlock)) {
            assertThatThrownBy(() -> fenced(4, text), text).isInstanceOf(dev.fencing.StaleFenceException.class);
        }
        assertThatThrownBy(() -> fenced(0, doBlock)).isInstanceOf(dev.fencing.MissingFenceException.class);
        assertThat(order(1)).isEqualTo("pending@5");
        assertThat(order(2)).isEqualTo("pending@5");
        fenced(9, merge);
        fenced(9, doBlock);
        assertThat(order(1)).isEqualTo("merged@9");
        assertThat(order(2)).isEqualTo("done@9");
    }

    @Test
    void sqlLevelExecuteRunsUnderTheCallersFence() throws Exception {
        try (FencingDataSource fenced = new FencingDataSource(raw(), config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("PREPARE pay_stmt (BIGINT) AS UPDATE orders SET status = 'paid' WHERE id = $1");
            try (Fence.Scope stale = Fence.enter(4)) {
                assertThatThrownBy(() -> statement.execute("EXECUTE pay_stmt (1)"))
                        .isInstanceOf(dev.fencing.StaleFenceException.class);
            }
            try (Fence.Scope current = Fence.enter(6)) {
                statement.execute("EXECUTE pay_stmt (1)");
            }
        }
        assertThat(order(1)).isEqualTo("paid@6");
    }

    @Test
    void undiagnosableZeroRowFormsFailAsAWholeWhenTheyMeetANewerFence() throws Exception {
        List<String> forms = List.of(
                "WITH u AS (UPDATE orders SET status = 'cte' WHERE id = 1 RETURNING id) SELECT count(*) FROM u",
                "UPDATE orders SET status = 'a' WHERE id = 2; UPDATE orders SET status = 'b' WHERE id = 1",
                "INSERT INTO orders (id, status, customer_id) VALUES (1, 'up', 10) ON CONFLICT (id)"
                        + " DO UPDATE SET status = EXCLUDED.status WHERE orders.status = 'pending'");
        for (String form : forms) {
            assertThatThrownBy(() -> fenced(4, form), form).isInstanceOf(dev.fencing.StaleFenceException.class);
        }
        assertThat(order(1)).isEqualTo("pending@5");
        assertThat(order(2)).isEqualTo("pending@5");
        fenced(5, forms.get(2));
        assertThat(order(1)).isEqualTo("up@5");
    }

    @Test
    void textsThatTouchTheGuardAreRefused() throws Exception {
        for (String text : List.of("SELECT set_config('fencing.fence', '99', false)", "SET fencing.fence = '99'",
                "SET session_replication_role = replica", "SET \"fencing\".\"fence\" = '99'", "ALTER TABLE orders DISABLE TRIGGER fencing_guard",
                "DROP FUNCTION fencing_guard_row() CASCADE")) {
            assertThatThrownBy(() -> fenced(0, text), text).isInstanceOf(dev.fencing.UnfenceableStatementException.class);
        }
        DatabaseGuard.verify(raw(), config());
    }

    @Test
    void withTheGuardMissingProcedureCallsAreRefusedToo() throws Exception {
        sql("CREATE OR REPLACE PROCEDURE pay_proc(order_id BIGINT) LANGUAGE sql AS"
                + " 'UPDATE orders SET status = ''paid'' WHERE id = order_id'");
        DatabaseGuard.remove(raw(), config());
        assertThatThrownBy(() -> fenced(12, "CALL pay_proc(1)")).isInstanceOf(dev.fencing.FencingException.class)
                .hasMessageContaining("fencing.database-guard");
        assertThat(order(1)).isEqualTo("pending@5");
    }

    @Test
    void partitionsAndInheritanceChildrenAreGuardedToo() throws Exception {
        FencingConfig partitioned = FencingConfig.builder().tables(schema() + ".ledger", schema() + ".legacy")
                .databaseGuard(FencingConfig.Guard.REQUIRED).build();
        sql("CREATE TABLE ledger (id BIGINT, last_fence BIGINT NOT NULL DEFAULT 0) PARTITION BY RANGE (id)",
                "CREATE TABLE ledger_low PARTITION OF ledger FOR VALUES FROM (0) TO (100)",
                "CREATE TABLE ledger_high PARTITION OF ledger FOR VALUES FROM (100) TO (1000)",
                "CREATE TABLE legacy (id BIGINT, last_fence BIGINT NOT NULL DEFAULT 0)",
                "CREATE TABLE legacy_2020 () INHERITS (legacy)");
        try {
            DatabaseGuard.install(raw(), partitioned);
            DatabaseGuard.verify(raw(), partitioned);
            for (String write : List.of("INSERT INTO ledger (id) VALUES (5)", "INSERT INTO ledger_high (id) VALUES (500)",
                    "INSERT INTO legacy_2020 (id) VALUES (1)", "TRUNCATE ledger_low")) {
                SQLException refused = catchThrowableOfType(SQLException.class, () -> sql(write));
                assertThat(refused.getSQLState()).as(write).isEqualTo("ZF002");
            }
            assertThat(catchThrowableOfType(SQLException.class, () -> sql("DROP TRIGGER fencing_guard ON legacy_2020"))
                    .getSQLState()).isEqualTo("ZF004");
            sql("BEGIN", "SELECT set_config('fencing.migration', 'test: drop a child''s trigger', true)",
                    "DROP TRIGGER fencing_guard ON legacy_2020", "COMMIT");
            assertThat(catchThrowableOfType(dev.fencing.FencingException.class,
                    () -> DatabaseGuard.verify(raw(), partitioned)).getMessage()).contains("legacy_2020");
        } finally {
            DatabaseGuard.remove(raw(), partitioned);
            sql("DROP TABLE ledger", "DROP TABLE legacy CASCADE");
        }
    }

    // ---- PostgreSQL ends a failed transaction with a rollback (issue 27, class 2) ----------------------

    /** The ways an application ends a transaction in which a statement failed: each is a rollback on the server. */
    private static final List<String> ENDINGS = List.of("commit()", "setAutoCommit(true)", "COMMIT", "END");

    @Test
    void aFailedTransactionThatIsCommittedLeavesNoFenceBehind() throws Exception {
        for (String ending : ENDINGS) {
            createTables();
            try (com.zaxxer.hikari.HikariDataSource pool = new com.zaxxer.hikari.HikariDataSource(onePool());
                 FencingDataSource fenced = new FencingDataSource(pool, config());
                 Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
                try (Fence.Scope newer = Fence.enter(34)) {
                    assertThat(statement.executeUpdate("UPDATE orders SET status = 'held' WHERE id = 1")).isEqualTo(1);
                    statement.executeQuery("SELECT COUNT(*) FROM orders").close();
                }
                try (Fence.Scope stale = Fence.enter(33)) {
                    connection.setAutoCommit(false);
                    statement.executeQuery("SELECT COUNT(*) FROM customers").close();
                    assertThatThrownBy(() -> statement.executeQuery("SELECT 1 / 0").close()).isInstanceOf(SQLException.class);
                    switch (ending) {
                        case "commit()" -> connection.commit();
                        case "setAutoCommit(true)" -> connection.setAutoCommit(true);
                        default -> statement.execute(ending);
                    }
                    connection.setAutoCommit(true);
                    assertThatThrownBy(() -> statement.executeQuery("SELECT pay(1)").close()).as(ending)
                            .isInstanceOf(dev.fencing.StaleFenceException.class);
                }
                assertThatThrownBy(() -> statement.executeQuery("SELECT pay(1)").close()).as(ending)
                        .isInstanceOf(dev.fencing.MissingFenceException.class);
            }
            assertThat(order(1)).as(ending).isEqualTo("held@34");
        }
    }

    private com.zaxxer.hikari.HikariConfig onePool() {
        com.zaxxer.hikari.HikariConfig pool = new com.zaxxer.hikari.HikariConfig();
        pool.setDataSource(raw());
        pool.setMaximumPoolSize(1);
        return pool;
    }

    @Test
    void theDriverTellsACommitOfAFailedTransactionFromARealOne() throws Exception {
        try (FencingDataSource fenced = new FencingDataSource(raw(), config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
            TransactionState transaction = JdbcInternals.transaction(FencedConnection.fencedBehind(connection));
            java.util.List<TransactionState.End> ends = new java.util.ArrayList<>();
            transaction.addListener(ends::add);
            connection.setAutoCommit(false);
            statement.executeQuery("SELECT 1").close();
            connection.commit();
            statement.executeQuery("SELECT 1").close();
            assertThatThrownBy(() -> statement.executeQuery("SELECT 1 / 0").close()).isInstanceOf(SQLException.class);
            connection.commit();
            assertThat(ends).containsExactly(TransactionState.End.COMMITTED, TransactionState.End.ROLLED_BACK);
            assertThat(transaction.inTransaction()).isTrue();
            connection.setAutoCommit(true);
            assertThat(transaction.inTransaction()).isFalse();
        }
    }

    // ---- spliced writes carry their fence (zero extra round trips) --------------------------------------

    /**
     * The server's order of evaluation: a spliced write of every form reaches the trigger with its own
     * fence while the session holds none (and a raw script's session-level mark does not cover it),
     * with one statement sent and nothing of it left after its auto-commit transaction.
     */
    @Test
    void splicedWritesCarryTheirFenceToTheTriggerInEveryForm() throws Exception {
        DatabaseGuard.migrate(raw(), "rows for the prepared forms", connection -> {
            try (Statement statement = connection.createStatement()) {
                statement.executeUpdate("INSERT INTO orders (id, status, customer_id) VALUES (6, 'pending', 10), (7, 'pending', 20)");
            }
        });
        List<String> writes = List.of(
                "UPDATE orders SET status = 'u' WHERE id = %1$d",
                "UPDATE orders o SET status = 'uf' FROM customers c WHERE c.id = o.customer_id AND o.id = %2$d",
                "DELETE FROM orders WHERE id = %2$d",
                "INSERT INTO orders (id, status, customer_id) VALUES (%3$d, 'iv', 10), (%4$d, 'iv', 10)",
                "INSERT INTO orders (id, status, customer_id) SELECT %5$d, 'is', 10",
                "INSERT INTO orders (id, status, customer_id) VALUES (%3$d, 'dup', 10) ON CONFLICT (id) DO UPDATE SET status = 'oc'",
                "UPDATE orders SET status = 'u2' WHERE id = %4$d AND status = 'iv'",
                "DELETE FROM orders WHERE id = %5$d");
        java.util.concurrent.atomic.AtomicInteger sent = new java.util.concurrent.atomic.AtomicInteger();
        try (FencingDataSource fenced = new FencingDataSource(StatementCounter.over(raw(), sent), config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
            Connection same = RawSession.behind(connection);
            try (Statement raw = same.createStatement()) {
                raw.execute(setSessionMark("left by a raw script"));
            }
            try (Fence.Scope scope = Fence.enter(50)) {
                statement.executeQuery("SELECT 1").close(); // the hold's first statement clears the raw script's mark
                for (String write : writes) {
                    int before = sent.get();
                    statement.execute(String.format(write, 1, 2, 3, 4, 5));
                    assertThat(sent.get() - before).as("statements sent for " + write).isEqualTo(1);
                    try (PreparedStatement prepared = connection.prepareStatement(String.format(write, 6, 7, 8, 9, 10))) {
                        before = sent.get();
                        prepared.execute();
                        assertThat(sent.get() - before).as("statements sent for prepared " + write).isEqualTo(1);
                    }
                    try (Statement probe = same.createStatement(); ResultSet left = probe.executeQuery(
                            "SELECT current_setting('fencing.fence', true), current_setting('fencing.migration', true)")) {
                        left.next();
                        assertThat(left.getString(1)).as("left after " + write).isNullOrEmpty();
                        assertThat(left.getString(2)).as("left after " + write).isNullOrEmpty();
                    }
                }
            }
        }
        try (Connection connection = raw().getConnection(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT id, status, last_fence FROM orders ORDER BY id")) {
            StringBuilder seen = new StringBuilder();
            while (rows.next()) {
                seen.append(rows.getLong(1)).append(':').append(rows.getString(2)).append('@').append(rows.getLong(3)).append(' ');
            }
            assertThat(seen.toString().trim()).isEqualTo("1:u@50 3:oc@50 4:u2@50 6:u@50 8:oc@50 9:u2@50");
        }
    }

    /**
     * A procedure that commits by itself cannot run in the short transaction that carries the fence
     * in auto-commit: the server refuses it, the driver says why, and nothing of it stays.
     */
    @Test
    void aProcedureThatCommitsItselfIsRefusedUnderAFenceInAutoCommit() throws Exception {
        sql("CREATE OR REPLACE PROCEDURE pay_and_commit(order_id BIGINT) LANGUAGE plpgsql AS"
                + " $$ BEGIN UPDATE orders SET status = 'paid' WHERE id = order_id; COMMIT; END $$");
        try (FencingDataSource fenced = new FencingDataSource(raw(), config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
            try (Fence.Scope scope = Fence.enter(12)) {
                dev.fencing.FencingException refused = catchThrowableOfType(dev.fencing.FencingException.class,
                        () -> statement.execute("CALL pay_and_commit(1)"));
                assertThat((Throwable) refused).hasMessageContaining("commits or rolls back");
                assertThat(connection.getAutoCommit()).isTrue();
            }
            assertThatThrownBy(() -> statement.execute("CALL pay_and_commit(1)"))
                    .isInstanceOf(dev.fencing.MissingFenceException.class);
            try (Fence.Scope scope = Fence.enter(12)) {
                connection.setAutoCommit(false);
                assertThatThrownBy(() -> statement.execute("CALL pay_and_commit(1)")).isInstanceOf(SQLException.class);
                connection.rollback();
            }
        }
        assertThat(order(1)).isEqualTo("pending@5");
    }

    /**
     * The event triggers' function is compiled in the session that runs the DDL: it must read alike
     * under standard_conforming_strings=off (no backslash in its text), or every DDL there fails.
     */
    @Test
    void ddlRunsInASessionWithoutStandardConformingStrings() throws Exception {
        sql("SET standard_conforming_strings = off", "CREATE TABLE scs_probe (id INT)", "DROP TABLE scs_probe");
    }
}
