package dev.fencing.jdbc;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What epoch mode costs per write, measured on PostgreSQL and printed: {@value #WRITES} auto-commit
 * {@code UPDATE .. WHERE id = ?} through one connection, unfenced, in row mode (the fence column
 * check spliced in) and in epoch mode (a short transaction: guard check, update, commit); and
 * epoch mode with ten updates per explicit transaction (one check per transaction), and reads
 * (the claim is made once per tenure, so a read costs nothing more); once with
 * {@code synchronous_commit=on} (each commit waits for the disk) and once off (round trips and
 * server work only). The modes take turns in blocks of {@value #BLOCK}. A quick harness, not a
 * benchmark: it shows the order of magnitude, and asserts only that every mode did its writes.
 * {@code -Dfencing.cost.writes=N} changes the count.
 */
class EpochCostTest {

    static final int WRITES = Integer.getInteger("fencing.cost.writes", 500);
    static final int BLOCK = 50;
    private static final Postgres DATABASE = new Postgres();
    private static final String LOCK = "cost:" + dev.fencing.testing.TestDatabases.uniqueName();

    @AfterAll
    static void dropSchema() throws SQLException {
        DATABASE.drop();
    }

    @FunctionalInterface
    interface Run {
        void writes(Connection connection, int count) throws SQLException;
    }

    @Test
    void perWriteCostOfRowAndEpochModeAgainstUnfencedWrites() throws Exception {
        DataSource raw = DATABASE.dataSource;
        try (Connection connection = raw.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE row_accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL,"
                    + " last_fence BIGINT NOT NULL DEFAULT 0)");
            statement.execute("CREATE TABLE epoch_accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL)");
            statement.execute("INSERT INTO row_accounts (id, balance) SELECT g, 0 FROM generate_series(1, 100) g");
            statement.execute("INSERT INTO epoch_accounts (id, balance) SELECT g, 0 FROM generate_series(1, 100) g");
        }
        FencingConfig config = FencingConfig.builder().tables("row_accounts")
                .tableMode("epoch_accounts", FencingConfig.Mode.EPOCH).build();
        EpochGuards.createTable(raw, config);
        FencingDataSource fenced = new FencingDataSource(raw, config);

        Map<String, Run> modes = new LinkedHashMap<>();
        modes.put("unfenced (raw driver)      ", (c, n) -> updates(c, "UPDATE epoch_accounts SET balance = balance + 1 WHERE id = ?", n));
        modes.put("row mode (fence column)    ", (c, n) -> updates(c, "UPDATE row_accounts SET balance = balance + 1 WHERE id = ?", n));
        modes.put("epoch mode (auto-commit)   ", (c, n) -> updates(c, "UPDATE epoch_accounts SET balance = balance + 1 WHERE id = ?", n));
        modes.put("epoch mode (10 per tx)     ", (c, n) -> {
            c.setAutoCommit(false);
            try (PreparedStatement update = c.prepareStatement("UPDATE epoch_accounts SET balance = balance + 1 WHERE id = ?")) {
                for (int i = 0; i < n; i++) {
                    update.setLong(1, 1 + i % 100);
                    update.executeUpdate();
                    if (i % 10 == 9) {
                        c.commit();
                    }
                }
                c.commit();
            } finally {
                c.setAutoCommit(true);
            }
        });
        modes.put("unfenced read (raw driver) ", (c, n) -> reads(c, n));
        modes.put("epoch mode read (claimed)  ", (c, n) -> reads(c, n));

        StringBuilder report = new StringBuilder();
        for (boolean durable : new boolean[] {true, false}) {
            Map<String, Double> micros = measure(raw, fenced, modes, durable);
            double unfenced = micros.get("unfenced (raw driver)      ");
            report.append("[epoch cost PostgreSQL] ").append(WRITES).append(" operations per mode by id through one"
                    + " connection, in interleaved blocks of ").append(BLOCK).append(", synchronous_commit=")
                    .append(durable ? "on" : "off").append(":\n");
            micros.forEach((mode, perOp) -> report.append(String.format("  %s %7.1f µs/op%s%n", mode, perOp,
                    mode.contains("read") ? "" : String.format("  (%+.1f µs against unfenced)", perOp - unfenced))));
        }
        System.out.print(report);

        try (Connection connection = raw.getConnection()) {
            long expected = 2L * (WRITES + BLOCK);   // two settings, each with a warm-up block
            assertThat(EpochGuardContract.query(connection, "SELECT SUM(balance) FROM row_accounts")).isEqualTo(expected);
            assertThat(EpochGuardContract.query(connection, "SELECT SUM(balance) FROM epoch_accounts")).isEqualTo(3 * expected);
        }
    }

    /**
     * Microseconds per operation of each mode: the modes take turns in blocks of {@value #BLOCK}, so
     * that load from elsewhere on the database (and the disk's fsync times) falls on all of them alike.
     */
    private static Map<String, Double> measure(DataSource raw, FencingDataSource fenced, Map<String, Run> modes,
                                               boolean durable) throws SQLException {
        Map<String, Long> nanos = new LinkedHashMap<>();
        try (Connection rawConnection = raw.getConnection(); Connection fencedConnection = fenced.getConnection();
             Fence.Scope scope = Fence.enter(LOCK, 1)) {
            for (Connection connection : new Connection[] {rawConnection, fencedConnection}) {
                try (Statement statement = connection.createStatement()) {
                    statement.execute("SET synchronous_commit = " + (durable ? "on" : "off"));
                }
            }
            for (int block = 0; block <= WRITES / BLOCK; block++) {   // block 0 warms up
                for (Map.Entry<String, Run> mode : modes.entrySet()) {
                    Connection connection = mode.getKey().startsWith("unfenced") ? rawConnection : fencedConnection;
                    long start = System.nanoTime();
                    mode.getValue().writes(connection, BLOCK);
                    if (block > 0) {
                        nanos.merge(mode.getKey(), System.nanoTime() - start, Long::sum);
                    }
                }
            }
        }
        Map<String, Double> micros = new LinkedHashMap<>();
        nanos.forEach((mode, total) -> micros.put(mode, total / 1000.0 / WRITES));
        return micros;
    }

    private static void updates(Connection connection, String sql, int count) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(sql)) {
            for (int i = 0; i < count; i++) {
                update.setLong(1, 1 + i % 100);
                update.executeUpdate();
            }
        }
    }

    private static void reads(Connection connection, int count) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT balance FROM epoch_accounts WHERE id = ?")) {
            for (int i = 0; i < count; i++) {
                select.setLong(1, 1 + i % 100);
                try (ResultSet rows = select.executeQuery()) {
                    rows.next();
                }
            }
        }
    }

}
