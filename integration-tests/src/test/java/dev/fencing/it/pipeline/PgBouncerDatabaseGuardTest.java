package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.MissingFenceException;
import dev.fencing.StaleFenceException;
import dev.fencing.jdbc.DatabaseGuard;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.testing.PgBouncer;
import dev.fencing.testing.TestDatabase;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The database guard behind pgbouncer (issue 27, build item 7): the behaviour <em>required</em>
 * of the guard behind a pooler, in {@code pool_mode=transaction} and {@code pool_mode=session}.
 * Fenced writes pass, stale and raw ones are refused, and nothing one application's client
 * leaves in a server session lets another application's client write: with
 * {@code default_pool_size=1} every client of the pooler runs on the same server session.
 * Every row is read back on a direct connection to PostgreSQL, never through pgbouncer.
 *
 * <p>Tables and functions are named with their schema: pgbouncer 1.18 does not pass the
 * client's {@code search_path} on ({@link PgBouncer}).
 *
 * <p>Row 1 and row 2 of {@code orders} start at fence 36. Application A (fenced, fence 40) and
 * application B (a raw client, a fenced client without a fence, a fenced client with stale
 * fence 35) share the pooler, as two services sharing one pgbouncer do.
 */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
class PgBouncerDatabaseGuardTest {

    static final long ROW_FENCE = 36;
    static final long CURRENT = 40;
    static final long STALE = 35;

    private final DataSource direct;
    private final String schema;

    PgBouncerDatabaseGuardTest(DataSource direct) {
        this.direct = direct;
        this.schema = ScratchAreas.name(direct);
    }

    @Nested
    class TransactionMode extends Cases {
        TransactionMode() {
            super(PgBouncer.PoolMode.TRANSACTION);
        }

        /**
         * The precondition of every leak test here: with a pool of one, two clients connected
         * at the same time run their transactions on one server session.
         */
        @Test
        void twoConnectedClientsShareOneServerSession() throws Exception {
            PgBouncer bouncer = bouncer(1);
            try (Connection a = DriverManager.getConnection(bouncer.jdbcUrl());
                 Connection b = DriverManager.getConnection(bouncer.jdbcUrl())) {
                assertThat(query(b, "SELECT pg_backend_pid()")).isEqualTo(query(a, "SELECT pg_backend_pid()"));
            }
        }

        /**
         * B's fenced connection is open and has sent a statement under stale fence 35 (so the
         * driver knows what it set); then A runs under 40 on the same server session; then B's
         * function call must still be refused as stale.
         */
        @Test
        void aStaleClientConnectedAcrossAnotherApplicationsStatementsCannotWrite() throws Exception {
            PgBouncer bouncer = bouncer(1);
            try (FencingDataSource b = fenced(bouncer); Connection connection = b.getConnection();
                 Statement statement = connection.createStatement(); Fence.Scope stale = Fence.enter(STALE)) {
                query(connection, "SELECT count(*) FROM " + orders());
                applicationA(bouncer);
                assertRefused(StaleFenceException.class, () -> query(connection, "SELECT " + schema + ".pay(1)"));
            }
            assertThat(order(1)).isEqualTo("pending@" + ROW_FENCE);
        }

        /** The same with B's fenced connection running without a fence. */
        @Test
        void anUnfencedClientConnectedAcrossAnotherApplicationsStatementsCannotWrite() throws Exception {
            PgBouncer bouncer = bouncer(1);
            try (FencingDataSource b = fenced(bouncer); Connection connection = b.getConnection()) {
                query(connection, "SELECT count(*) FROM " + orders());
                applicationA(bouncer);
                assertRefused(MissingFenceException.class, () -> query(connection, "SELECT " + schema + ".pay(1)"));
            }
            assertThat(order(1)).isEqualTo("pending@" + ROW_FENCE);
        }

        /** A's connection stays open (idle, in transaction mode it holds no server session) while a raw client writes. */
        @Test
        void aRawClientCannotWriteWhileAnotherApplicationsFencedConnectionIsOpen() throws Exception {
            PgBouncer bouncer = bouncer(1);
            try (FencingDataSource a = fenced(bouncer); Connection connection = a.getConnection()) {
                try (Fence.Scope current = Fence.enter(CURRENT)) {
                    query(connection, "SELECT count(*) FROM " + orders());
                    assertThat(update(connection, "UPDATE " + orders() + " SET status = 'a' WHERE id = 2")).isEqualTo(1);
                }
                assertRawWritesRefused(bouncer);
            }
            assertThat(order(1)).isEqualTo("pending@" + ROW_FENCE);
        }
    }

