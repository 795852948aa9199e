package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.internal.txn.TransactionState;
import dev.fencing.jdbc.FencingDataSource;

import dev.fencing.FencingConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * {@link TransactionState} against the database, for every source of a transaction's end: what
 * the driver reports is compared with what the database did (a probe row written in the
 * transaction is durable after a commit and gone after a rollback), never with a mock.
 */
abstract class TransactionStateContract {

    /** The database, unfenced: for setting up and checking rows. */
    abstract DataSource raw();

    /** The text that begins a transaction under JDBC auto-commit. */
    String beginText() {
        return "BEGIN";
    }

    /** The text that releases savepoint {@code name}, or null when the database has none. */
    String releaseSavepointText(String name) {
        return "RELEASE SAVEPOINT " + name;
    }

    /** True when DDL commits the open transaction implicitly (MariaDB, H2). */
    abstract boolean ddlCommitsImplicitly();

    /**
     * Makes {@code connection} (auto-commit off, nothing sent yet) write probe row 7 and then fail
     * with an error of SQLState class 40, with the help of {@code other}; returns that error.
     */
    abstract SQLException classFortyError(Connection connection, Connection other) throws Exception;

    final ExecutorService threads = Executors.newCachedThreadPool();
    private final List<TransactionState.End> ends = new ArrayList<>();
    private final List<Connection> opened = new ArrayList<>();

    @BeforeEach
    void createTables() throws SQLException {
        sql("DROP TABLE IF EXISTS tx_probe", "DROP TABLE IF EXISTS tx_locked", "DROP TABLE IF EXISTS tx_ddl",
                "CREATE TABLE tx_probe (id INT PRIMARY KEY)",
                "CREATE TABLE tx_locked (id INT PRIMARY KEY, v INT)",
                "INSERT INTO tx_locked (id, v) VALUES (1, 0), (2, 0)");
    }

    @AfterEach
    void closeAll() throws SQLException {
        threads.shutdownNow();
        for (Connection connection : opened) {
            connection.close();
        }
    }

    void sql(String... statements) throws SQLException {
        try (Connection connection = raw().getConnection(); Statement statement = connection.createStatement()) {
            for (String text : statements) {
                statement.execute(text);
            }
        }
    }

    /** A fenced connection (orders fenced, row mode) whose transaction ends are recorded. */
    FencedConnection fenced() throws SQLException {
        FencingDataSource dataSource = new FencingDataSource(raw(), FencingConfig.builder().tables("orders").build());
        FencedConnection connection = (FencedConnection) dataSource.getConnection();
        opened.add(connection);
        JdbcInternals.transaction(connection).addListener(ends::add);
        return connection;
    }

    /** The ends reported so far. */
    List<TransactionState.End> endsSeen() {
        return ends;
    }

    Connection plain() throws SQLException {
        Connection connection = raw().getConnection();
        opened.add(connection);
        return connection;
    }

