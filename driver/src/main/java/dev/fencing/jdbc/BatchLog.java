package dev.fencing.jdbc;

import dev.fencing.StaleFenceException;
import dev.fencing.sql.FencePlan;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The fenced entries of one batch, as they were added: each entry's plan, the fence bound to it
 * and (when its diagnosis needs them) the application's values. After the batch ran, entries the
 * fence rejected are reported together in one {@link StaleFenceException}.
 */
final class BatchLog {

    private record Entry(int index, FencePlan plan, long fence, Object[] values) {
    }

    private final List<Entry> fenced = new ArrayList<>();
    private int size;

    /** Records the next entry of the batch; only fenced entries are kept. */
    void add(FencePlan plan, long fence, Object[] values) {
        if (plan.kind() == FencePlan.Kind.FENCED) {
            fenced.add(new Entry(size, plan, fence, values));
        }
        size++;
    }

    void check(FencedConnection connection, int[] counts) throws SQLException {
        if (fenced.isEmpty()) {
            return;
        }
        long[] large = new long[counts.length];
        for (int i = 0; i < counts.length; i++) {
            large[i] = counts[i];
        }
        check(connection, large);
    }

    /** Throws one {@link StaleFenceException} naming every entry the fence rejected. */
    void check(FencedConnection connection, long[] counts) throws SQLException {
        if (fenced.isEmpty()) {
            return;
        }
        int[] stale = null;
        int staleCount = 0;
        StaleFenceException first = null;
        ZeroRowDiagnosis diagnosis = null;
        try {
            for (Entry entry : fenced) {
                if (entry.index >= counts.length
                        || !ZeroRowDiagnosis.mayBeStale(connection.config(), entry.plan, counts[entry.index])) {
                    continue;
                }
                if (diagnosis == null) {
                    diagnosis = ZeroRowDiagnosis.forBatch(connection);
                }
                StaleFenceException rejected = diagnosis.stale(entry.plan, entry.fence, counts[entry.index], entry.values);
                if (rejected != null) {
                    if (first == null) {
                        first = rejected;
                        stale = new int[fenced.size()];
                    }
                    stale[staleCount++] = entry.index;
                }
            }
        } finally {
            if (diagnosis != null) {
                diagnosis.close();
            }
        }
        if (first != null) {
            int[] entries = java.util.Arrays.copyOf(stale, staleCount);
            throw new StaleFenceException(first.attemptedFence(), first.currentFence(), first.table(), entries, counts);
        }
    }
}
