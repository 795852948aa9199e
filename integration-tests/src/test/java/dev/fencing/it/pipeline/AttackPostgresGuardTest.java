package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.jdbc.DatabaseGuard;
import dev.fencing.jdbc.FencingDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Outside review (attack branch): writes that land in a fenced row although they carry a stale
 * fence or none, PostgreSQL with the guard required. Each test asserts the SAFE outcome. The
 * review's findings (names starting formerBypass or formerOverRefusal) failed on the first cut of
 * the statement-carried guard and are kept as regressions; HELD ones held from the start.
 */
class AttackPostgresGuardTest {

    private static OwnPostgresDatabase own;
    private static DataSource raw;

    @BeforeAll
    static void createDatabase() throws SQLException {
        own = OwnPostgresDatabase.create();
        raw = own.schema("atk");
    }

    @AfterAll
    static void dropDatabase() throws SQLException {
        if (own != null) {
            own.close();
        }
    }

    static FencingConfig config() {
        return FencingConfig.builder().tables("atk.a", "atk.b").databaseGuard(FencingConfig.Guard.REQUIRED).build();
    }

    @BeforeEach
    void tables() throws SQLException {
        DatabaseGuard.remove(raw, config());
        sql("DROP TABLE IF EXISTS a", "DROP TABLE IF EXISTS b",
                "CREATE TABLE a (id BIGINT PRIMARY KEY, v TEXT, last_fence BIGINT NOT NULL DEFAULT 0)",
                "CREATE TABLE b (id BIGINT PRIMARY KEY, v TEXT, last_fence BIGINT NOT NULL DEFAULT 0)",
                "INSERT INTO a VALUES (1, 'orig', 7), (2, 'orig', 7)",
                "INSERT INTO b VALUES (1, 'orig', 7), (2, 'orig', 7)",
                "CREATE OR REPLACE FUNCTION bump_b(i BIGINT) RETURNS INT LANGUAGE plpgsql AS"
                        + " $$ BEGIN UPDATE b SET v = 'bumped' WHERE id = i; RETURN 1; END $$",
                "CREATE OR REPLACE FUNCTION touch_b() RETURNS trigger LANGUAGE plpgsql AS"
                        + " $$ BEGIN UPDATE b SET v = 'touched' WHERE id = 2; RETURN NULL; END $$",
                "CREATE TRIGGER a_stmt BEFORE DELETE ON a FOR EACH STATEMENT EXECUTE FUNCTION touch_b()");
        DatabaseGuard.install(raw, config());
    }

    static void sql(String... statements) throws SQLException {
        try (Connection connection = raw.getConnection(); Statement statement = connection.createStatement()) {
            for (String text : statements) {
                statement.execute(text);
            }
        }
    }

