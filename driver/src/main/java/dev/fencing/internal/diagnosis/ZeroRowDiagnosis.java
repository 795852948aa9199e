package dev.fencing.internal.diagnosis;

import dev.fencing.FencingConfig;
import dev.fencing.FencingException;
import dev.fencing.StaleFenceException;
import dev.fencing.internal.sql.FencePlan;
import dev.fencing.internal.sql.ZeroRowCheck;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.OptionalLong;

/**
 * Tells, after a fenced write changed fewer rows than it should have, whether the fence was the
 * reason ({@code fencing.on-zero-rows}):
 * <ul>
 *   <li>{@code raise}: any fenced write that changed no row is stale;</li>
 *   <li>{@code diagnose}: an upsert that changed fewer rows than it proposed is stale
 *       ({@link ZeroRowCheck.Method#EXPECTED_ROWS}); a write that changed no row is stale when the
 *       newest fence among the rows its own predicate matches is one the comparison rejects
 *       ({@link ZeroRowCheck.Method#NEWEST_FENCE_QUERY}, run on the write's own connection, so in
 *       its transaction), and when no row matches the predicate, the newest fence among the rows
 *       its key conjuncts identify ({@link ZeroRowCheck#byKey()}). Anything else (no matching row, no check, a value that cannot be bound
 *       again) returns the database's count unchanged.</li>
 * </ul>
 * Forms whose count cannot show what their fenced writes changed (CTE writes, several statements,
 * upserts with a WHERE of their own: {@link ZeroRowCheck.Method#KEYS_AFTER_STATEMENT}) are read
 * after they ran, in both modes: a row their writes name by key holding a newer fence is stale,
 * and the exception says the statement's other effects stand.
 * One instance serves one write or one batch, reusing the query's statement across entries.
 */
public final class ZeroRowDiagnosis implements AutoCloseable {

    private final Connection database;
    private final FencingConfig config;
    private PreparedStatement query;
    private String querySql;

    private ZeroRowDiagnosis(Connection database, FencingConfig config) {
        this.database = database;
        this.config = config;
    }

    /**
     * Throws {@link StaleFenceException} when the single write of {@code plan} that carried
     * {@code fence} and reported {@code count} rows was rejected by the fence.
     *
     * @param values the application's values (prepared statements whose check needs them), else null
     */
    public static void afterWrite(DiagnosedConnection connection, FencePlan plan, long fence, long count, Object[] values)
            throws SQLException {
        if (!mayBeStale(connection.config(), plan, count)) {
            return;
        }
        StaleFenceException stale;
        try (ZeroRowDiagnosis diagnosis = new ZeroRowDiagnosis(connection.database(), connection.config())) {
            stale = diagnosis.stale(plan, fence, count, values);
        }
        if (stale != null) {
            throw stale;
        }
    }

    /** A diagnosis for the entries of one batch; close it when done. */
    public static ZeroRowDiagnosis forBatch(DiagnosedConnection connection) throws SQLException {
        return new ZeroRowDiagnosis(connection.database(), connection.config());
    }

    /** False when {@code count} rows is certainly what a current fence would have changed: no query needed. */
    public static boolean mayBeStale(FencingConfig config, FencePlan plan, long count) {
        if (plan.kind() != FencePlan.Kind.FENCED) {
            return false;
        }
        ZeroRowCheck keys = plan.zeroRowCheck();
        if (keys != null && keys.method() == ZeroRowCheck.Method.KEYS_AFTER_STATEMENT) {
            // the count cannot tell (CTE writes, several statements), or tells that a proposed row was not written
            return count != java.sql.Statement.EXECUTE_FAILED
                    && (!plan.countIsTheFencedWrite() || count < 0 || count < keys.expectedRows());
        }
        if (count < 0 || !plan.countIsTheFencedWrite()) {
            // Statement.SUCCESS_NO_INFO or EXECUTE_FAILED; or a count of another statement
            return false;
        }
        if (count == 0) {
            return config.onZeroRows() == FencingConfig.ZeroRows.RAISE || plan.zeroRowCheck() != null;
        }
        ZeroRowCheck check = plan.zeroRowCheck();
        return check != null && check.method() == ZeroRowCheck.Method.EXPECTED_ROWS && count < check.expectedRows();
    }

