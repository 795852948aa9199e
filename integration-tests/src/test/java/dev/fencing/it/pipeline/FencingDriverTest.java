package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.jdbc.FencingDriver;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.internal.config.ConfigKey;
import dev.fencing.FencingException;
import dev.fencing.MissingFenceException;
import dev.fencing.StaleFenceException;
import dev.fencing.it.UniqueNames;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** The {@code jdbc:fencing:} driver through {@link DriverManager}, on H2 and PostgreSQL. */
class FencingDriverTest {

    private final RecordingDriver recording = new RecordingDriver();

    @BeforeEach
    void registerRecordingDriver() throws SQLException {
        DriverManager.registerDriver(recording);
    }

    @AfterEach
    void deregisterRecordingDriver() throws SQLException {
        DriverManager.deregisterDriver(recording);
    }

    private static String h2Url() {
        return "jdbc:fencing:h2:mem:" + UniqueNames.next("h2_") + ";DB_CLOSE_DELAY=-1";
    }

    /** The same database, unfenced (schema changes that name a fenced table are refused when fenced). */
    private static Connection unfenced(String fencingUrl) throws SQLException {
        String url = fencingUrl.replaceFirst("^jdbc:fencing:", "jdbc:").replaceAll("[?&]fencing\\.[^&]*", "");
        return DriverManager.getConnection(url);
    }

    private static Properties properties(String... keyValues) {
        Properties properties = new Properties();
        for (int i = 0; i < keyValues.length; i += 2) {
            properties.setProperty(keyValues[i], keyValues[i + 1]);
        }
        return properties;
    }

