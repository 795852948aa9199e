package dev.fencing.testing;

import dev.fencing.Fence;
import dev.fencing.FencingException;
import dev.fencing.MissingFenceException;
import dev.fencing.StaleFenceException;
import dev.fencing.UnfenceableStatementException;
import org.opentest4j.AssertionFailedError;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Assertions that prove a write path of <em>your</em> code is fenced: that it is rejected when
 * it carries a stale fence, refused when it carries none, and applied when its fence is
 * current, and that a rejected write changed nothing.
 *
 * <p>Each assertion runs your write action against the data source inside (or outside) a fence
 * scope, and compares a snapshot of the rows the action may touch, taken before and after. It
 * fails with an {@link AssertionFailedError} that says what happened, e.g. <i>"the write was
 * applied with stale fence 3: rows before [...] after [...]"</i>. Plain JUnit; no AssertJ.
 *
 * <pre>{@code
 * DataSource fenced = new FencingDataSource(dataSource, FencingConfig.builder().tables("accounts").build());
 * WriteAction deposit = ds -> accounts.deposit(ds, 1, 10);       // your code under test
 * String rows = "SELECT id, balance, last_fence FROM accounts ORDER BY id";
 *
 * assertAppliesWithFence(fenced, 5, deposit, rows);             // holder B, fence 5, writes
 * StaleFenceException e = assertRejectsStaleFence(fenced, 4, deposit, rows);  // stale holder A
 * assertRefusesWithoutFence(fenced, deposit, rows);             // no fence: refused, nothing sent
 *
 * // the same, fluently
 * assertThatWrite(fenced, deposit).watching(rows).rejectsStaleFence(4);
 * }</pre>
 *
 * <p>A stale fence is only stale once a newer one is on the rows: apply a newer fence first
 * (as above), or seed the rows' fence column. Pointed at a data source that is not fenced, the
 * assertions fail: that is how they prove your write goes through fencing at all.
 */
public final class FencingAssertions {

    private static final int SHOWN_CHARS = 2000;

    private FencingAssertions() {
    }

    /** The write under test: your own code, given the data source to write through. */
    @FunctionalInterface
    public interface WriteAction {
        void run(DataSource dataSource) throws Exception;
    }

    /**
     * Reads the state a write may change, to compare before and after. Values are compared with
     * {@link Object#equals} and shown with {@link String#valueOf}.
     */
    @FunctionalInterface
    public interface Snapshot {
        Object take(DataSource dataSource) throws Exception;

        /**
         * Runs {@code sql} (a query; give it an {@code ORDER BY} so row order is stable) and
         * returns its rows as a list of column-label-to-value maps. Binary values become hex
         * strings so that they compare by content.
         */
        static Snapshot query(String sql) {
            Objects.requireNonNull(sql, "sql");
            return dataSource -> rows(dataSource, sql);
        }
    }

    /**
     * Runs {@code action} under {@code Fence.enter(staleToken)} and asserts that it threw a
     * {@link StaleFenceException} for that fence (itself, or as a cause or next exception of
     * what it threw) and that the snapshot did not change.
     *
     * @return the {@code StaleFenceException}, for further checks
     */
    public static StaleFenceException assertRejectsStaleFence(DataSource dataSource, long staleToken,
                                                              WriteAction action, String snapshotQuery) {
        return assertRejectsStaleFence(dataSource, staleToken, action, Snapshot.query(snapshotQuery));
    }

    /** Like {@link #assertRejectsStaleFence(DataSource, long, WriteAction, String)}, with a snapshot of your own. */
    public static StaleFenceException assertRejectsStaleFence(DataSource dataSource, long staleToken,
                                                              WriteAction action, Snapshot snapshot) {
        Outcome outcome = Outcome.of(dataSource, OptionalLong.of(staleToken), action, snapshot);
        String write = "the write with stale fence " + staleToken;
        StaleFenceException stale = outcome.find(StaleFenceException.class);
        if (stale != null) {
            if (stale.attemptedFence() != staleToken) {
                throw outcome.failure("a StaleFenceException was thrown for fence " + stale.attemptedFence()
                        + ", not for the stale fence " + staleToken + " the write ran under (does the action enter a fence of its own?)");
            }
            if (outcome.changed()) {
                throw outcome.failure(write + " raised a StaleFenceException, yet the watched rows changed: " + outcome.rows());
            }
            return stale;
        }
        if (outcome.thrown != null) {
            throw outcome.failure("expected a StaleFenceException from " + write + ", but it threw " + describe(outcome.thrown)
                    + "; " + outcome.rowsInBrief());
        }
        if (outcome.changed()) {
            throw outcome.failure("the write was applied with stale fence " + staleToken + ": " + outcome.rows());
        }
        throw outcome.failure(write + " completed without a StaleFenceException and changed no watched row ("
                + show(outcome.before) + "). Is the data source fenced, is the table in fencing.tables, "
                + "and does a row the write targets hold a fence newer than " + staleToken + "?");
    }

