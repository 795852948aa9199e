package dev.fencing.testing;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.StaleFenceException;
import dev.fencing.jdbc.FencingDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The failure fencing exists for, told with the fixtures together as a user would: holder A
 * (fence 33) stops between reading and writing, holder B (fence 34) takes over and writes, A
 * wakes and writes: rejected, and B's write survives.
 */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
class StaleHolderScenarioTest {

    private final PauseInjector pauses = new PauseInjector();
    private final ExecutorService holders = Executors.newSingleThreadExecutor();
    private final DataSource fenced;

    StaleHolderScenarioTest(DataSource db) {
        fenced = new FencingDataSource(db, FencingConfig.builder().tables("accounts").build());
    }

    @BeforeAll
    static void schema(DataSource db) throws SQLException {
        Sql.execute(db, "CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance BIGINT, last_fence BIGINT NOT NULL DEFAULT 0)",
                "INSERT INTO accounts (id, balance) VALUES (1, 100)");
    }

    @AfterEach
    void stop() {
        pauses.close();
        holders.shutdownNow();
    }

    /** The user's code: read the balance, then write it back changed. */
    private void setBalance(long amount) throws SQLException {
        Sql.column(fenced, "SELECT balance FROM accounts WHERE id = 1");
        pauses.pauseAt("before-write");
        Sql.execute(fenced, "UPDATE accounts SET balance = " + amount + " WHERE id = 1");
    }

    @Test
    @SuppressWarnings("try")
    void theStaleHolderIsRejectedAndTheNewHoldersWriteSurvives() throws Exception {
        pauses.arm("before-write");
        Future<?> holderA;
        try (Fence.Scope a = Fence.enter(33)) {
            holderA = holders.submit(Fence.wrap(() -> {   // A runs on its own thread, under fence 33
                setBalance(1);
                return null;
            }));
        }
        pauses.awaitPaused("before-write", Duration.ofSeconds(5));

        try (Fence.Scope b = Fence.enter(34)) {
            setBalance(2);                                 // passes: an armed point catches one thread
        }
        pauses.release("before-write");

        ExecutionException failure = assertThrows(ExecutionException.class, () -> holderA.get(5, TimeUnit.SECONDS));
        StaleFenceException stale = assertInstanceOf(StaleFenceException.class, failure.getCause());
        assertEquals(33, stale.attemptedFence());
        assertEquals(List.of("2|34"), Sql.column(fenced, "SELECT balance || '|' || last_fence FROM accounts WHERE id = 1"));
    }
}
