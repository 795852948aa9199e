package dev.fencing;

import dev.fencing.jdbc.FencingDataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A write refused for lack of a fence on a thread other than the lock holder's says which thread
 * holds the fence (and its lock) and how to hand it over; once the holder's scope is closed, no
 * thread is named. The holder keeps its scope open until the worker's refusal has been taken
 * (latches, no sleeps). Rows read back through a raw connection.
 */
class HeldElsewhereMessageTest {

    @Test
    void aRefusalOnAnotherThreadNamesTheThreadHoldingTheFence() throws Exception {
        JdbcDataSource raw = new JdbcDataSource();
        raw.setURL("jdbc:h2:mem:held_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1");
        execute(raw, "CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(20), last_fence BIGINT DEFAULT 0 NOT NULL)",
                "INSERT INTO orders (id, status) VALUES (1, 'pending')");
        FencingDataSource fenced = new FencingDataSource(raw, FencingConfig.builder().tables("orders").build());

        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch refused = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            try (Fence.Scope scope = Fence.enter("order:1", 41)) {
                holding.countDown();
                refused.await(30, TimeUnit.SECONDS); // hold the fence until the worker's write was refused
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "lease-holder");
        holder.start();
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();

        MissingFenceException whileHeld = refusedWrite(fenced, "handed-off-worker");
        refused.countDown();
        holder.join();
        MissingFenceException afterwards = refusedWrite(fenced, "handed-off-worker");

        assertThat(whileHeld.getMessage())
                .contains("no fence in scope on thread 'handed-off-worker'")
                .contains("The fence is held by thread 'lease-holder' (lock 'order:1'), not by this one.")
                .contains("Fence.wrap(task)").contains("FencingTaskDecorator");
        assertThat(afterwards.getMessage()).doesNotContain("lease-holder").doesNotContain("held by");
        try (Connection c = raw.getConnection(); Statement s = c.createStatement();
             java.sql.ResultSet row = s.executeQuery("SELECT status, last_fence FROM orders WHERE id = 1")) {
            assertThat(row.next()).isTrue();
            assertThat(row.getString(1) + "/" + row.getLong(2)).isEqualTo("pending/0");
        }
    }

    /** The refusal of an unfenced write made on a new thread named {@code name}. */
    private static MissingFenceException refusedWrite(FencingDataSource fenced, String name)
            throws InterruptedException, ExecutionException {
        CompletableFuture<MissingFenceException> result = new CompletableFuture<>();
        Thread worker = new Thread(() -> {
            try (Connection c = fenced.getConnection(); Statement s = c.createStatement()) {
                result.complete(catchThrowableOfType(MissingFenceException.class,
                        () -> s.executeUpdate("UPDATE orders SET status = 'paid' WHERE id = 1")));
            } catch (SQLException | RuntimeException e) {
                result.completeExceptionally(e);
            }
        }, name);
        worker.start();
        worker.join();
        MissingFenceException refusal = result.get();
        assertThat((Object) refusal).as("the unfenced write was refused").isNotNull();
        return refusal;
    }

    private static void execute(JdbcDataSource raw, String... statements) throws SQLException {
        try (Connection c = raw.getConnection(); Statement s = c.createStatement()) {
            for (String text : statements) {
                s.execute(text);
            }
        }
    }
}