    /**
     * Runs {@code action} with no fence in scope and asserts that it was refused with a
     * {@link MissingFenceException} or an {@link UnfenceableStatementException} (itself, or as a
     * cause of what it threw) and that the snapshot did not change. The calling thread must
     * have no fence in scope.
     *
     * @return the refusal, for further checks
     */
    public static FencingException assertRefusesWithoutFence(DataSource dataSource, WriteAction action, String snapshotQuery) {
        return assertRefusesWithoutFence(dataSource, action, Snapshot.query(snapshotQuery));
    }

    /** Like {@link #assertRefusesWithoutFence(DataSource, WriteAction, String)}, with a snapshot of your own. */
    public static FencingException assertRefusesWithoutFence(DataSource dataSource, WriteAction action, Snapshot snapshot) {
        OptionalLong current = Fence.current();
        if (current.isPresent()) {
            throw new AssertionFailedError("assertRefusesWithoutFence needs no fence in scope, but fence "
                    + current.getAsLong() + " is current on this thread; call it outside Fence.enter(..)");
        }
        Outcome outcome = Outcome.of(dataSource, OptionalLong.empty(), action, snapshot);
        FencingException refusal = outcome.find(MissingFenceException.class);
        if (refusal == null) {
            refusal = outcome.find(UnfenceableStatementException.class);
        }
        if (refusal != null) {
            if (outcome.changed()) {
                throw outcome.failure("the write with no fence was refused (" + describe(refusal)
                        + "), yet the watched rows changed: " + outcome.rows());
            }
            return refusal;
        }
        if (outcome.thrown != null) {
            throw outcome.failure("expected a MissingFenceException from the write with no fence in scope, but it threw "
                    + describe(outcome.thrown) + "; " + outcome.rowsInBrief());
        }
        if (outcome.changed()) {
            throw outcome.failure("the write was applied with no fence in scope: " + outcome.rows());
        }
        throw outcome.failure("the write with no fence in scope completed without a MissingFenceException and changed no "
                + "watched row (" + show(outcome.before) + "). Is the data source fenced, and is the table in fencing.tables?");
    }

    /**
     * Runs {@code action} under {@code Fence.enter(token)} and asserts that it completed and
     * changed the snapshot (a fenced write at least sets the fence column, unless the row holds
     * {@code token} already).
     */
    public static void assertAppliesWithFence(DataSource dataSource, long token, WriteAction action, String snapshotQuery) {
        assertAppliesWithFence(dataSource, token, action, Snapshot.query(snapshotQuery));
    }

    /** Like {@link #assertAppliesWithFence(DataSource, long, WriteAction, String)}, with a snapshot of your own. */
    public static void assertAppliesWithFence(DataSource dataSource, long token, WriteAction action, Snapshot snapshot) {
        Outcome outcome = Outcome.of(dataSource, OptionalLong.of(token), action, snapshot);
        if (outcome.thrown != null) {
            throw outcome.failure("the write with fence " + token + " failed: " + describe(outcome.thrown)
                    + "; " + outcome.rowsInBrief());
        }
        if (!outcome.changed()) {
            throw outcome.failure("the write with fence " + token + " completed but changed no watched row: "
                    + show(outcome.before));
        }
    }

    /**
     * The fluent entry point: {@code assertThatWrite(ds, action).watching(query).rejectsStaleFence(3)}.
     * Without {@code watching(..)} nothing is compared (every snapshot is equal).
     */
    public static WriteAssert assertThatWrite(DataSource dataSource, WriteAction action) {
        return new WriteAssert(dataSource, action, ignored -> null);
    }

    /** A write under test and what to watch; immutable. See {@link #assertThatWrite(DataSource, WriteAction)}. */
    public static final class WriteAssert {
        private final DataSource dataSource;
        private final WriteAction action;
        private final Snapshot snapshot;

        private WriteAssert(DataSource dataSource, WriteAction action, Snapshot snapshot) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            this.action = Objects.requireNonNull(action, "action");
            this.snapshot = Objects.requireNonNull(snapshot, "snapshot");
        }

