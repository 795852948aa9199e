package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.jdbc.FencingDriver;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.MissingFenceException;
import dev.fencing.StaleFenceException;
import dev.fencing.UnfenceableStatementException;
import dev.fencing.events.FencingListener;
import dev.fencing.events.PlanningEvent;
import dev.fencing.events.StatementEvent;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The events a {@link FencingListener} hears, per data source and process-wide. */
class H2EventsTest extends OrdersFixture {

    private static final DataSource DATABASE = H2.database();

    @Override
    DataSource raw() {
        return DATABASE;
    }

    /** Records every event as a line. */
    static final class Recorder implements FencingListener {
        final List<String> events = new ArrayList<>();
        int planned;
        int hits;

        @Override
        public void statementFenced(StatementEvent event) {
            events.add("fenced " + event.table());
        }

        @Override
        public void statementPassedThrough(StatementEvent event) {
            events.add("passed");
        }

        @Override
        public void statementRefused(StatementEvent event) {
            events.add("refused " + event.refusal() + " " + event.table());
        }

        @Override
        public void writeRejected(StatementEvent event) {
            events.add("rejected " + event.rejection() + " " + event.table());
        }

        @Override
        public void statementPlanned(PlanningEvent event) {
            planned++;
            hits += event.cacheHit() ? 1 : 0;
            assertThat(event.nanos()).isNotNegative();
            assertThat(event.cachedPlans()).isNotNegative();
        }
    }

    @Test
    void aDataSourcesListenerHearsWhatItsStatementsDid() throws SQLException {
        seed(1, "pending", 10, 50);
        FencingDataSource dataSource = fenced(builder -> builder.onZeroRows(FencingConfig.ZeroRows.DIAGNOSE));
        Recorder recorder = new Recorder();
        dataSource.addListener(recorder);
        Connection connection = connection(dataSource);
        try (Statement statement = connection.createStatement()) {
            statement.executeQuery("SELECT COUNT(*) FROM notes").close();
            assertThatThrownBy(() -> statement.executeUpdate("UPDATE orders SET status = 'x' WHERE id = 1"))
                    .isInstanceOf(MissingFenceException.class);
            assertThatThrownBy(() -> statement.executeUpdate("TRUNCATE TABLE orders"))
                    .isInstanceOf(UnfenceableStatementException.class);
            try (Fence.Scope scope = Fence.enter(7)) {
                assertThatThrownBy(() -> statement.executeUpdate("UPDATE orders SET status = 'x' WHERE id = 1"))
                        .isInstanceOf(StaleFenceException.class);
            }
            try (Fence.Scope scope = Fence.enter(60);
                 PreparedStatement update = connection.prepareStatement("UPDATE orders SET status = ? WHERE id = ?")) {
                update.setString(1, "paid");
                update.setLong(2, 1);
                update.executeUpdate();
            }
        }
        assertThat(recorder.events).containsExactly(
                "passed",
                "refused MISSING_FENCE orders",
                "refused UNFENCEABLE orders",
                "fenced orders", "rejected ROW_FENCE orders",
                "fenced orders");
        assertThat(recorder.planned).isEqualTo(5);
        // the SELECT of a table that is not fenced needed no analysis; the second UPDATE came from the cache
        assertThat(recorder.hits).isEqualTo(2);

        assertThat(dataSource.removeListener(recorder)).isTrue();
        try (Statement statement = connection.createStatement()) {
            statement.executeQuery("SELECT COUNT(*) FROM notes").close();
        }
        assertThat(recorder.events).hasSize(6);
    }

    @Test
    void aListenerThatThrowsChangesNoOutcome() throws SQLException {
        FencingDataSource dataSource = fenced();
        dataSource.addListener(new FencingListener() {
            @Override
            public void statementPassedThrough(StatementEvent event) {
                throw new IllegalStateException("a broken listener");
            }
        });
        try (Statement statement = connection(dataSource).createStatement()) {
            assertThat(statement.executeUpdate("INSERT INTO notes (id, body) VALUES (1, 'a')")).isEqualTo(1);
        }
    }

    @Test
    void processWideListenersHearTheUrlDriversConnections() throws SQLException {
        String url = "h2:mem:" + dev.fencing.it.UniqueNames.next("h2_") + ";DB_CLOSE_DELAY=-1";
        try (Connection plain = DriverManager.getConnection("jdbc:" + url);
             Statement statement = plain.createStatement()) {
            statement.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY, last_fence BIGINT NOT NULL DEFAULT 0)");
        }
        Recorder recorder = new Recorder();
        FencingDriver.addListener(recorder);
        java.util.Properties properties = new java.util.Properties();
        properties.setProperty("fencing.tables", "orders");
        try (Connection connection = DriverManager.getConnection("jdbc:fencing:" + url, properties);
             Statement statement = connection.createStatement()) {
            assertThatThrownBy(() -> statement.executeUpdate("INSERT INTO orders (id) VALUES (1)"))
                    .isInstanceOf(MissingFenceException.class);
        } finally {
            assertThat(FencingDriver.removeListener(recorder)).isTrue();
        }
        assertThat(recorder.events).containsExactly("refused MISSING_FENCE orders");
    }
}