    /** The exception for a write that the fence rejected, or null when it was not (or cannot be told). */
    public StaleFenceException stale(FencePlan plan, long fence, long count, Object[] values) throws SQLException {
        if (!mayBeStale(config, plan, count)) {
            return null;
        }
        ZeroRowCheck check = plan.zeroRowCheck();
        if (check != null && check.method() == ZeroRowCheck.Method.EXPECTED_ROWS && count < check.expectedRows()) {
            return new StaleFenceException(fence, OptionalLong.empty(), plan.fencedTable());
        }
        if (config.onZeroRows() == FencingConfig.ZeroRows.RAISE && (count == 0 && plan.countIsTheFencedWrite()
                || check == null || check.method() != ZeroRowCheck.Method.KEYS_AFTER_STATEMENT)) {
            return new StaleFenceException(fence, OptionalLong.empty(), plan.fencedTable());
        }
        if (check != null && check.method() == ZeroRowCheck.Method.KEYS_AFTER_STATEMENT) {
            return staleByKeys(check, fence, values);
        }
        if (check == null || check.method() != ZeroRowCheck.Method.NEWEST_FENCE_QUERY) {
            return null;
        }
        OptionalLong newest = newestFence(check, values);
        if (newest.isEmpty() && check.byKey() != null) {
            // no row matches the whole predicate: read the row by its key (PRIMER.md), so that a
            // newer holder who changed the row out of the predicate (paid it) still makes this stale
            newest = newestFence(check.byKey(), values);
        }
        if (newest.isPresent() && !config.comparison().admits(newest.getAsLong(), fence)) {
            return new StaleFenceException(fence, newest, plan.fencedTable());
        }
        return null;
    }

    /**
     * True when a batch entry whose count came back as {@link java.sql.Statement#SUCCESS_NO_INFO}
     * (MariaDB Connector/J with {@code useBulkStmts=true}, pgjdbc's rewritten batches) must be
     * diagnosed: the same entries a count of 0 would send to the diagnosis.
     */
    public static boolean countUnknownNeedsDiagnosis(FencingConfig config, FencePlan plan, long count) {
        return count == java.sql.Statement.SUCCESS_NO_INFO && mayBeStale(config, plan, 0);
    }

    /**
     * The diagnosis of a batch entry whose count is unknown, read after the batch ran: stale when
     * a row its predicate (or, when none matches, its key conjuncts) identify holds a fence newer
     * than the entry's (an applied entry leaves its own fence on the rows it changed, a rejected
     * one leaves the newer fence it met). When that cannot be told (no query, values that cannot
     * be bound again, or under {@code strictly-newer} a row holding this very fence), it fails
     * closed with a {@link FencingException} that says how to get counts.
     */
    public StaleFenceException staleWithUnknownCount(FencePlan plan, long fence, Object[] values, int entry) throws SQLException {
        ZeroRowCheck check = plan.zeroRowCheck();
        if (check != null && check.method() == ZeroRowCheck.Method.KEYS_AFTER_STATEMENT) {
            return staleByKeys(check, fence, values); // read after the statement whatever its count
        }
        if (check == null || check.method() != ZeroRowCheck.Method.NEWEST_FENCE_QUERY) {
            throw unknownCount(plan, entry, "no query can tell it");
        }
        OptionalLong newest = newestFenceOrUnknown(check, values, plan, entry);
        if (newest.isEmpty() && check.byKey() != null) {
            newest = newestFenceOrUnknown(check.byKey(), values, plan, entry);
        }
        if (newest.isEmpty() || newest.getAsLong() < fence) {
            return null;
        }
        if (newest.getAsLong() > fence) {
            return new StaleFenceException(fence, newest, plan.fencedTable());
        }
        if (config.comparison() == FencingConfig.Comparison.STRICTLY_NEWER) {
            throw unknownCount(plan, entry, "the row holds this very fence, which strictly-newer would have rejected "
                    + "had it been there before");
        }
        return null;
    }