    @Nested
    class SessionMode extends Cases {
        SessionMode() {
            super(PgBouncer.PoolMode.SESSION);
        }
    }

    /** What must hold in every pool mode. */
    abstract class Cases {

        private final PgBouncer.PoolMode mode;
        private final List<PgBouncer> bouncers = new ArrayList<>();

        Cases(PgBouncer.PoolMode mode) {
            this.mode = mode;
        }

        PgBouncer bouncer(int poolSize) {
            PgBouncer bouncer = PgBouncer.start(mode, poolSize);
            bouncers.add(bouncer);
            return bouncer;
        }

        @BeforeEach
        void createTables() throws SQLException {
            DatabaseGuard.remove(direct, config());
            sql("DROP TABLE IF EXISTS " + orders() + " CASCADE",
                    "CREATE TABLE " + orders() + " (id BIGINT PRIMARY KEY, status VARCHAR(20),"
                            + " last_fence BIGINT NOT NULL DEFAULT 0)",
                    "INSERT INTO " + orders() + " (id, status, last_fence) VALUES (1, 'pending', " + ROW_FENCE
                            + "), (2, 'pending', " + ROW_FENCE + ")",
                    "CREATE OR REPLACE FUNCTION " + schema + ".pay(order_id BIGINT) RETURNS INT LANGUAGE sql AS"
                            + " 'UPDATE " + orders() + " SET status = ''paid'' WHERE id = order_id; SELECT 1'",
                    "CREATE OR REPLACE PROCEDURE " + schema + ".pay_proc(order_id BIGINT) LANGUAGE sql AS"
                            + " 'UPDATE " + orders() + " SET status = ''called'' WHERE id = order_id'");
            DatabaseGuard.install(direct, config());
        }

        @AfterEach
        void stopBouncers() {
            bouncers.forEach(PgBouncer::close);
        }

        // ---- (a) fenced writes under the current fence pass ------------------------------------------

        @Test
        void fencedWritesUnderTheCurrentFencePass() throws Exception {
            PgBouncer bouncer = bouncer(2);
            try (FencingDataSource fenced = fenced(bouncer); Connection connection = fenced.getConnection();
                 Fence.Scope current = Fence.enter(CURRENT)) {
                try (PreparedStatement update = connection.prepareStatement(
                        "UPDATE " + orders() + " SET status = ? WHERE id = ?")) {
                    update.setString(1, "shipped");
                    update.setLong(2, 1);
                    assertThat(update.executeUpdate()).isEqualTo(1);
                }
                assertThat(update(connection, "INSERT INTO " + orders() + " (id, status) VALUES (3, 'new')")).isEqualTo(1);
                query(connection, "SELECT " + schema + ".pay(2)");
                try (Statement statement = connection.createStatement()) {
                    statement.execute("CALL " + schema + ".pay_proc(3)");
                }
            }
            assertThat(order(1)).isEqualTo("shipped@" + CURRENT);
            assertThat(order(2)).isEqualTo("paid@" + CURRENT);
            assertThat(order(3)).isEqualTo("called@" + CURRENT);
        }

        // ---- (b) stale writes are refused ------------------------------------------------------------

        @Test
        void staleWritesAreRefused() throws Exception {
            PgBouncer bouncer = bouncer(2);
            try (FencingDataSource fenced = fenced(bouncer); Connection connection = fenced.getConnection();
                 Fence.Scope stale = Fence.enter(STALE)) {
                StaleFenceException refused = catchThrowableOfType(StaleFenceException.class,
                        () -> update(connection, "UPDATE " + orders() + " SET status = 'late' WHERE id = 1"));
                assertThat((Object) refused).isNotNull();
                assertThat(refused.attemptedFence()).isEqualTo(STALE);
                assertThatThrownBy(() -> query(connection, "SELECT " + schema + ".pay(1)"))
                        .isInstanceOf(StaleFenceException.class);
                assertThatThrownBy(() -> {
                    try (Statement statement = connection.createStatement()) {
                        statement.execute("CALL " + schema + ".pay_proc(2)");
                    }
                }).isInstanceOf(StaleFenceException.class);
            }
            assertThat(order(1)).isEqualTo("pending@" + ROW_FENCE);
            assertThat(order(2)).isEqualTo("pending@" + ROW_FENCE);
        }

        // ---- (c) raw writes through pgbouncer are refused -------------------------------------------

