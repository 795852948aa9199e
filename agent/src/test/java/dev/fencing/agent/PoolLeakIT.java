package dev.fencing.agent;

import dev.fencing.FencingConfig;
import example.app.PoolLeakSample;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The guard's pool-leak properties (integration-tests' {@code DatabaseGuardContract}: nothing the
 * driver sets for the guard outlives its hold of the connection) through a pool the agent fences,
 * on PostgreSQL and MariaDB, each in a JVM of its own ({@link PoolLeakSample}), on this build's
 * JDK ({@code -Plong}: every JDK of {@link ChildJvm#javas()}). One physical connection goes from
 * a holder (fence 40, which pays order 2 in a function only the guard checks) to a borrower with
 * no fence and one with a stale fence (35): both are refused, as they would not be if the holder's
 * fence were still on the session. Then a write on a thread the lease holder handed work to is refused, and the message
 * names the thread holding the fence and its lock, and how to hand the fence over: under the agent,
 * {@code Fence} and the registry it reports to live on the bootstrap path, the exception does not
 * (the driver is not on the sample's class path: the agent jar supplies it).
 */
class PoolLeakIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    /** This build's JDK; under {@code -Plong} every JDK of {@link ChildJvm#javas()}. */
    static Stream<Arguments> cases() {
        List<Arguments> all = new ArrayList<>();
        ChildJvm.javas().limit(Boolean.getBoolean("fencing.long") ? Long.MAX_VALUE : 1).forEach(java -> {
            all.add(Arguments.of("pg", java));
            all.add(Arguments.of("mariadb", java));
        });
        return all.stream();
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("cases")
    void aHoldersFenceReachesNoLaterBorrowerOfThePooledConnection(String database, Path java, @TempDir Path dir)
            throws Exception {
        String url = database.equals("pg") ? Postgres.URL : Databases.MARIADB_URL;
        String table = "agent_leak_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        FencingConfig config = FencingConfig.builder().tables(table).databaseGuard(FencingConfig.Guard.REQUIRED).build();
        javax.sql.DataSource raw = rawDataSource(url);
        execute(url, "CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, status VARCHAR(20), last_fence BIGINT NOT NULL DEFAULT 0)",
                "INSERT INTO " + table + " (id, status, last_fence) VALUES (1, 'pending', 5), (2, 'pending', 5)",
                database.equals("pg")
                        ? "CREATE FUNCTION pay_" + table + "(order_id BIGINT) RETURNS INT LANGUAGE sql AS"
                                + " 'UPDATE " + table + " SET status = ''paid'' WHERE id = order_id; SELECT 1'"
                        : "CREATE FUNCTION pay_" + table + "(order_id BIGINT) RETURNS INT MODIFIES SQL DATA"
                                + " BEGIN UPDATE " + table + " SET status = 'paid' WHERE id = order_id; RETURN 1; END");
        dev.fencing.jdbc.DatabaseGuard.install(raw, config);
        try {
            Path properties = Files.writeString(dir.resolve("fencing.properties"),
                    "fencing.tables=" + table + "\nfencing.database-guard=required\n");
            String output;
            try (ChildJvm jvm = ChildJvm.start(java, List.of("-Durl=" + url, "-Dtable=" + table,
                    ChildJvm.javaagent(properties)), ChildJvm.classPath(false), PoolLeakSample.class)) {
                output = jvm.awaitSuccess(TIMEOUT);
            }
            assertThat(MatrixIT.resultLine(output, "holder")).as(output).isEqualTo("1");
            assertThat(MatrixIT.resultLine(output, "unfenced")).as(output).isEqualTo("MissingFenceException");
            assertThat(MatrixIT.resultLine(output, "stale")).as(output).isEqualTo("StaleFenceException");
            assertThat(MatrixIT.resultLine(output, "unfenced-again")).as(output).isEqualTo("MissingFenceException");
            assertThat(MatrixIT.resultLine(output, "handoff")).as(output).isEqualTo("MissingFenceException");
            assertThat(MatrixIT.messageLine(output, "handoff")).as(output)
                    .contains("no fence in scope on thread 'handed-off-worker'")
                    .contains("The fence is held by thread 'main' (lock 'order:1'), not by this one.")
                    .contains("Fence.wrap(task)").contains("FencingTaskDecorator");
            assertThat(row(url, table, 1)).isEqualTo("pending/5");
            assertThat(row(url, table, 2)).isEqualTo("paid/40");
        } finally {
            dev.fencing.jdbc.DatabaseGuard.remove(raw, config);
            execute(url, "DROP FUNCTION IF EXISTS pay_" + table, "DROP TABLE IF EXISTS " + table);
        }
    }

    private static javax.sql.DataSource rawDataSource(String url) throws SQLException {
        if (url.startsWith("jdbc:postgresql:")) {
            org.postgresql.ds.PGSimpleDataSource pg = new org.postgresql.ds.PGSimpleDataSource();
            pg.setURL(url);
            return pg;
        }
        return new org.mariadb.jdbc.MariaDbDataSource(url);
    }

    private static void execute(String url, String... statements) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement statement = c.createStatement()) {
            for (String text : statements) {
                statement.execute(text);
            }
        }
    }

    private static String row(String url, String table, long id) throws SQLException {
        try (Connection c = DriverManager.getConnection(url);
             PreparedStatement read = c.prepareStatement("SELECT status, last_fence FROM " + table + " WHERE id = ?")) {
            read.setLong(1, id);
            try (ResultSet row = read.executeQuery()) {
                return row.next() ? row.getString(1) + "/" + row.getLong(2) : "(no row)";
            }
        }
    }
}
