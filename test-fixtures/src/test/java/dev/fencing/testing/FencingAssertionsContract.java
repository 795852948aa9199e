package dev.fencing.testing;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.FencingException;
import dev.fencing.MissingFenceException;
import dev.fencing.StaleFenceException;
import dev.fencing.UnfenceableStatementException;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.testing.FencingAssertions.Snapshot;
import dev.fencing.testing.FencingAssertions.WriteAction;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.OptionalLong;

import static dev.fencing.testing.FencingAssertions.assertAppliesWithFence;
import static dev.fencing.testing.FencingAssertions.assertRefusesWithoutFence;
import static dev.fencing.testing.FencingAssertions.assertRejectsStaleFence;
import static dev.fencing.testing.FencingAssertions.assertThatWrite;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link FencingAssertions} pass on a {@link FencingDataSource} and fail, saying what happened,
 * on the raw data source under it. Subclasses name the database.
 */
abstract class FencingAssertionsContract {

    static final String ROWS = "SELECT id, balance, last_fence FROM accounts ORDER BY id";
    static final String BEFORE = "[{id=1, balance=100, last_fence=5}, {id=2, balance=50, last_fence=0}]";

    /** The user's write path under test: a deposit to account 1. */
    static final WriteAction DEPOSIT = dataSource -> deposit(dataSource, 1, 10);

    private final DataSource raw;
    private final DataSource fenced;

    FencingAssertionsContract(DataSource raw) {
        this.raw = raw;
        this.fenced = new FencingDataSource(raw, FencingConfig.builder().tables("accounts").build());
    }

    @BeforeEach
    void freshTables() throws SQLException {
        Sql.execute(raw, "DROP TABLE IF EXISTS accounts", "DROP TABLE IF EXISTS audit",
                "CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance BIGINT, last_fence BIGINT NOT NULL DEFAULT 0)",
                "CREATE TABLE audit (id BIGINT PRIMARY KEY)",
                // holder with fence 5 has written account 1; account 2 was never written under a fence
                "INSERT INTO accounts (id, balance, last_fence) VALUES (1, 100, 5), (2, 50, 0)");
    }