        @Test
        void rawWritesThroughThePoolerAreRefused() throws Exception {
            assertRawWritesRefused(bouncer(2));
            assertThat(order(1)).isEqualTo("pending@" + ROW_FENCE);
            assertThat(order(3)).isNull();
        }

        // ---- (d) nothing leaks between two applications' clients sharing one server session ----------

        /** Application A's fenced connection has closed; then a raw client of application B writes. */
        @Test
        void aRawClientAfterAnotherApplicationsFencedStatementsCannotWrite() throws Exception {
            PgBouncer bouncer = bouncer(1);
            applicationA(bouncer);
            assertRawWritesRefused(bouncer);
            assertThat(order(1)).isEqualTo("pending@" + ROW_FENCE);
        }

        /** Application B's fenced client, without a fence, after A's connection has closed. */
        @Test
        void anUnfencedClientAfterAnotherApplicationsFencedStatementsCannotWrite() throws Exception {
            PgBouncer bouncer = bouncer(1);
            applicationA(bouncer);
            try (FencingDataSource b = fenced(bouncer); Connection connection = b.getConnection()) {
                assertRefused(MissingFenceException.class, () -> query(connection, "SELECT " + schema + ".pay(1)"));
            }
            assertThat(order(1)).isEqualTo("pending@" + ROW_FENCE);
        }

        /** Application B's fenced client, with stale fence 35 (the row holds 36), after A's (40) has closed. */
        @Test
        void aStaleClientAfterANewerApplicationsStatementsCannotWrite() throws Exception {
            PgBouncer bouncer = bouncer(1);
            applicationA(bouncer);
            try (FencingDataSource b = fenced(bouncer); Connection connection = b.getConnection();
                 Fence.Scope stale = Fence.enter(STALE)) {
                assertRefused(StaleFenceException.class, () -> query(connection, "SELECT " + schema + ".pay(1)"));
            }
            assertThat(order(1)).isEqualTo("pending@" + ROW_FENCE);
        }

        // ---- transactions with auto-commit off -------------------------------------------------------

        @Test
        void aCommittedTransactionWritesUnderItsFenceAndLeavesNothingBehind() throws Exception {
            PgBouncer bouncer = bouncer(1);
            try (FencingDataSource fenced = fenced(bouncer); Connection connection = fenced.getConnection()) {
                connection.setAutoCommit(false);
                try (Fence.Scope current = Fence.enter(CURRENT)) {
                    assertThat(update(connection, "UPDATE " + orders() + " SET status = 'tx' WHERE id = 1")).isEqualTo(1);
                    query(connection, "SELECT " + schema + ".pay(2)");
                    connection.commit();
                }
                connection.setAutoCommit(true);
            }
            assertThat(order(1)).isEqualTo("tx@" + CURRENT);
            assertThat(order(2)).isEqualTo("paid@" + CURRENT);
            assertRawWritesRefused(bouncer);
            assertThat(order(1)).isEqualTo("tx@" + CURRENT);
        }

        @Test
        void aRolledBackTransactionWritesNothingAndLeavesNothingBehind() throws Exception {
            PgBouncer bouncer = bouncer(1);
            try (FencingDataSource fenced = fenced(bouncer); Connection connection = fenced.getConnection()) {
                connection.setAutoCommit(false);
                try (Fence.Scope current = Fence.enter(CURRENT)) {
                    assertThat(update(connection, "UPDATE " + orders() + " SET status = 'tx' WHERE id = 1")).isEqualTo(1);
                    query(connection, "SELECT " + schema + ".pay(2)");
                    connection.rollback();
                }
                connection.setAutoCommit(true);
            }
            assertThat(order(1)).isEqualTo("pending@" + ROW_FENCE);
            assertThat(order(2)).isEqualTo("pending@" + ROW_FENCE);
            assertRawWritesRefused(bouncer);
            assertThat(order(1)).isEqualTo("pending@" + ROW_FENCE);
        }

        @Test
        void aStaleTransactionIsRefusedAndLeavesNothingBehind() throws Exception {
            PgBouncer bouncer = bouncer(1);
            try (FencingDataSource fenced = fenced(bouncer); Connection connection = fenced.getConnection()) {
                connection.setAutoCommit(false);
                try (Fence.Scope stale = Fence.enter(STALE)) {
                    query(connection, "SELECT count(*) FROM " + orders());
                    assertThatThrownBy(() -> query(connection, "SELECT " + schema + ".pay(1)"))
                            .isInstanceOf(StaleFenceException.class);
                    connection.rollback();
                }
                connection.setAutoCommit(true);
            }
            assertThat(order(1)).isEqualTo("pending@" + ROW_FENCE);
            assertRawWritesRefused(bouncer);
        }
    }