    static String row(String table, long id) throws SQLException {
        try (Connection connection = raw.getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT v, last_fence FROM " + table + " WHERE id = ?")) {
            select.setLong(1, id);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? rows.getString(1) + "@" + rows.getLong(2) : null;
            }
        }
    }

    static Throwable attempt(SqlRun run) {
        try {
            run.run();
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    interface SqlRun {
        void run() throws Exception;
    }

    /**
     * BYPASS candidate: a Statement batch whose first entry (a spliced UPDATE, added under fence 10)
     * carries fence 10 in its text, and whose second entry (a MERGE the guard checks, added and
     * executed under stale fence 5) runs after it in the same short transaction: the MERGE meets
     * b.1 (fence 7) and must be refused; it lands if it inherits the first entry's 10.
     */
    @Test
    void formerBypass_batchEntryUnderStaleFenceInheritsTheCarriedFenceOfTheEntryBefore() throws Exception {
        Throwable failure;
        try (FencingDataSource fenced = new FencingDataSource(raw, config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
            try (Fence.Scope newer = Fence.enter(10)) {
                statement.addBatch("UPDATE a SET v = 'by10' WHERE id = 1");
            }
            try (Fence.Scope stale = Fence.enter(5)) {
                statement.addBatch("MERGE INTO b USING (VALUES (1)) s (id) ON b.id = s.id"
                        + " WHEN MATCHED THEN UPDATE SET v = 'stale5'");
                failure = attempt(statement::executeBatch);
            }
        }
        assertThat(row("b", 1)).as("b.1 (fence 7) written by an entry added and executed under fence 5").isEqualTo("orig@7");
    }

    /** Same with a DO block as the guard-checked entry. */
    @Test
    void formerBypass_batchDoEntryUnderStaleFenceInheritsTheCarriedFence() throws Exception {
        Throwable failure;
        try (FencingDataSource fenced = new FencingDataSource(raw, config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
            try (Fence.Scope newer = Fence.enter(10)) {
                statement.addBatch("UPDATE a SET v = 'by10' WHERE id = 1");
            }
            try (Fence.Scope stale = Fence.enter(5)) {
                statement.addBatch("SELECT bump_b(1)");
                failure = attempt(statement::executeBatch);
            }
        }
        assertThat(row("b", 1)).isEqualTo("orig@7");
    }

    /**
     * OVERREFUSAL candidate: a spliced UPDATE under a current fence whose FROM calls a function that
     * writes another fenced row: the function runs before the text's InitPlan hands the fence over.
     */
    @Test
    void formerOverRefusal_functionInFromOfSplicedWriteSeesNoFence() throws Exception {
        Throwable failure;
        try (FencingDataSource fenced = new FencingDataSource(raw, config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
             Fence.Scope current = Fence.enter(10)) {
            failure = attempt(() -> statement.executeUpdate(
                    "UPDATE a SET v = 'from' FROM (SELECT bump_b(1) AS x) s WHERE a.id = 1 AND s.x = 1"));
        }
        assertThat(failure).isNull();
        assertThat(row("b", 1)).isEqualTo("bumped@10");
    }

    /** OVERREFUSAL candidate: a statement-level BEFORE trigger on a fenced table writing another fenced table. */
    @Test
    void formerOverRefusal_statementTriggerOfSplicedWriteSeesNoFence() throws Exception {
        Throwable failure;
        try (FencingDataSource fenced = new FencingDataSource(raw, config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
             Fence.Scope current = Fence.enter(10)) {
            failure = attempt(() -> statement.executeUpdate("DELETE FROM a WHERE id = 2"));
        }
        assertThat(failure).isNull();
        assertThat(row("b", 2)).isEqualTo("touched@10");
    }

    /**
     * BYPASS candidate: a raw script left the old session-level migration mark on a pooled
     * connection; a fenced, STALE (5 < 7) spliced write on it calls a function from its FROM that
     * writes b.1 (fence 7). The docs: "The driver never lets a mark it did not set cover a
     * statement it sends".
     */
    @Test
    void formerBypass_sessionLevelMarkCoversWhatASplicedWriteEvaluatesBeforeItsInitPlan() throws Exception {
        try (Connection physical = raw.getConnection()) {
            try (Statement s = physical.createStatement()) {
                s.execute("SELECT set_config('fencing.migration', 'old header', false)");
            }
            Throwable failure;
            try (FencingDataSource fenced = new FencingDataSource(new SingleConnection(physical), config());
                 Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
                 Fence.Scope stale = Fence.enter(5)) {
                failure = attempt(() -> statement.executeUpdate(
                        "UPDATE a SET v = 'from' FROM (SELECT bump_b(1) AS x) s WHERE a.id = 1 AND s.x = 1"));
            }
        }
        assertThat(row("b", 1)).as("b.1 (fence 7) written under stale fence 5").isEqualTo("orig@7");
    }

    /** Same, with the statement-level trigger (DELETE of a.2 under stale 5 touches b.2, fence 7). */
    @Test
    void formerBypass_sessionLevelMarkCoversAStatementTriggerOfASplicedWrite() throws Exception {
        try (Connection physical = raw.getConnection()) {
            try (Statement s = physical.createStatement()) {
                s.execute("SELECT set_config('fencing.migration', 'old header', false)");
            }
            Throwable failure;
            try (FencingDataSource fenced = new FencingDataSource(new SingleConnection(physical), config());
                 Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
                 Fence.Scope stale = Fence.enter(5)) {
                failure = attempt(() -> statement.executeUpdate("DELETE FROM a WHERE id = 2"));
            }
        }
        assertThat(row("b", 2)).isEqualTo("orig@7");
    }

    /**
     * BYPASS candidate: a pool that neither rolls back nor closes (SingleConnection): the fenced
     * connection closes inside a transaction that carries fence 10 and a savepoint taken after it;
     * the driver sets the values to empty in that transaction; the next user goes on in the
     * transaction, rolls back to the savepoint, and writes raw.
     */
    @Test
    void formerBypass_rollbackToSavepointUndoesTheClearAtClose() throws Exception {
        try (Connection physical = raw.getConnection()) {
            try (FencingDataSource fenced = new FencingDataSource(new SingleConnection(physical), config());
                 Connection connection = fenced.getConnection()) {
                connection.setAutoCommit(false);
                try (Fence.Scope current = Fence.enter(10); Statement statement = connection.createStatement()) {
                    statement.executeQuery("SELECT 1").close();
                    statement.execute("SAVEPOINT app_sp");
                }
            }
            Throwable failure;
            try (Statement s = physical.createStatement()) {
                attempt(() -> s.execute("ROLLBACK TO SAVEPOINT app_sp"));
                failure = attempt(() -> s.executeUpdate("UPDATE a SET v = 'raw' WHERE id = 1"));
                if (failure == null) {
                    physical.commit();
                } else {
                    physical.rollback();
                }
                physical.setAutoCommit(true);
            }
        }
        assertThat(row("a", 1)).isEqualTo("orig@7");
    }

    /** Same with a JDBC savepoint taken by the fenced code (pgjdbc names it JDBC_SAVEPOINT_n). */
    @Test
    void formerBypass_rollbackToJdbcSavepointUndoesTheClearAtClose() throws Exception {
        try (Connection physical = raw.getConnection()) {
            String name;
            try (FencingDataSource fenced = new FencingDataSource(new SingleConnection(physical), config());
                 Connection connection = fenced.getConnection()) {
                connection.setAutoCommit(false);
                try (Fence.Scope current = Fence.enter(10); Statement statement = connection.createStatement()) {
                    statement.executeQuery("SELECT 1").close();
                    java.sql.Savepoint sp = connection.setSavepoint("nested");
                    name = sp.getSavepointName();
                }
            }
            Throwable failure;
            try (Statement s = physical.createStatement()) {
                attempt(() -> s.execute("ROLLBACK TO SAVEPOINT \"" + name + "\""));
                failure = attempt(() -> s.executeUpdate("UPDATE a SET v = 'raw' WHERE id = 1"));
                if (failure == null) {
                    physical.commit();
                } else {
                    physical.rollback();
                }
                physical.setAutoCommit(true);
            }
        }
        assertThat(row("a", 1)).isEqualTo("orig@7");
    }

    /**
     * OVERREFUSAL candidate: in a transaction, a spliced UPDATE that matches no row never evaluates
     * its InitPlan, yet the driver notes its fence as set; a function called next under the same
     * fence then sees none.
     */
    @Test
    void formerOverRefusal_zeroRowSplicedWriteLeavesTheDriverBelievingItsFenceIsSet() throws Exception {
        Throwable failure;
        try (FencingDataSource fenced = new FencingDataSource(raw, config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
             Fence.Scope current = Fence.enter(10)) {
            connection.setAutoCommit(false);
            statement.executeUpdate("UPDATE a SET v = 'none' WHERE id = 999");
            failure = attempt(() -> statement.executeQuery("SELECT bump_b(1)").close());
            if (failure == null) {
                connection.commit();
            } else {
                connection.rollback();
            }
        }
        assertThat(failure).isNull();
        assertThat(row("b", 1)).isEqualTo("bumped@10");
    }

    /** HELD expected: one transaction, a spliced write under 10, then a guard-checked call under stale 5. */
    @Test
    void HELD_newerThenOlderFenceInOneTransaction() throws Exception {
        Throwable failure;
        try (FencingDataSource fenced = new FencingDataSource(raw, config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
            connection.setAutoCommit(false);
            try (Fence.Scope newer = Fence.enter(10)) {
                statement.executeUpdate("UPDATE a SET v = 'by10' WHERE id = 1");
            }
            try (Fence.Scope stale = Fence.enter(5)) {
                failure = attempt(() -> statement.executeQuery("SELECT bump_b(2)").close());
                Throwable second = attempt(() -> statement.executeUpdate("DELETE FROM a WHERE id = 2"));
            }
            connection.commit();
        }
        assertThat(failure).isNotNull();
        assertThat(row("b", 2)).isEqualTo("orig@7");
    }

    /** BYPASS candidate: batch, the second entry's statement-level trigger runs before its own InitPlan, under the first entry's 10. */
    @Test
    void formerBypass_batchStatementTriggerOfStaleEntrySeesTheCarriedFenceOfTheEntryBefore() throws Exception {
        Throwable failure;
        try (FencingDataSource fenced = new FencingDataSource(raw, config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
            try (Fence.Scope newer = Fence.enter(10)) {
                statement.addBatch("UPDATE a SET v = 'by10' WHERE id = 1");
            }
            try (Fence.Scope stale = Fence.enter(5)) {
                statement.addBatch("DELETE FROM a WHERE id = 2");
                failure = attempt(statement::executeBatch);
            }
        }
        assertThat(row("b", 2)).isEqualTo("orig@7");
    }
}