    static void deposit(DataSource dataSource, long id, long amount) throws SQLException {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement update = connection.prepareStatement("UPDATE accounts SET balance = balance + ? WHERE id = ?")) {
            update.setLong(1, amount);
            update.setLong(2, id);
            update.executeUpdate();
        }
    }

    // --- on a fenced data source the assertions pass ---

    @Test
    void appliesWithTheCurrentFence() throws SQLException {
        assertAppliesWithFence(fenced, 5, DEPOSIT, ROWS);
        assertAppliesWithFence(fenced, 6, DEPOSIT, ROWS);
        assertEquals(List.of("120"), Sql.column(raw, "SELECT balance FROM accounts WHERE id = 1"));
    }

    @Test
    void rejectsAStaleFenceAndReturnsTheException() {
        StaleFenceException stale = assertRejectsStaleFence(fenced, 4, DEPOSIT, ROWS);
        assertEquals(4, stale.attemptedFence());
        assertEquals(OptionalLong.of(5), stale.currentFence());
        assertTrue(stale.table().toLowerCase().endsWith("accounts"), stale.table());
    }

    @Test
    void refusesAWriteWithoutFence() {
        assertInstanceOf(MissingFenceException.class, assertRefusesWithoutFence(fenced, DEPOSIT, ROWS));
    }

    @Test
    void acceptsAnUnfenceableStatementAsARefusal() {
        FencingException refusal = assertRefusesWithoutFence(fenced, ds -> Sql.execute(ds, "TRUNCATE TABLE accounts"), ROWS);
        assertTrue(refusal instanceof MissingFenceException || refusal instanceof UnfenceableStatementException, refusal::toString);
    }

    @Test
    void findsTheStaleFenceExceptionInsideWhatTheActionThrows() {
        RuntimeException[] wrapper = new RuntimeException[1];
        StaleFenceException stale = assertRejectsStaleFence(fenced, 4, ds -> {
            try {
                DEPOSIT.run(ds);
            } catch (SQLException e) {
                wrapper[0] = new IllegalStateException("repository failed", e);
                throw wrapper[0];
            }
        }, ROWS);
        assertSame(wrapper[0].getCause(), stale);
    }

    @Test
    void fluentEntryPointChainsTheSameAssertions() {
        StaleFenceException stale = assertThatWrite(fenced, DEPOSIT).watching(ROWS)
                .appliesWithFence(6)
                .rejectsStaleFence(5);
        assertEquals(OptionalLong.of(6), stale.currentFence());
        assertInstanceOf(MissingFenceException.class, assertThatWrite(fenced, DEPOSIT).watching(ROWS).refusesWithoutFence());
    }

    // --- on the raw data source (not fenced) the assertions fail, saying what happened ---

    @Test
    void staleAssertionFailsWhenTheStaleWriteIsApplied() {
        AssertionFailedError error = assertThrows(AssertionFailedError.class,
                () -> assertRejectsStaleFence(raw, 4, DEPOSIT, ROWS));
        assertEquals("the write was applied with stale fence 4: rows before " + BEFORE
                + " after [{id=1, balance=110, last_fence=5}, {id=2, balance=50, last_fence=0}]", error.getMessage());
        assertEquals(BEFORE, String.valueOf(error.getExpected().getValue()));
    }

    @Test
    void missingFenceAssertionFailsWhenTheWriteIsApplied() {
        AssertionFailedError error = assertThrows(AssertionFailedError.class,
                () -> assertRefusesWithoutFence(raw, DEPOSIT, ROWS));
        assertTrue(error.getMessage().startsWith("the write was applied with no fence in scope: rows before " + BEFORE),
                error.getMessage());
    }

    @Test
    void fluentAssertionFailsOnTheRawDataSourceToo() {
        AssertionFailedError error = assertThrows(AssertionFailedError.class,
                () -> assertThatWrite(raw, DEPOSIT).watching(ROWS).rejectsStaleFence(4));
        assertTrue(error.getMessage().startsWith("the write was applied with stale fence 4"), error.getMessage());
    }

    // --- other ways to fail ---

    @Test
    void staleAssertionFailsOnAnyOtherException() {
        SQLException boom = new SQLException("boom");
        AssertionFailedError error = assertThrows(AssertionFailedError.class,
                () -> assertRejectsStaleFence(fenced, 4, ds -> {
                    throw boom;
                }, ROWS));
        assertEquals("expected a StaleFenceException from the write with stale fence 4, but it threw "
                + "java.sql.SQLException: boom; the watched rows did not change", error.getMessage());
        assertSame(boom, error.getCause());
    }

    @Test
    void staleAssertionFailsWhenNothingHappens() {
        AssertionFailedError error = assertThrows(AssertionFailedError.class,
                () -> assertRejectsStaleFence(fenced, 4, ds -> { }, ROWS));
        assertTrue(error.getMessage().startsWith("the write with stale fence 4 completed without a StaleFenceException"
                + " and changed no watched row (" + BEFORE + ")"), error.getMessage());
    }

    @Test
    void staleAssertionFailsWhenPartOfTheActionWasApplied() {
        Snapshot accountsAndAudit = ds -> List.of(Snapshot.query(ROWS).take(ds),
                Snapshot.query("SELECT id FROM audit ORDER BY id").take(ds));
        AssertionFailedError error = assertThrows(AssertionFailedError.class,
                () -> assertRejectsStaleFence(fenced, 4, ds -> {
                    Sql.execute(ds, "INSERT INTO audit (id) VALUES (1)"); // not fenced, not in a transaction
                    DEPOSIT.run(ds);
                }, accountsAndAudit));
        assertTrue(error.getMessage().startsWith("the write with stale fence 4 raised a StaleFenceException, "
                + "yet the watched rows changed: rows before [" + BEFORE + ", []] after [" + BEFORE + ", [{id=1}]]"),
                error.getMessage());
    }

    @Test
    @SuppressWarnings("try") // the scope is only entered and left
    void staleAssertionFailsWhenTheActionUsesAFenceOfItsOwn() {
        AssertionFailedError error = assertThrows(AssertionFailedError.class,
                () -> assertRejectsStaleFence(fenced, 4, ds -> {
                    try (Fence.Scope own = Fence.enter(3)) {
                        DEPOSIT.run(ds);
                    }
                }, ROWS));
        assertTrue(error.getMessage().startsWith("a StaleFenceException was thrown for fence 3, not for the stale fence 4"),
                error.getMessage());
    }

    @Test
    @SuppressWarnings("try") // the scope is only entered and left
    void missingFenceAssertionNeedsNoFenceInScope() {
        try (Fence.Scope scope = Fence.enter(9)) {
            AssertionFailedError error = assertThrows(AssertionFailedError.class,
                    () -> assertRefusesWithoutFence(fenced, DEPOSIT, ROWS));
            assertTrue(error.getMessage().contains("fence 9 is current on this thread"), error.getMessage());
            assertEquals(OptionalLong.of(9), Fence.current());
        }
    }

    @Test
    void appliesAssertionFailsWhenTheWriteIsRejected() {
        AssertionFailedError error = assertThrows(AssertionFailedError.class,
                () -> assertAppliesWithFence(fenced, 4, DEPOSIT, ROWS));
        assertTrue(error.getMessage().startsWith("the write with fence 4 failed: dev.fencing.StaleFenceException: "),
                error.getMessage());
        assertInstanceOf(StaleFenceException.class, error.getCause());
    }

    @Test
    void appliesAssertionFailsWhenNothingChanges() {
        AssertionFailedError error = assertThrows(AssertionFailedError.class,
                () -> assertAppliesWithFence(fenced, 5, ds -> { }, ROWS));
        assertEquals("the write with fence 5 completed but changed no watched row: " + BEFORE, error.getMessage());
    }

    @Test
    void fenceScopeIsLeftAfterEveryAssertion() {
        assertAppliesWithFence(fenced, 5, DEPOSIT, ROWS);
        assertRejectsStaleFence(fenced, 4, DEPOSIT, ROWS);
        assertEquals(OptionalLong.empty(), Fence.current());
    }
}