    // ---- application A, application B's raw client ----------------------------------------------------

    /**
     * Application A: a fenced connection through {@code bouncer} under fence 40: a read, a
     * write, a function from {@code SELECT} and a procedure that write the fenced table (row 2
     * only), then the connection is closed.
     */
    void applicationA(PgBouncer bouncer) throws Exception {
        try (FencingDataSource a = fenced(bouncer); Connection connection = a.getConnection();
             Statement statement = connection.createStatement(); Fence.Scope current = Fence.enter(CURRENT)) {
            query(connection, "SELECT count(*) FROM " + orders());
            assertThat(statement.executeUpdate("UPDATE " + orders() + " SET status = 'a' WHERE id = 2")).isEqualTo(1);
            query(connection, "SELECT " + schema + ".pay(2)");
            statement.execute("CALL " + schema + ".pay_proc(2)");
        }
        assertThat(order(2)).isEqualTo("called@" + CURRENT);
    }

    /**
     * A plain pgjdbc connection through {@code bouncer} (no fencing driver), as another service
     * or a console: every write of a fenced row is refused by the trigger with ZF002.
     */
    void assertRawWritesRefused(PgBouncer bouncer) throws SQLException {
        List<String> writes = List.of(
                "SELECT " + schema + ".pay(1)",
                "CALL " + schema + ".pay_proc(1)",
                "UPDATE " + orders() + " SET status = 'raw' WHERE id = 1",
                "UPDATE " + orders() + " SET status = 'raw', last_fence = 99 WHERE id = 1",
                "DELETE FROM " + orders() + " WHERE id = 1",
                "INSERT INTO " + orders() + " (id, status, last_fence) VALUES (3, 'raw', 99)");
        Map<String, String> outcomes = new LinkedHashMap<>();
        Map<String, String> required = new LinkedHashMap<>();
        try (Connection raw = DriverManager.getConnection(bouncer.jdbcUrl()); Statement statement = raw.createStatement()) {
            for (String write : writes) {
                String before = order(1) + ", " + order(3);
                SQLException refused = catchThrowableOfType(SQLException.class, () -> statement.execute(write));
                outcomes.put(write, refused != null ? "refused " + refused.getSQLState()
                        : "LANDED (rows 1, 3: " + before + " -> " + order(1) + ", " + order(3) + ")");
                required.put(write, "refused ZF002");
            }
        }
        assertThat(outcomes).as("raw writes through %s", bouncer).isEqualTo(required);
    }

    // ---- helpers -------------------------------------------------------------------------------------

    /** {@code write} must fail with {@code expected}; when it does not, the message says what row 1 became. */
    void assertRefused(Class<? extends Throwable> expected, ThrowingCallable write)
            throws SQLException {
        String before = order(1);
        Throwable thrown = catchThrowable(write);
        assertThat(thrown).as("B's SELECT pay(1) must be refused; row 1 went from %s to %s", before, order(1))
                .isInstanceOf(expected);
    }

    FencingConfig config() {
        return FencingConfig.builder().tables(orders()).databaseGuard(FencingConfig.Guard.REQUIRED).build();
    }

    String orders() {
        return schema + ".orders";
    }

    FencingDataSource fenced(PgBouncer bouncer) {
        PGSimpleDataSource pooled = new PGSimpleDataSource();
        pooled.setURL(bouncer.jdbcUrl());
        return new FencingDataSource(pooled, config());
    }

    /** Statements on a direct connection to PostgreSQL (not through pgbouncer), unfenced. */
    void sql(String... statements) throws SQLException {
        try (Connection connection = direct.getConnection(); Statement statement = connection.createStatement()) {
            for (String text : statements) {
                statement.execute(text);
            }
        }
    }

    /** Status and fence of an order, read on a direct connection to PostgreSQL; null when it is gone. */
    String order(long id) throws SQLException {
        try (Connection connection = direct.getConnection();
             PreparedStatement select = connection.prepareStatement(
                     "SELECT status, last_fence FROM " + orders() + " WHERE id = ?")) {
            select.setLong(1, id);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? rows.getString(1) + "@" + rows.getLong(2) : null;
            }
        }
    }

    static String query(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
            return rows.next() ? rows.getString(1) : null;
        }
    }

    static int update(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            return statement.executeUpdate(sql);
        }
    }
}
