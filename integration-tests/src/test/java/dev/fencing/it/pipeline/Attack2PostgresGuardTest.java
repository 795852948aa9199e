package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.jdbc.DatabaseGuard;
import dev.fencing.jdbc.EpochTable;
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
 * Second outside review (attack2): code that runs before a spliced write's carried subquery without
 * appearing in its text (column DEFAULTs, domain CHECKs), and the carried form's missing lock.
 * Each test asserts the SAFE outcome: a failing test is a finding.
 */
class Attack2PostgresGuardTest {

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
        return FencingConfig.builder().tables("atk.a", "atk.b", "atk.c", "atk.dd")
                .tableMode("atk.e", FencingConfig.Mode.EPOCH)
                .databaseGuard(FencingConfig.Guard.REQUIRED).build();
    }

    @BeforeEach
    void tables() throws SQLException {
        DatabaseGuard.remove(raw, config());
        sql("DROP TABLE IF EXISTS e", "DROP TABLE IF EXISTS a", "DROP TABLE IF EXISTS b", "DROP TABLE IF EXISTS c",
                "DROP TABLE IF EXISTS dd", "DROP DOMAIN IF EXISTS dv", "DROP TABLE IF EXISTS fencing_epochs",
                "CREATE TABLE a (id BIGINT PRIMARY KEY, v TEXT, last_fence BIGINT NOT NULL DEFAULT 0)",
                "CREATE TABLE b (id BIGINT PRIMARY KEY, v TEXT, last_fence BIGINT NOT NULL DEFAULT 0)",
                "INSERT INTO a VALUES (1, 'orig', 7), (2, 'orig', 7), (3, 'orig', 7)",
                "INSERT INTO b VALUES (1, 'orig', 7), (2, 'orig', 7)",
                "CREATE OR REPLACE FUNCTION bump_b(i BIGINT) RETURNS INT LANGUAGE plpgsql AS"
                        + " $$ BEGIN UPDATE b SET v = 'bumped' WHERE id = i; RETURN 1; END $$",
                "CREATE OR REPLACE FUNCTION bump_b_ok(t TEXT) RETURNS BOOLEAN LANGUAGE plpgsql AS"
                        + " $$ BEGIN UPDATE b SET v = 'checked' WHERE id = 1; RETURN true; END $$",
                // a column DEFAULT that writes another fenced table, before the fence column
                "CREATE TABLE c (id BIGINT PRIMARY KEY, d INT DEFAULT bump_b(1), v TEXT,"
                        + " last_fence BIGINT NOT NULL DEFAULT 0)",
                // a domain CHECK that writes another fenced table
                "CREATE DOMAIN dv AS TEXT CHECK (bump_b_ok(VALUE))",
                "CREATE TABLE dd (id BIGINT PRIMARY KEY, v dv, last_fence BIGINT NOT NULL DEFAULT 0)",
                // an epoch-mode child of row-mode a, deleted by cascade
                "CREATE TABLE e (id BIGINT PRIMARY KEY, a_id BIGINT REFERENCES a (id) ON DELETE CASCADE, v TEXT)",
                "INSERT INTO e VALUES (3, 3, 'child')",
                // a user function named like an allowed built-in, called schema-qualified
                "CREATE OR REPLACE FUNCTION atk.upper(t TEXT) RETURNS TEXT LANGUAGE plpgsql AS"
                        + " $$ BEGIN UPDATE b SET v = 'upper' WHERE id = 1; RETURN t; END $$",
                // a user operator spelled like a built-in one (text + text has no built-in)
                "CREATE OR REPLACE FUNCTION plus_b(x TEXT, y TEXT) RETURNS TEXT LANGUAGE plpgsql AS"
                        + " $$ BEGIN UPDATE b SET v = 'plus' WHERE id = 1; RETURN x || y; END $$",
                "DROP OPERATOR IF EXISTS + (TEXT, TEXT)",
                "CREATE OPERATOR + (LEFTARG = TEXT, RIGHTARG = TEXT, FUNCTION = plus_b)");
        EpochTable.createTable(raw, config());
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

    static String child(long id) throws SQLException {
        try (Connection connection = raw.getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT v FROM e WHERE id = ?")) {
            select.setLong(1, id);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? rows.getString(1) : null;
            }
        }
    }

    static Throwable attempt(AttackPostgresGuardTest.SqlRun run) {
        return AttackPostgresGuardTest.attempt(run);
    }

    /**
     * BYPASS candidate: a batch of two spliced, carried entries, the first added under 10, the second
     * under stale 5; the second is an INSERT into c whose omitted column d has DEFAULT bump_b(1). In
     * pgjdbc's auto-commit batch both run in one implicit transaction, and the DEFAULT is evaluated
     * before entry 2's InitPlan: bump_b sees entry 1's 10 and writes b.1 (fence 7).
     */
    @Test
    void bypass_batchDefaultOfStaleEntrySeesTheCarriedFenceOfTheEntryBefore() throws Exception {
        Throwable failure;
        try (FencingDataSource fenced = new FencingDataSource(raw, config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
            try (Fence.Scope newer = Fence.enter(10)) {
                statement.addBatch("UPDATE a SET v = 'by10' WHERE id = 1");
            }
            try (Fence.Scope stale = Fence.enter(5)) {
                statement.addBatch("INSERT INTO c (id, v) VALUES (1, 'stale5')");
                failure = attempt(statement::executeBatch);
            }
        }
        assertThat(row("b", 1)).as("b.1 (fence 7) written by a DEFAULT of an entry added under 5 (" + failure + ")")
                .isEqualTo("orig@7");
    }

    /** Same with the domain CHECK (dd.v) in place of the DEFAULT. */
    @Test
    void bypass_batchDomainCheckOfStaleEntrySeesTheCarriedFenceOfTheEntryBefore() throws Exception {
        Throwable failure;
        try (FencingDataSource fenced = new FencingDataSource(raw, config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
            try (Fence.Scope newer = Fence.enter(10)) {
                statement.addBatch("UPDATE a SET v = 'by10' WHERE id = 1");
            }
            try (Fence.Scope stale = Fence.enter(5)) {
                statement.addBatch("INSERT INTO dd (id, v) VALUES (1, 'stale5')");
                failure = attempt(statement::executeBatch);
            }
        }
        assertThat(row("b", 1)).as("b.1 (fence 7) written by a domain CHECK of an entry added under 5 (" + failure + ")")
                .isEqualTo("orig@7");
    }

    /**
     * BYPASS candidate: a raw script left a session-level fence (99) on a pooled connection; the
     * fenced hold's FIRST statement is a carried INSERT under stale 5 in auto-commit (the driver
     * clears session values only before a non-carried statement); its DEFAULT runs before the InitPlan
     * and sees 99.
     */
    @Test
    void bypass_sessionLevelFenceCoversADefaultOfTheHoldsFirstCarriedWrite() throws Exception {
        Throwable failure;
        try (Connection physical = raw.getConnection()) {
            try (Statement s = physical.createStatement()) {
                s.execute("SELECT set_config('fencing.fence', '99', false)");
            }
            try (FencingDataSource fenced = new FencingDataSource(new SingleConnection(physical), config());
                 Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
                 Fence.Scope stale = Fence.enter(5)) {
                failure = attempt(() -> statement.executeUpdate("INSERT INTO c (id, v) VALUES (2, 'stale5')"));
            }
        }
        assertThat(row("b", 1)).as("b.1 (fence 7) written under stale 5 (" + failure + ")").isEqualTo("orig@7");
    }

    /** Same with the old session-level migration mark and the domain CHECK. */
    @Test
    void bypass_sessionLevelMarkCoversADomainCheckOfTheHoldsFirstCarriedWrite() throws Exception {
        Throwable failure;
        try (Connection physical = raw.getConnection()) {
            try (Statement s = physical.createStatement()) {
                s.execute("SELECT set_config('fencing.migration', 'old header', false)");
            }
            try (FencingDataSource fenced = new FencingDataSource(new SingleConnection(physical), config());
                 Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
                 Fence.Scope stale = Fence.enter(5)) {
                failure = attempt(() -> statement.executeUpdate("INSERT INTO dd (id, v) VALUES (2, 'stale5')"));
            }
        }
        assertThat(row("b", 1)).as("b.1 (fence 7) written under stale 5 (" + failure + ")").isEqualTo("orig@7");
    }

    /**
     * Known over-refusal (fails closed): a current holder (10 > 7) inserts into c in auto-commit; the DEFAULT's
     * write to b.1 runs before the InitPlan and sees no fence.
     */
    @Test
    void knownOverRefusal_defaultOfCarriedInsertSeesNoFence() throws Exception {
        Throwable failure;
        try (FencingDataSource fenced = new FencingDataSource(raw, config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
             Fence.Scope current = Fence.enter(10)) {
            failure = attempt(() -> statement.executeUpdate("INSERT INTO c (id, v) VALUES (3, 'cur')"));
        }
        // documented (guard.md): code a carrying write runs before its own fence sees none; refused, never let through
        assertThat(failure).isInstanceOf(dev.fencing.MissingFenceException.class);
        assertThat(row("b", 1)).isNotEqualTo("bumped@10");
    }

    /**
     * BYPASS candidate (epoch): the carried subquery sets fencing.fence but not fencing.lock, and the
     * driver trusts it when the transaction already holds the same fence NUMBER under another lock.
     * Tx: under (A,10) a read sets fence 10 / lock A; under (B,10), B's epoch now 12 (a new holder
     * claimed it), a spliced DELETE of row-mode a.3 (fence 7) cascades into epoch-mode e: e's trigger
     * checks lock A's epoch (10) instead of B's (12).
     */
    @Test
    void bypass_carriedWriteKeepsTheLockOfAnotherTenureWithTheSameFenceNumber() throws Exception {
        Throwable failure;
        try (FencingDataSource fenced = new FencingDataSource(raw, config())) {
            EpochTable.claim(fenced, "A", 10);
            EpochTable.claim(fenced, "B", 10);
            sql("UPDATE fencing_epochs SET fence = 12 WHERE lock_name = 'B'");
            try (Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
                connection.setAutoCommit(false);
                try (Fence.Scope a = Fence.enter("A", 10)) {
                    statement.executeQuery("SELECT 1").close();
                }
                try (Fence.Scope b = Fence.enter("B", 10)) {
                    failure = attempt(() -> statement.executeUpdate("DELETE FROM a WHERE id = 3"));
                }
                if (failure == null) {
                    connection.commit();
                } else {
                    connection.rollback();
                }
            }
        }
        assertThat(child(3)).as("e.3 deleted by cascade under lock B's stale fence 10 (epoch 12) (" + failure + ")")
                .isEqualTo("child");
    }

    /** Known over-refusal (fails closed; epoch): the same cascade by B's current holder in auto-commit sees no lock. */
    @Test
    void knownOverRefusal_carriedWriteCascadingIntoAnEpochTableSeesNoLock() throws Exception {
        Throwable failure;
        try (FencingDataSource fenced = new FencingDataSource(raw, config())) {
            EpochTable.claim(fenced, "B", 10);
            try (Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
                 Fence.Scope b = Fence.enter("B", 10)) {
                failure = attempt(() -> statement.executeUpdate("DELETE FROM a WHERE id = 3"));
            }
        }
        // documented (guard.md): a carried fence names no lock; an epoch table it cascades into refuses
        assertThat(failure).isInstanceOf(dev.fencing.MissingFenceException.class);
        assertThat(child(3)).isEqualTo("child");
    }

    private static String batchUnderStaleSecond(String second) throws Exception {
        Throwable failure;
        try (FencingDataSource fenced = new FencingDataSource(raw, config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
            try (Fence.Scope newer = Fence.enter(10)) {
                statement.addBatch("UPDATE a SET v = 'by10' WHERE id = 1");
            }
            try (Fence.Scope stale = Fence.enter(5)) {
                statement.addBatch(second);
                failure = attempt(statement::executeBatch);
            }
        }
        System.err.println("ATK2 " + second + " -> " + failure);
        return String.valueOf(failure);
    }

    /** BYPASS candidate: runsCode allows "upper(": a schema-qualified user function atk.upper in FROM. */
    @Test
    void bypass_batchQualifiedUserFunctionNamedLikeABuiltinRunsBeforeTheInitPlan() throws Exception {
        String failure = batchUnderStaleSecond(
                "UPDATE a SET v = 'f' FROM (SELECT atk.upper('q') AS x) s WHERE a.id = 2 AND s.x = 'q'");
        assertThat(row("b", 1)).as(failure).isEqualTo("orig@7");
    }

    /** BYPASS candidate: runsCode treats "+" as built-in; here it is a user operator (text + text). */
    @Test
    void bypass_batchUserOperatorSpelledPlusRunsBeforeTheInitPlan() throws Exception {
        String failure = batchUnderStaleSecond(
                "UPDATE a SET v = 'f' FROM (SELECT 'p'::text + 'q'::text AS x) s WHERE a.id = 2 AND s.x = 'pq'");
        assertThat(row("b", 1)).as(failure).isEqualTo("orig@7");
    }

    private static String firstOfHoldOverSessionFence(String text) throws Exception {
        Throwable failure;
        try (Connection physical = raw.getConnection()) {
            try (Statement s = physical.createStatement()) {
                s.execute("SELECT set_config('fencing.fence', '99', false)");
            }
            try (FencingDataSource fenced = new FencingDataSource(new SingleConnection(physical), config());
                 Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
                 Fence.Scope stale = Fence.enter(5)) {
                failure = attempt(() -> statement.executeUpdate(text));
            }
        }
        System.err.println("ATK2 " + text + " -> " + failure);
        return String.valueOf(failure);
    }

    /** BYPASS candidate: schema-qualified atk.upper (allowed as "upper(") as the hold's first, carried write. */
    @Test
    void bypass_sessionFenceCoversQualifiedUserFunctionNamedLikeABuiltin() throws Exception {
        String failure = firstOfHoldOverSessionFence(
                "UPDATE a SET v = 'f' FROM (SELECT atk.upper('q') AS x) s WHERE a.id = 2 AND s.x = 'q'");
        assertThat(row("b", 1)).as(failure).isEqualTo("orig@7");
    }

    /** BYPASS candidate: user operator text + text as the hold's first, carried write. */
    @Test
    void bypass_sessionFenceCoversUserOperatorSpelledPlus() throws Exception {
        String failure = firstOfHoldOverSessionFence(
                "UPDATE a SET v = 'f' FROM (SELECT 'p'::text + 'q'::text AS x) s WHERE a.id = 2 AND s.x = 'pq'");
        assertThat(row("b", 1)).as(failure).isEqualTo("orig@7");
    }

    /** BYPASS candidate: user operator in the WHERE, UPDATE .. WHERE v + 'q' = 'origq'. */
    @Test
    void bypass_sessionFenceCoversUserOperatorInWhere() throws Exception {
        String failure = firstOfHoldOverSessionFence("UPDATE a SET v = 'w' WHERE id = 2 AND v + 'q' = 'origq'");
        assertThat(row("b", 1)).as(failure).isEqualTo("orig@7");
    }

    /**
     * BYPASS candidate: the guard's reading of which tables run code first (BEFORE statement
     * triggers) is cached for a minute; a migration adds one to a after the data source's check.
     * Batch: entry 1 under 10, entry 2 a DELETE of a.2 under stale 5: the new trigger writes b.2
     * (fence 7) before entry 2's InitPlan, under entry 1's 10.
     */
    @Test
    void bypass_statementTriggerAddedAfterTheGuardCheckIsNotSeenForAMinute() throws Exception {
        Throwable failure;
        try (FencingDataSource fenced = new FencingDataSource(raw, config())) {
            try (Connection warm = fenced.getConnection(); Statement statement = warm.createStatement()) {
                statement.executeQuery("SELECT 1").close();
            }
            try (Connection migration = raw.getConnection(); Statement s = migration.createStatement()) {
                migration.setAutoCommit(false);
                s.execute("SELECT set_config('fencing.migration', 'add a trigger', true)");
                s.execute("CREATE OR REPLACE FUNCTION touch_b() RETURNS trigger LANGUAGE plpgsql AS"
                        + " $$ BEGIN UPDATE b SET v = 'touched' WHERE id = 2; RETURN NULL; END $$");
                s.execute("CREATE TRIGGER a_stmt BEFORE DELETE ON a FOR EACH STATEMENT EXECUTE FUNCTION touch_b()");
                migration.commit();
            }
            try (Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
                try (Fence.Scope newer = Fence.enter(10)) {
                    statement.addBatch("UPDATE a SET v = 'by10' WHERE id = 1");
                }
                try (Fence.Scope stale = Fence.enter(5)) {
                    statement.addBatch("DELETE FROM a WHERE id = 2");
                    failure = attempt(statement::executeBatch);
                }
            }
        } finally {
            sql("DROP TRIGGER IF EXISTS a_stmt ON a");
        }
        assertThat(row("b", 2)).as(String.valueOf(failure)).isEqualTo("orig@7");
    }

    /**
     * BYPASS candidate: the physical connection is handed over inside a transaction whose
     * transaction-local fence (99) a raw user set; the new hold assumes no transaction-local values,
     * so its carried INSERT under stale 5 lets its DEFAULT run under 99.
     */
    @Test
    void bypass_holdStartingInsideAnOpenTransactionTrustsItsValues() throws Exception {
        Throwable failure;
        try (Connection physical = raw.getConnection()) {
            physical.setAutoCommit(false);
            try (Statement s = physical.createStatement()) {
                s.execute("SELECT set_config('fencing.fence', '99', true)");
            }
            try (FencingDataSource fenced = new FencingDataSource(new SingleConnection(physical), config());
                 Connection connection = fenced.getConnection(); Statement statement = connection.createStatement();
                 Fence.Scope stale = Fence.enter(5)) {
                failure = attempt(() -> {
                    statement.executeUpdate("INSERT INTO c (id, v) VALUES (4, 'stale5')");
                    connection.commit();
                });
            }
            if (!physical.getAutoCommit()) {
                physical.commit();
            }
        }
        assertThat(row("b", 1)).as(String.valueOf(failure)).isEqualTo("orig@7");
    }

    /**
     * Behind a transaction-mode pooler another client may leave a session-level migration mark
     * between two statements of a hold (simulated on the one physical connection). The driver clears
     * it before a no-fence statement that "may run code"; runsCode misses atk.upper / a user "+".
     */
    private static String noFenceReadAfterForeignMark(String read) throws Exception {
        Throwable failure;
        try (Connection physical = raw.getConnection();
             FencingDataSource fenced = new FencingDataSource(new SingleConnection(physical), config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
            statement.executeQuery("SELECT 1").close();
            try (Statement other = physical.createStatement()) {
                other.execute("SELECT set_config('fencing.migration', 'another client', false)");
            }
            failure = attempt(() -> statement.executeQuery(read).close());
            try (Statement other = physical.createStatement()) {
                other.execute("SELECT set_config('fencing.migration', '', false)");
            }
        }
        return String.valueOf(failure);
    }

    @Test
    void HELD_noFenceReadOfAUserFunctionClearsAForeignMark() throws Exception {
        String failure = noFenceReadAfterForeignMark("SELECT bump_b(1)");
        assertThat(row("b", 1)).as(failure).isEqualTo("orig@7");
    }

    @Test
    void bypass_noFenceReadOfAQualifiedFunctionNamedLikeABuiltinKeepsAForeignMark() throws Exception {
        String failure = noFenceReadAfterForeignMark("SELECT atk.upper('x')");
        assertThat(row("b", 1)).as(failure).isEqualTo("orig@7");
    }

    @Test
    void bypass_noFenceReadOfAUserOperatorKeepsAForeignMark() throws Exception {
        String failure = noFenceReadAfterForeignMark("SELECT 'p'::text + 'q'::text");
        assertThat(row("b", 1)).as(failure).isEqualTo("orig@7");
    }

    @Test
    void bypass_noFenceReadOfADomainCastKeepsAForeignMark() throws Exception {
        String failure = noFenceReadAfterForeignMark("SELECT CAST('x' AS dv)");
        assertThat(row("b", 1)).as(failure).isEqualTo("orig@7");
    }
}
