package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.jdbc.EpochTable;
import dev.fencing.jdbc.FencingDataSource;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What epoch mode costs per write, measured on PostgreSQL and printed: {@value #WRITES} auto-commit
 * {@code UPDATE .. WHERE id = ?} through one connection, unfenced, in row mode (the fence column
 * check spliced in) and in epoch mode (a short transaction: epoch row check, update, commit); ten
 * updates per explicit transaction, unfenced and in epoch mode (one check per transaction); and reads
 * (the claim is made once per tenure, so a read costs nothing more); once with
 * {@code synchronous_commit=on} (each commit waits for the disk) and once off (round trips and
 * server work only). The modes take turns in blocks of {@value #BLOCK}. A quick harness, not a
 * benchmark: it shows the order of magnitude, and asserts only that every mode did its writes.
 * {@code -Dfencing.cost.writes=N} changes the count.
 */
class EpochCostTest {

    static final int WRITES = Integer.getInteger("fencing.cost.writes", 500);
    static final int BLOCK = 50;
    private static final String LOCK = "cost:" + dev.fencing.it.UniqueNames.next("t_");

    @FunctionalInterface
    interface Run {
        void writes(Connection connection, int count) throws SQLException;
    }

    @Test
    void perWriteCostOfRowAndEpochModeAgainstUnfencedWrites(@TestDatabase(TestDatabase.Kind.POSTGRESQL) DataSource raw)
            throws Exception {
        try (Connection connection = raw.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE row_accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL,"
                    + " last_fence BIGINT NOT NULL DEFAULT 0)");
            statement.execute("CREATE TABLE epoch_accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL)");
            statement.execute("INSERT INTO row_accounts (id, balance) SELECT g, 0 FROM generate_series(1, 100) g");
            statement.execute("INSERT INTO epoch_accounts (id, balance) SELECT g, 0 FROM generate_series(1, 100) g");
        }
        FencingConfig config = FencingConfig.builder().tables("row_accounts")
                .tableMode("epoch_accounts", FencingConfig.Mode.EPOCH).build();
        EpochTable.createTable(raw, config);
        FencingDataSource fenced = new FencingDataSource(raw, config);

        Map<String, Run> modes = new LinkedHashMap<>();
        modes.put("unfenced, auto-commit      ", (c, n) -> updates(c, "epoch_accounts", n, 1));
        modes.put("row mode, auto-commit      ", (c, n) -> updates(c, "row_accounts", n, 1));
        modes.put("epoch mode, auto-commit    ", (c, n) -> updates(c, "epoch_accounts", n, 1));
        modes.put("unfenced, 10 per tx        ", (c, n) -> updates(c, "epoch_accounts", n, 10));
        modes.put("epoch mode, 10 per tx      ", (c, n) -> updates(c, "epoch_accounts", n, 10));
        modes.put("unfenced read              ", EpochCostTest::reads);
        modes.put("epoch mode read (claimed)  ", EpochCostTest::reads);

        StringBuilder report = new StringBuilder();
        for (boolean durable : new boolean[] {true, false}) {
            Map<String, Double> micros = measure(raw, fenced, modes, durable);
            report.append("[epoch cost PostgreSQL] ").append(WRITES).append(" operations per mode by id through one"
                    + " connection, median µs/op of blocks of ").append(BLOCK).append(" taken in turn, synchronous_commit=")
                    .append(durable ? "on" : "off").append(":\n");
            micros.forEach((mode, perOp) -> {
                String baseline = mode.contains("read") ? "unfenced read              "
                        : mode.contains("10 per tx") ? "unfenced, 10 per tx        " : "unfenced, auto-commit      ";
                report.append(String.format("  %s %7.1f µs/op%s%n", mode, perOp, mode.startsWith("unfenced") ? ""
                        : String.format("  (%+.1f µs against %s)", perOp - micros.get(baseline), baseline.trim())));
            });
        }
        System.out.print(report);

        try (Connection connection = raw.getConnection()) {
            long perSetting = WRITES + BLOCK;   // each setting's blocks and its warm-up block
            assertThat(EpochModeContract.query(connection, "SELECT SUM(balance) FROM row_accounts")).isEqualTo(2 * perSetting);
            assertThat(EpochModeContract.query(connection, "SELECT SUM(balance) FROM epoch_accounts")).isEqualTo(2 * 4 * perSetting);
        }
    }

    /**
     * Microseconds per operation of each mode: the modes take turns in blocks of {@value #BLOCK}, so
     * that load from elsewhere on the database (and the disk's fsync times) falls on all of them alike.
     */
    private static Map<String, Double> measure(DataSource raw, FencingDataSource fenced, Map<String, Run> modes,
                                               boolean durable) throws SQLException {
        Map<String, List<Double>> perBlock = new LinkedHashMap<>();
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
                        perBlock.computeIfAbsent(mode.getKey(), k -> new ArrayList<>())
                                .add((System.nanoTime() - start) / 1000.0 / BLOCK);
                    }
                }
            }
        }
        Map<String, Double> micros = new LinkedHashMap<>();
        perBlock.forEach((mode, values) -> {
            Collections.sort(values);
            micros.put(mode, values.get(values.size() / 2));
        });
        return micros;
    }

    /** {@code count} updates by id, auto-commit ({@code perTransaction} 1) or that many per transaction. */
    private static void updates(Connection connection, String table, int count, int perTransaction) throws SQLException {
        if (perTransaction > 1) {
            connection.setAutoCommit(false);
        }
        try (PreparedStatement update = connection.prepareStatement(
                "UPDATE " + table + " SET balance = balance + 1 WHERE id = ?")) {
            for (int i = 0; i < count; i++) {
                update.setLong(1, 1 + i % 100);
                update.executeUpdate();
                if (perTransaction > 1 && i % perTransaction == perTransaction - 1) {
                    connection.commit();
                }
            }
            if (perTransaction > 1) {
                connection.commit();
            }
        } finally {
            if (perTransaction > 1) {
                connection.setAutoCommit(true);
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