    static void execute(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    static void probe(Connection connection, int id) throws SQLException {
        execute(connection, "INSERT INTO tx_probe (id) VALUES (" + id + ")");
    }

    /** The probe rows the database holds as committed (read on a connection of its own). */
    List<Integer> durableProbes() throws SQLException {
        List<Integer> ids = new ArrayList<>();
        try (Connection connection = raw().getConnection(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT id FROM tx_probe ORDER BY id")) {
            while (rows.next()) {
                ids.add(rows.getInt(1));
            }
        }
        return ids;
    }

    // ---- JDBC calls --------------------------------------------------------------------------------

    @Test
    void commitIsACommit() throws SQLException {
        FencedConnection connection = fenced();
        connection.setAutoCommit(false);
        probe(connection, 1);
        assertThat(JdbcInternals.transaction(connection).inTransaction()).isTrue();
        long generation = JdbcInternals.transaction(connection).generation();
        connection.commit();
        assertThat(ends).containsExactly(TransactionState.End.COMMITTED);
        assertThat(JdbcInternals.transaction(connection).generation()).isNotEqualTo(generation);
        assertThat(durableProbes()).containsExactly(1);
    }

    @Test
    void rollbackIsARollback() throws SQLException {
        FencedConnection connection = fenced();
        connection.setAutoCommit(false);
        probe(connection, 1);
        long undo = JdbcInternals.transaction(connection).undoGeneration();
        connection.rollback();
        assertThat(ends).containsExactly(TransactionState.End.ROLLED_BACK);
        assertThat(JdbcInternals.transaction(connection).undoGeneration()).isNotEqualTo(undo);
        assertThat(durableProbes()).isEmpty();
    }

    @Test
    void rollbackToASavepointUndoesWhatCameAfterIt() throws SQLException {
        FencedConnection connection = fenced();
        connection.setAutoCommit(false);
        probe(connection, 1);
        Savepoint savepoint = connection.setSavepoint();
        probe(connection, 2);
        Savepoint later = connection.setSavepoint("later");
        assertThat(JdbcInternals.transaction(connection).savepoints()).isEqualTo(2);
        connection.rollback(savepoint);
        assertThat(ends).containsExactly(TransactionState.End.ROLLED_BACK_TO_SAVEPOINT);
        assertThat(JdbcInternals.transaction(connection).savepoints()).isEqualTo(1);
        assertThat(JdbcInternals.transaction(connection).inTransaction()).isTrue();
        connection.releaseSavepoint(savepoint);
        assertThat(JdbcInternals.transaction(connection).savepoints()).isZero();
        connection.commit();
        assertThat(durableProbes()).containsExactly(1);
        assertThat(later).isNotNull();
    }

    @Test
    void switchingAutoCommitOnCommits() throws SQLException {
        FencedConnection connection = fenced();
        connection.setAutoCommit(false);
        probe(connection, 1);
        connection.setAutoCommit(true);
        assertThat(ends).containsExactly(TransactionState.End.COMMITTED);
        assertThat(durableProbes()).containsExactly(1);
        assertThat(JdbcInternals.transaction(connection).inTransaction()).isFalse();
    }

    // ---- transaction control sent as SQL text --------------------------------------------------------

    @Test
    void beginTextUnderAutoCommitOpensATransactionAndRollbackTextEndsIt() throws SQLException {
        FencedConnection connection = fenced();
        assertThat(connection.getAutoCommit()).isTrue();
        assertThat(JdbcInternals.transaction(connection).inTransaction()).isFalse();
        execute(connection, beginText());
        assertThat(JdbcInternals.transaction(connection).inTransaction()).isTrue();
        probe(connection, 1);
        assertThat(durableProbes()).isEmpty();
        execute(connection, "ROLLBACK");
        assertThat(ends).containsExactly(TransactionState.End.ROLLED_BACK);
        assertThat(JdbcInternals.transaction(connection).inTransaction()).isFalse();
        assertThat(durableProbes()).isEmpty();
    }

    @Test
    void beginTextThenCommitTextCommits() throws SQLException {
        FencedConnection connection = fenced();
        execute(connection, beginText());
        probe(connection, 1);
        execute(connection, "COMMIT");
        assertThat(ends).containsExactly(TransactionState.End.COMMITTED);
        assertThat(JdbcInternals.transaction(connection).inTransaction()).isFalse();
        assertThat(durableProbes()).containsExactly(1);
    }

    @Test
    void beginTextThroughAPreparedStatementIsTrackedToo() throws SQLException {
        FencedConnection connection = fenced();
        try (var begin = connection.prepareStatement(beginText());
             var rollback = connection.prepareStatement("ROLLBACK")) {
            begin.execute();
            assertThat(JdbcInternals.transaction(connection).inTransaction()).isTrue();
            probe(connection, 1);
            rollback.execute();
        }
        assertThat(ends).containsExactly(TransactionState.End.ROLLED_BACK);
        assertThat(durableProbes()).isEmpty();
    }

    @Test
    void savepointTextsAreTracked() throws SQLException {
        FencedConnection connection = fenced();
        connection.setAutoCommit(false);
        probe(connection, 1);
        execute(connection, "SAVEPOINT s1");
        probe(connection, 2);
        assertThat(JdbcInternals.transaction(connection).savepoints()).isEqualTo(1);
        execute(connection, "ROLLBACK TO SAVEPOINT s1");
        assertThat(ends).containsExactly(TransactionState.End.ROLLED_BACK_TO_SAVEPOINT);
        String release = releaseSavepointText("s1");
        if (release != null) {
            execute(connection, release);
            assertThat(JdbcInternals.transaction(connection).savepoints()).isZero();
        }
        connection.commit();
        assertThat(durableProbes()).containsExactly(1);
    }

    @Test
    void ddlEndsTheTransactionWhereTheDatabaseCommitsIt() throws SQLException {
        FencedConnection connection = fenced();
        connection.setAutoCommit(false);
        probe(connection, 1);
        execute(connection, "CREATE TABLE tx_ddl (id INT)");
        if (ddlCommitsImplicitly()) {
            assertThat(ends).containsExactly(TransactionState.End.COMMITTED);
            assertThat(durableProbes()).containsExactly(1);
        } else {
            assertThat(ends).isEmpty();
            assertThat(durableProbes()).isEmpty();
            connection.rollback();
            assertThat(durableProbes()).isEmpty();
        }
    }

    @Test
    void aTextTheDriverCannotPlaceCountsAsAPossibleEnd() throws SQLException {
        FencedConnection connection = fenced();
        connection.setAutoCommit(false);
        probe(connection, 1);
        try {
            execute(connection, "SELECT 1; SELECT 2");
        } catch (SQLException refusedByTheDriver) {
            // MariaDB without allowMultiQueries: a failed text of unknown effect is a possible end too
        }
        assertThat(ends).containsExactly(TransactionState.End.UNKNOWN);
        connection.rollback();
    }

    // ---- errors with which the server ends the transaction ------------------------------------------

    @Test
    void aClassFortyErrorEndsTheTransaction() throws Exception {
        FencedConnection connection = fenced();
        connection.setAutoCommit(false);
        SQLException error = classFortyError(connection, plain());
        assertThat(error.getSQLState()).startsWith("40");
        assertThat(ends).containsExactly(TransactionState.End.ROLLED_BACK);
        // the database's side: whatever the application does now, the probe is not committed
        try {
            connection.commit();
        } catch (SQLException ignored) {
            // PostgreSQL refuses to commit an aborted transaction
        }
        assertThat(durableProbes()).doesNotContain(7);
    }

    /** Runs {@code sql} on {@code connection} in a thread; its failure, or null. */
    Future<SQLException> inThread(Connection connection, String sql) {
        return threads.submit(() -> {
            try {
                execute(connection, sql);
                return null;
            } catch (SQLException e) {
                return e;
            }
        });
    }

    static SQLException failure(Future<SQLException> pending) throws Exception {
        return pending.get(30, TimeUnit.SECONDS);
    }

    static SQLException thrown(ThrowingRunnable action) {
        return catchThrowableOfType(action::run, SQLException.class);
    }

    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }
}
