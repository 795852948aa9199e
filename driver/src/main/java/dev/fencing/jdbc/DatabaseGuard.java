package dev.fencing.jdbc;

import dev.fencing.internal.jdbc.ConnectionContext;
import dev.fencing.internal.jdbc.FencedConnection;
import dev.fencing.internal.guard.GuardStates;

import dev.fencing.FencingConfig;
import dev.fencing.FencingException;
import dev.fencing.internal.guard.Guards;
import dev.fencing.internal.guard.SessionFence;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The database guard: triggers on every fenced table that refuse any write whose session holds no
 * fence ({@code ZF002}) or an older one than the row, or in epoch mode the lock's epoch row,
 * holds ({@code ZF001}), whichever client sent it. With {@code fencing.database-guard=required}
 * the driver keeps each session's fence in step with {@link dev.fencing.Fence#current()} and
 * reports these states as {@link dev.fencing.MissingFenceException} and
 * {@link dev.fencing.StaleFenceException}.
 *
 * <p>Tables are matched in the schemas the application uses: an unqualified name in the
 * connection's own schemas (PostgreSQL {@code current_schemas(false)}, MariaDB {@code DATABASE()},
 * H2 the current schema) and {@code fencing.database-guard.schemas}, a qualified name in its
 * schema; partitions and inheritance children of a guarded table included. {@link #verify} logs a
 * WARNING for each same-named table outside those schemas (not covered) and does not fail for it.
 * Every method takes a raw data source (a {@link FencingDataSource} is accepted: its driver
 * connection is used). Installing needs the right to create triggers (and on PostgreSQL
 * functions) on the fenced tables: their owner.
 */
public final class DatabaseGuard {

    private DatabaseGuard() {
    }

    /** The statements that install (or update) the guard for every fenced table: for review or a migration. */
    public static List<String> ddl(DataSource raw, FencingConfig config) throws SQLException {
        try (Connection connection = open(raw, config)) {
            Connection database = database(connection);
            return Guards.ddl(database, ConnectionContext.dialectOf(database), config);
        }
    }

    /**
     * Installs (or updates) the guard; idempotent. On PostgreSQL in one transaction, which carries
     * the migration mark; its event triggers only when the role is a superuser (else a WARNING says
     * so and {@link #verify} reports them missing).
     */
    public static void install(DataSource raw, FencingConfig config) throws SQLException {
        try (Connection connection = open(raw, config)) {
            Connection database = database(connection);
            Guards.install(database, ConnectionContext.dialectOf(database), config);
        }
        GuardStates.forget();
    }

    /**
     * Checks that every fenced table carries the current guard.
     *
     * @throws FencingException naming each table (or function) whose guard is missing or outdated, and on
     *         PostgreSQL each missing or changed event trigger
     */
    public static void verify(DataSource raw, FencingConfig config) throws SQLException {
        try (Connection connection = open(raw, config)) {
            Connection database = database(connection);
            Guards.verify(database, ConnectionContext.dialectOf(database), config);
        }
    }

    /** Removes the guard's triggers (and, where no other table uses them, its functions). */
    public static void remove(DataSource raw, FencingConfig config) throws SQLException {
        try (Connection connection = open(raw, config)) {
            Connection database = database(connection);
            Guards.run(database, Guards.removal(database, ConnectionContext.dialectOf(database), config));
        }
        GuardStates.forget();
    }

    /** Work that a sanctioned migration runs on a raw connection whose writes the guard lets through. */
    @FunctionalInterface
    public interface Migration {
        void run(Connection connection) throws SQLException;
    }

    /**
     * The sanctioned path for a migration that must change rows of fenced tables while the guard is
     * on: runs {@code work} on a raw connection of {@code raw} whose session is marked as migrating
     * ({@code fencing.migration}, {@code @fencing_migration}), which the triggers let through. The
     * reason is logged (WARNING) before the work starts, and the mark is cleared afterwards even
     * when the work fails. Writes made here carry no fence: run it only while no lock holder writes
     * the rows it changes.
     *
     * @param reason why the guard is bypassed, for the log (not blank)
     */
    public static void migrate(DataSource raw, String reason, Migration work) throws SQLException {
        Objects.requireNonNull(work, "work");
        if (reason == null || reason.isBlank()) {
            throw new IllegalArgumentException("a migration through the database guard needs a reason, for the log");
        }
        try (Connection connection = Objects.requireNonNull(raw, "raw").getConnection()) {
            Connection database = database(connection);
            SessionFence.migrate(connection, database, ConnectionContext.dialectOf(database), reason, () -> work.run(database));
        }
    }

    private static Connection open(DataSource raw, FencingConfig config) throws SQLException {
        Objects.requireNonNull(config, "config");
        return Objects.requireNonNull(raw, "raw").getConnection();
    }

    private static Connection database(Connection connection) throws SQLException {
        return FencedConnection.databaseBehind(connection);
    }
}