    private OptionalLong newestFenceOrUnknown(ZeroRowCheck check, Object[] values, FencePlan plan, int entry)
            throws SQLException {
        PreparedStatement statement = queryFor(check.query());
        if (!BoundValues.bind(values, check, statement)) {
            throw unknownCount(plan, entry, "its values cannot be bound again");
        }
        try (ResultSet rows = statement.executeQuery()) {
            if (rows.next()) {
                long newest = rows.getLong(1);
                if (!rows.wasNull()) {
                    return OptionalLong.of(newest);
                }
            }
        }
        return OptionalLong.empty();
    }

    private static FencingException unknownCount(FencePlan plan, int entry, String why) {
        return new FencingException("batch entry " + entry + " writes fenced table " + plan.fencedTable()
                + " and the JDBC driver returned SUCCESS_NO_INFO for it, so whether the fence rejected it is unknown ("
                + why + "); the batch ran, roll the transaction back: run fenced batches with counts (MariaDB "
                + "Connector/J: useBulkStmts=false; pgjdbc: reWriteBatchedInserts=false)");
    }

    /**
     * {@link ZeroRowCheck.Method#KEYS_AFTER_STATEMENT}, after the statement ran: stale when a row a
     * fenced write of it names by key holds a fence newer than the statement's. A newer fence there
     * either stopped the write or arrived after it: the holder is stale either way. A row holding
     * this very fence tells nothing (the write may have set it), so under {@code strictly-newer} a
     * second write with one fence is not reported here. Null when none does, or when a value
     * cannot be bound again.
     */
    private StaleFenceException staleByKeys(ZeroRowCheck check, long fence, Object[] values) throws SQLException {
        for (ZeroRowCheck part = check; part != null; part = part.more()) {
            PreparedStatement statement = queryFor(part.query());
            if (!BoundValues.bind(values, part, statement)) {
                return null;
            }
            try (ResultSet rows = statement.executeQuery()) {
                if (!rows.next()) {
                    continue;
                }
                for (int column = 1; column <= part.columns(); column++) {
                    long newest = rows.getLong(column);
                    if (!rows.wasNull() && newest > fence) {
                        return new StaleFenceException(staleByKeyMessage(fence, newest, part.table(column)), fence,
                                OptionalLong.of(newest), part.table(column));
                    }
                }
            }
        }
        return null;
    }

    private static String staleByKeyMessage(long fence, long newest, String table) {
        return "stale fence: a write to " + table + " in this statement carried fence " + fence + " but a row it names"
                + " by key holds fence " + newest + ", so that write changed nothing there. The statement ran: its other"
                + " effects stand (nothing was rolled back; in a transaction, roll it back). The lock that issued this"
                + " fence has passed to another holder: stop writing, do not retry.";
    }

    /**
     * True when {@code plan}'s check reads the rows by key after the statement whatever the count
     * (its count cannot tell): it is run as soon as the statement returns, rows or not.
     */
    public static boolean readsWhateverTheCount(FencePlan plan) {
        ZeroRowCheck check = plan.zeroRowCheck();
        return check != null && check.method() == ZeroRowCheck.Method.KEYS_AFTER_STATEMENT
                && !plan.countIsTheFencedWrite();
    }

    private OptionalLong newestFence(ZeroRowCheck check, Object[] values) throws SQLException {
        PreparedStatement statement = queryFor(check.query());
        if (!BoundValues.bind(values, check, statement)) {
            return OptionalLong.empty();
        }
        try (ResultSet rows = statement.executeQuery()) {
            if (rows.next()) {
                long newest = rows.getLong(1);
                if (!rows.wasNull()) {
                    return OptionalLong.of(newest);
                }
            }
        }
        return OptionalLong.empty();
    }

    private PreparedStatement queryFor(String sql) throws SQLException {
        if (query != null && !sql.equals(querySql)) {
            query.close();
            query = null;
        }
        if (query == null) {
            query = database.prepareStatement(sql);
            querySql = sql;
        } else {
            query.clearParameters();
        }
        return query;
    }

    @Override
    public void close() throws SQLException {
        if (query != null) {
            query.close();
            query = null;
        }
    }
}