        /** Watches the rows of {@code snapshotQuery} (see {@link Snapshot#query(String)}). */
        public WriteAssert watching(String snapshotQuery) {
            return watching(Snapshot.query(snapshotQuery));
        }

        public WriteAssert watching(Snapshot newSnapshot) {
            return new WriteAssert(dataSource, action, newSnapshot);
        }

        /** See {@link FencingAssertions#assertRejectsStaleFence(DataSource, long, WriteAction, Snapshot)}. */
        public StaleFenceException rejectsStaleFence(long staleToken) {
            return assertRejectsStaleFence(dataSource, staleToken, action, snapshot);
        }

        /** See {@link FencingAssertions#assertRefusesWithoutFence(DataSource, WriteAction, Snapshot)}. */
        public FencingException refusesWithoutFence() {
            return assertRefusesWithoutFence(dataSource, action, snapshot);
        }

        /** See {@link FencingAssertions#assertAppliesWithFence(DataSource, long, WriteAction, Snapshot)}. */
        public WriteAssert appliesWithFence(long token) {
            assertAppliesWithFence(dataSource, token, action, snapshot);
            return this;
        }
    }

    /** What one run of a write did: what it threw and the snapshots around it. */
    private static final class Outcome {
        final Object before;
        final Object after;
        final Throwable thrown;

        private Outcome(Object before, Object after, Throwable thrown) {
            this.before = before;
            this.after = after;
            this.thrown = thrown;
        }

        @SuppressWarnings("try") // the scope is only entered and left
        static Outcome of(DataSource dataSource, OptionalLong token, WriteAction action, Snapshot snapshot) {
            Objects.requireNonNull(dataSource, "dataSource");
            Objects.requireNonNull(action, "action");
            Objects.requireNonNull(snapshot, "snapshot");
            Object before = take(snapshot, dataSource, "before");
            Throwable thrown = null;
            try (Fence.Scope scope = token.isPresent() ? Fence.enter(token.getAsLong()) : null) {
                action.run(dataSource);
            } catch (VirtualMachineError fatal) {
                throw fatal;
            } catch (Throwable t) {
                thrown = t;
            }
            return new Outcome(before, take(snapshot, dataSource, "after"), thrown);
        }

        boolean changed() {
            return !Objects.equals(before, after);
        }

        /** The first {@code type} among what was thrown, its causes and next exceptions. */
        <T extends Throwable> T find(Class<T> type) {
            Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
            List<Throwable> queue = new ArrayList<>();
            if (thrown != null) {
                queue.add(thrown);
            }
            while (!queue.isEmpty()) {
                Throwable next = queue.remove(0);
                if (next == null || !seen.add(next)) {
                    continue;
                }
                if (type.isInstance(next)) {
                    return type.cast(next);
                }
                queue.add(next.getCause());
                if (next instanceof SQLException) {
                    queue.add(((SQLException) next).getNextException());
                }
            }
            return null;
        }

        String rows() {
            return "rows before " + show(before) + " after " + show(after);
        }

        String rowsInBrief() {
            return changed() ? "the watched rows changed: " + rows() : "the watched rows did not change";
        }

        AssertionFailedError failure(String message) {
            return new AssertionFailedError(message, before, after, thrown);
        }

        private static Object take(Snapshot snapshot, DataSource dataSource, String when) {
            try {
                return snapshot.take(dataSource);
            } catch (Exception e) {
                throw new IllegalStateException("the snapshot " + when + " the write failed: " + e, e);
            }
        }
    }

    private static List<Map<String, Object>> rows(DataSource dataSource, String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection();
             Statement statement = connection.createStatement();
             ResultSet resultSet = statement.executeQuery(sql)) {
            ResultSetMetaData meta = resultSet.getMetaData();
            List<Map<String, Object>> rows = new ArrayList<>();
            while (resultSet.next()) {
                Map<String, Object> row = new LinkedHashMap<>();
                for (int column = 1; column <= meta.getColumnCount(); column++) {
                    Object value = resultSet.getObject(column);
                    row.put(meta.getColumnLabel(column), value instanceof byte[] ? "0x" + HexFormat.of().formatHex((byte[]) value) : value);
                }
                rows.add(row);
            }
            return rows;
        }
    }

    private static String describe(Throwable thrown) {
        return thrown.getClass().getName() + ": " + thrown.getMessage();
    }

    private static String show(Object snapshot) {
        String text = String.valueOf(snapshot);
        return text.length() <= SHOWN_CHARS ? text : text.substring(0, SHOWN_CHARS) + "... (" + text.length() + " chars)";
    }
}
