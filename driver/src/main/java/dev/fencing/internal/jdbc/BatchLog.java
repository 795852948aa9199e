package dev.fencing.internal.jdbc;

import dev.fencing.internal.diagnosis.BatchCheck;
import dev.fencing.internal.epoch.EpochBatch;
import dev.fencing.internal.diagnosis.DiagnosedConnection;
import dev.fencing.internal.sql.FencePlan;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The fenced entries of one batch, as they were added: each entry's plan, the fence bound to it
 * and (when its diagnosis needs them) the application's values. After the batch ran, entries the
 * fence rejected are reported together in one {@link StaleFenceException}.
 */
public final class BatchLog implements EpochBatch {

    private final List<BatchCheck.Entry> fenced = new ArrayList<>();
    private int size;

    /** The distinct (lock, fence) pairs of the entries that write epoch-mode tables. */
    private List<String> epochLocks;
    private long[] epochFences;
    private String epochModeTable;
    private boolean controlsTransaction;
    /** How many entries hand their fence to the database guard's trigger in their own text. */
    private int carrying;
    /** The fence the first entry was admitted under (0: none), and whether a later one differs. */
    private long firstFence;
    private boolean fencesDiffer;

    /**
     * Records the next entry of the batch; only fenced entries are kept. An entry that writes an
     * epoch-mode table records the lock its fence was admitted with (admitted: it has one).
     */
    void add(FencePlan plan, long fence, String lock, Object[] values) {
        if (plan.kind() == FencePlan.Kind.FENCED) {
            fenced.add(new BatchCheck.Entry(size, plan, fence, values));
            if (plan.writesEpochTable()) {
                addEpoch(lock, fence, plan.fencedTable());
            }
        }
        controlsTransaction |= plan.controlsTransaction();
        if (size == 0) {
            firstFence = fence;
        } else if (fence != firstFence) {
            fencesDiffer = true;
        }
        if (plan.carriesTheFence()) {
            carrying++;
        }
        size++;
    }

    /** How many entries were added. */
    int size() {
        return size;
    }

    private void addEpoch(String lock, long fence, String table) {
        if (epochLocks == null) {
            epochLocks = new ArrayList<>(2);
            epochFences = new long[2];
            epochModeTable = table;
        }
        for (int i = 0; i < epochLocks.size(); i++) {
            if (epochFences[i] == fence && epochLocks.get(i).equals(lock)) {
                return;
            }
        }
        if (epochLocks.size() == epochFences.length) {
            epochFences = java.util.Arrays.copyOf(epochFences, epochFences.length * 2);
        }
        epochFences[epochLocks.size()] = fence;
        epochLocks.add(lock);
    }

    /** True when every entry hands the fence it was added under to the database guard's trigger in its own text. */
    boolean everyEntryCarriesItsFence() {
        return size > 0 && carrying == size;
    }

    /** True when every entry, fenced or not, was added under {@code fence} (0: none). */
    boolean everyEntryAddedUnder(long fence) {
        return size == 0 || !fencesDiffer && firstFence == fence;
    }

    /** The fenced tables the entries write, each once. */
    java.util.Set<String> fencedTables() {
        java.util.Set<String> tables = new java.util.LinkedHashSet<>();
        for (BatchCheck.Entry entry : fenced) {
            tables.add(entry.plan().fencedTable());
        }
        return tables;
    }

    /** The fenced table of the first fenced entry, or null when no entry writes a fenced table. */
    String firstFencedTable() {
        return fenced.isEmpty() ? null : fenced.get(0).plan().fencedTable();
    }

    public int epochWrites() {
        return epochLocks == null ? 0 : epochLocks.size();
    }

    /** The locks of those pairs (a new array). */
    public String[] epochLocks() {
        return epochLocks.toArray(new String[0]);
    }

    /** The fences of those pairs, in the order of {@link #epochLocks()} (a new array). */
    public long[] epochFences() {
        return java.util.Arrays.copyOf(epochFences, epochLocks.size());
    }

    /** The first epoch-mode table an entry writes. */
    public String epochModeTable() {
        return epochModeTable;
    }

    /** True when an entry's text begins, ends or rolls back a transaction itself. */
    public boolean controlsTransaction() {
        return controlsTransaction;
    }

    /** After the batch ran: its fenced entries whose counts may mean a stale fence are diagnosed ({@link BatchCheck}). */
    void check(DiagnosedConnection connection, int[] counts) throws SQLException {
        if (!fenced.isEmpty()) {
            BatchCheck.check(connection, fenced, counts);
        }
    }

    /** The same, for {@code executeLargeBatch}. */
    void check(DiagnosedConnection connection, long[] counts) throws SQLException {
        if (!fenced.isEmpty()) {
            BatchCheck.check(connection, fenced, counts);
        }
    }
}
