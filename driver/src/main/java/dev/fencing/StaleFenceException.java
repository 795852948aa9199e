package dev.fencing;

import java.util.Arrays;
import java.util.OptionalLong;

/**
 * A write carried a fence older than one the database had already applied, so the database
 * did not apply it (SQLState {@code ZF001}). The holder of that fence has lost its lock: it must
 * stop writing, not retry.
 *
 * <p>For a batch, {@link #staleBatchEntries()} gives the indexes of the entries that were
 * rejected and {@link #updateCounts()} the counts the database returned for the whole batch.
 */
public class StaleFenceException extends FencingException {

    private static final long serialVersionUID = 1L;

    /** SQLState of a rejected stale write. */
    public static final String SQL_STATE = "ZF001";

    private static final long UNKNOWN = Long.MIN_VALUE;

    private final long attemptedFence;
    private final long currentFence;
    private final String table;
    private final int[] staleBatchEntries;
    private final long[] updateCounts;

    public StaleFenceException(long attemptedFence, OptionalLong currentFence, String table) {
        this(attemptedFence, currentFence, table, new int[0], new long[0]);
    }

    public StaleFenceException(long attemptedFence, OptionalLong currentFence, String table,
                               int[] staleBatchEntries, long[] updateCounts) {
        super(message(attemptedFence, currentFence, table, staleBatchEntries), SQL_STATE, null);
        this.attemptedFence = attemptedFence;
        this.currentFence = currentFence.isPresent() ? currentFence.getAsLong() : UNKNOWN;
        this.table = table;
        this.staleBatchEntries = staleBatchEntries.clone();
        this.updateCounts = updateCounts.clone();
    }

    /**
     * A rejection explained by {@code message} (for example a claim of the epoch row that found a
     * newer tenure), rather than by the standard text about a row's fence.
     */
    public StaleFenceException(String message, long attemptedFence, OptionalLong currentFence, String table) {
        super(message, SQL_STATE, null);
        this.attemptedFence = attemptedFence;
        this.currentFence = currentFence.isPresent() ? currentFence.getAsLong() : UNKNOWN;
        this.table = table;
        this.staleBatchEntries = new int[0];
        this.updateCounts = new long[0];
    }

    private static String message(long attempted, OptionalLong current, String table, int[] entries) {
        StringBuilder text = new StringBuilder("stale fence: the write to ").append(table)
                .append(" carried fence ").append(attempted);
        if (current.isPresent()) {
            text.append(" but the row already holds fence ").append(current.getAsLong());
        } else {
            text.append(" and changed no row (a newer fence may have been applied)");
        }
        if (entries.length > 0) {
            text.append("; stale batch entries ").append(Arrays.toString(entries));
        }
        return text.append(". The lock that issued this fence has passed to another holder: stop writing, do not retry.")
                .toString();
    }

    /** The fence the rejected write carried. */
    public long attemptedFence() {
        return attemptedFence;
    }

    /** The newer fence found on the row, when it is known. */
    public OptionalLong currentFence() {
        return currentFence == UNKNOWN ? OptionalLong.empty() : OptionalLong.of(currentFence);
    }

    /** The fenced table the write was aimed at. */
    public String table() {
        return table;
    }

    /** Indexes (0-based) of the rejected entries when the write was a batch; else empty. */
    public int[] staleBatchEntries() {
        return staleBatchEntries.clone();
    }

    /** The update counts of the whole batch as the database returned them; else empty. */
    public long[] updateCounts() {
        return updateCounts.clone();
    }
}
