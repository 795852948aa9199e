package dev.fencing.internal.diagnosis;

import dev.fencing.StaleFenceException;
import dev.fencing.internal.sql.FencePlan;

import java.sql.SQLException;
import java.util.List;

/**
 * The zero-row check of a batch: after it ran, every fenced entry whose count may mean a stale
 * fence is diagnosed ({@link ZeroRowDiagnosis}, one connection for the whole batch), and the
 * entries the fence rejected are reported together in one {@link StaleFenceException}.
 */
public final class BatchCheck {

    /** A fenced entry of a batch: its position, plan, the fence bound to it and (when the diagnosis needs them) the application's values. */
    public record Entry(int index, FencePlan plan, long fence, Object[] values) {
    }

    private BatchCheck() {
    }

    /** {@link #check(DiagnosedConnection, List, long[])} for the counts of {@code executeBatch}. */
    public static void check(DiagnosedConnection connection, List<Entry> fenced, int[] counts) throws SQLException {
        long[] large = new long[counts.length];
        for (int i = 0; i < counts.length; i++) {
            large[i] = counts[i];
        }
        check(connection, fenced, large);
    }

    /** Throws one {@link StaleFenceException} naming every entry the fence rejected. */
    public static void check(DiagnosedConnection connection, List<Entry> fenced, long[] counts) throws SQLException {
        int[] stale = null;
        int staleCount = 0;
        StaleFenceException first = null;
        ZeroRowDiagnosis diagnosis = null;
        try {
            for (Entry entry : fenced) {
                if (entry.index >= counts.length) {
                    continue;
                }
                boolean unknown = ZeroRowDiagnosis.countUnknownNeedsDiagnosis(connection.config(), entry.plan,
                        counts[entry.index]);
                if (!unknown && !ZeroRowDiagnosis.mayBeStale(connection.config(), entry.plan, counts[entry.index])) {
                    continue;
                }
                if (diagnosis == null) {
                    diagnosis = ZeroRowDiagnosis.forBatch(connection);
                }
                StaleFenceException rejected = unknown
                        ? diagnosis.staleWithUnknownCount(entry.plan, entry.fence, entry.values, entry.index)
                        : diagnosis.stale(entry.plan, entry.fence, counts[entry.index], entry.values);
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
