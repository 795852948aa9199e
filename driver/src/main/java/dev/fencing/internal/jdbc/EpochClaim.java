package dev.fencing.internal.jdbc;

import dev.fencing.internal.epoch.EpochClaims;
import dev.fencing.internal.epoch.EpochRows;
import dev.fencing.internal.epoch.EpochSql;
import dev.fencing.internal.txn.TransactionState;
import dev.fencing.internal.sql.Dialect;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The work behind {@code dev.fencing.jdbc.EpochTable}: the epoch table's DDL and a claim made
 * ahead of a tenure's first statement, each on the driver's connection behind a fenced one (the
 * driver's own statements on the epoch table are not analysed).
 */
public final class EpochClaim {

    /** The default epoch table name ({@code fencing.epoch-table}). */
    public static final String DEFAULT_TABLE = "fencing_epochs";

    private EpochClaim() {
    }

    public static String createTableSql(DataSource dataSource, String table) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return EpochSql.createTable(ConnectionContext.dialectOf(FencedConnection.databaseBehind(connection)), table);
        }
    }

    public static void createTable(DataSource dataSource, String table) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            Connection database = FencedConnection.databaseBehind(connection);
            String ddl = EpochSql.createTable(ConnectionContext.dialectOf(database), table);
            boolean autoCommit = database.getAutoCommit();
            try (Statement statement = database.createStatement()) {
                statement.execute(ddl);
                if (!autoCommit) {
                    database.commit();
                }
            }
        }
    }

    /**
     * Raises the epoch row of {@code lockName} to {@code fence} in a transaction of its own and remembers
     * the claim: in {@code context}'s claims when the caller is a fencing data source, else in those
     * of the fenced connection the data source hands out, else nowhere.
     *
     * @param table the epoch table, or null for the fenced connection's (else {@link #DEFAULT_TABLE})
     */
    public static void claim(DataSource dataSource, ConnectionContext context, String table, String lockName,
                             long fence) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            FencedConnection fenced = FencedConnection.fencedBehind(connection);
            Connection database = FencedConnection.databaseBehind(connection);
            EpochRows fencedRows = fenced == null ? null : fenced.epoch();
            EpochClaims claims = context != null ? context.claimsFor(database)
                    : fencedRows != null ? fencedRows.claims() : new EpochClaims();
            Dialect dialect = ConnectionContext.dialectOf(database);
            String epochTable = table != null ? table : fencedRows != null ? fencedRows.epochTable() : DEFAULT_TABLE;
            EpochRows rows = new EpochRows(database, dialect, epochTable, claims, new TransactionState(database, dialect));
            boolean autoCommit = database.getAutoCommit();
            try {
                rows.raise(lockName, fence, null);
                if (!autoCommit) {
                    database.commit();
                }
            } catch (SQLException | RuntimeException | Error e) {
                if (!autoCommit) {
                    try {
                        database.rollback();
                    } catch (SQLException suppressed) {
                        e.addSuppressed(suppressed);
                    }
                }
                throw e;
            } finally {
                rows.close();
            }
            claims.committed(lockName, fence);
        }
    }
}