    private static void createOrders(String fencingUrl) throws SQLException {
        try (Connection connection = unfenced(fencingUrl); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(20), amount BIGINT,"
                    + " last_fence BIGINT NOT NULL DEFAULT 0)");
            statement.execute("INSERT INTO orders (id, status, amount, last_fence) VALUES (1, 'pending', 100, 5)");
        }
    }

    private static long lastFence(Connection connection, long id) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT last_fence FROM orders WHERE id = ?")) {
            select.setLong(1, id);
            try (ResultSet rows = select.executeQuery()) {
                assertThat(rows.next()).isTrue();
                return rows.getLong(1);
            }
        }
    }

    @Test
    void acceptsOnlyItsOwnPrefix() throws SQLException {
        Driver driver = DriverManager.getDriver("jdbc:fencing:h2:mem:x");
        assertThat(driver).isInstanceOf(FencingDriver.class);
        assertThat(driver.acceptsURL("jdbc:fencing:postgresql://h/db")).isTrue();
        assertThat(driver.acceptsURL("jdbc:h2:mem:x")).isFalse();
        assertThat(driver.acceptsURL(null)).isFalse();
        assertThat(driver.connect("jdbc:h2:mem:x", new Properties())).isNull();
        assertThat(FencingDriver.isRegistered()).isTrue();
    }

    @Test
    void fencesH2ConnectionsOpenedThroughDriverManager() throws SQLException {
        String url = h2Url();
        // H2 refuses connection settings it does not know: the fencing.* keys must not reach it
        createOrders(url);
        try (Connection connection = DriverManager.getConnection(url, properties("fencing.tables", "orders"))) {
            assertThat(connection).isInstanceOf(FencedConnection.class);
            assertThatThrownBy(() -> connection.createStatement().executeUpdate("UPDATE orders SET status = 'x'"))
                    .isInstanceOf(MissingFenceException.class);
            try (Fence.Scope scope = Fence.enter(7)) {
                assertThat(connection.createStatement().executeUpdate("UPDATE orders SET status = 'paid' WHERE id = 1"))
                        .isEqualTo(1);
            }
            assertThat(lastFence(connection, 1)).isEqualTo(7);
        }
    }

    @Test
    void readsFencingParametersFromTheUrlQuery() throws SQLException {
        String url = "jdbc:fencing:recording:h2:mem:" + UniqueNames.next("h2_")
                + "?fencing.tables=orders&fencing.on-zero-rows=raise";
        try (Connection connection = DriverManager.getConnection(url, properties("user", "sa",
                "fencing.comparison", "strictly-newer"))) {
            FencingConfig config = ((FencedConnection) connection).config();
            assertThat(config.onZeroRows()).isEqualTo(FencingConfig.ZeroRows.RAISE);
            assertThat(config.comparison()).isEqualTo(FencingConfig.Comparison.STRICTLY_NEWER);
        }
        assertThat(recording.calls).hasSize(1);
        RecordingDriver.Call call = recording.calls.get(0);
        assertThat(call.url()).startsWith("jdbc:recording:h2:mem:").doesNotContain("fencing").doesNotContain("?");
        assertThat(call.info().stringPropertyNames()).containsExactly("user");
    }

    @Test
    void keepsTheDelegatesOwnUrlParameters() throws SQLException {
        String url = "jdbc:fencing:recording:h2:mem:" + UniqueNames.next("h2_")
                + "?fencing.tables=orders&ignored=1";
        try (Connection connection = DriverManager.getConnection(url)) {
            assertThat(connection).isInstanceOf(FencedConnection.class);
        }
        assertThat(recording.calls).hasSize(1);
        assertThat(recording.calls.get(0).url()).endsWith("?ignored=1").doesNotContain("fencing");
    }

    @Test
    void fencesPostgresConnectionsWithUrlParametersAndProperties(@TestDatabase(TestDatabase.Kind.POSTGRESQL) DataSource postgres)
            throws SQLException {
        String url = ScratchAreas.url(postgres).replaceFirst("^jdbc:", "jdbc:fencing:") + "&fencing.tables=orders";
        createOrders(url);
        try (Connection connection = DriverManager.getConnection(url,
                properties("fencing.comparison", "strictly-newer"))) {
            assertThat(connection).isInstanceOf(FencedConnection.class);
            try (Fence.Scope scope = Fence.enter(5)) {
                StaleFenceException stale = catchThrowableOfType(StaleFenceException.class, () ->
                        connection.createStatement().executeUpdate("UPDATE orders SET status = 'paid' WHERE id = 1"));
                assertThat(stale.currentFence()).hasValue(5);
            }
            assertThat(lastFence(connection, 1)).isEqualTo(5);
            try (Fence.Scope scope = Fence.enter(6)) {
                assertThat(connection.createStatement().executeUpdate("UPDATE orders SET status = 'paid' WHERE id = 1"))
                        .isEqualTo(1);
            }
            assertThat(lastFence(connection, 1)).isEqualTo(6);
            // pgjdbc never saw the fencing keys: its own view of the connection's parameters
            assertThat(connection.getMetaData().getURL()).doesNotContain("fencing");
        }
    }

    @Test
    void anInvalidValueFailsTheConnectionNamingTheKey() {
        String url = "jdbc:fencing:recording:h2:mem:" + UniqueNames.next("h2_");
        FencingException invalid = catchThrowableOfType(FencingException.class, () ->
                DriverManager.getConnection(url, properties("fencing.tables", "orders", "fencing.comparison", "sideways")));
        assertThat(invalid.getSQLState()).isEqualTo(FencingException.SQL_STATE);
        assertThat(invalid.getMessage()).contains("fencing.comparison").contains("sideways").contains("newer-or-equal");
        assertThatThrownBy(() -> DriverManager.getConnection(url, properties("fencing.tabels", "orders")))
                .isInstanceOf(FencingException.class).hasMessageContaining("fencing.tabels");
        assertThatThrownBy(() -> DriverManager.getConnection(url + "?Fencing.Tables=orders"))
                .isInstanceOf(FencingException.class).hasMessageContaining("Fencing.Tables");
        assertThatThrownBy(() -> DriverManager.getConnection(url))
                .isInstanceOf(FencingException.class).hasMessageContaining("fencing.tables");
        // nothing was opened
        assertThat(recording.calls).isEmpty();
    }

    @Test
    void readsTheFileNamedByFencingConfig(@TempDir Path directory) throws Exception {
        Path file = directory.resolve("fencing.properties");
        Files.writeString(file, "fencing.tables=orders\nfencing.on-zero-rows=raise\n");
        String url = "jdbc:fencing:recording:h2:mem:" + UniqueNames.next("h2_");
        try (Connection connection = DriverManager.getConnection(url,
                properties("fencing.config", file.toString(), "fencing.comparison", "strictly-newer"))) {
            FencingConfig config = ((FencedConnection) connection).config();
            assertThat(config.onZeroRows()).isEqualTo(FencingConfig.ZeroRows.RAISE);
            assertThat(config.comparison()).isEqualTo(FencingConfig.Comparison.STRICTLY_NEWER);
        }
        assertThatThrownBy(() -> DriverManager.getConnection(url,
                properties("fencing.config", directory.resolve("missing.properties").toString())))
                .isInstanceOf(FencingException.class).hasMessageContaining("fencing.config");
    }

    @Test
    void connectionsWithEqualConfigurationsShareOneAnalyzer() throws SQLException {
        String url = h2Url();
        try (Connection first = DriverManager.getConnection(url, properties("fencing.tables", "orders"));
             Connection second = DriverManager.getConnection(url, properties("fencing.tables", "orders"));
             Connection other = DriverManager.getConnection(url, properties("fencing.tables", "orders,notes"))) {
            assertThat(JdbcInternals.analyzer(first)).isSameAs(JdbcInternals.analyzer(second));
            assertThat(JdbcInternals.analyzer(other)).isNotSameAs(JdbcInternals.analyzer(first));
        }
    }

    @Test
    void listsTheFencingKeysAndTheDelegatesProperties() throws SQLException {
        Driver driver = DriverManager.getDriver("jdbc:fencing:recording:x");
        DriverPropertyInfo[] info = driver.getPropertyInfo("jdbc:fencing:recording:x?fencing.tables=orders",
                properties("fencing.comparison", "strictly-newer"));
        List<String> names = Arrays.stream(info).map(p -> p.name).toList();
        for (ConfigKey key : ConfigKey.values()) {
            assertThat(names).contains(key.key());
        }
        assertThat(names).contains("recorded");
        DriverPropertyInfo mode = Arrays.stream(info).filter(p -> p.name.equals(FencingConfig.MODE)).findFirst()
                .orElseThrow();
        assertThat(mode.choices).containsExactly("row", "epoch");
        assertThat(mode.value).isEqualTo("row");
        DriverPropertyInfo tables = Arrays.stream(info).filter(p -> p.name.equals(FencingConfig.TABLES)).findFirst()
                .orElseThrow();
        assertThat(tables.value).isEqualTo("orders");
        assertThat(tables.required).isTrue();
        DriverPropertyInfo comparison = Arrays.stream(info).filter(p -> p.name.equals(FencingConfig.COMPARISON))
                .findFirst().orElseThrow();
        assertThat(comparison.value).isEqualTo("strictly-newer");
        assertThat(comparison.choices).containsExactly("newer-or-equal", "strictly-newer");
    }

    @Test
    void errorsNeverShowTheUrlBeyondItsScheme() {
        assertThatThrownBy(() -> DriverManager.getConnection(
                "jdbc:fencing:nosuchdb://admin:secret@host/db?password=secret&fencing.tables=orders"))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("jdbc:nosuchdb:")
                .hasMessageNotContaining("secret");
        assertThatThrownBy(() -> DriverManager.getConnection("jdbc:fencing:fencing:h2:mem:x?fencing.tables=orders"))
                .isInstanceOf(FencingException.class);
    }

    @Test
    void deregisterRemovesTheDriver() throws SQLException {
        try {
            FencingDriver.deregister();
            assertThat(FencingDriver.isRegistered()).isFalse();
            assertThatThrownBy(() -> DriverManager.getConnection(h2Url(), properties("fencing.tables", "orders")))
                    .isInstanceOf(SQLException.class)
                    .isNotInstanceOf(FencingException.class);
        } finally {
            FencingDriver.register();
        }
        try (Connection connection = DriverManager.getConnection(h2Url(), properties("fencing.tables", "orders"))) {
            assertThat(connection).isInstanceOf(FencedConnection.class);
        }
    }
}
