package dev.fencing.internal.sql;

import dev.fencing.UnfenceableStatementException;

import java.util.Arrays;

/**
 * What one SQL text needs in order to run under a fence. Immutable, independent of any fence
 * value, and shared by every thread and connection that runs the same text: the fence is bound
 * (or rendered from its {@code long}) at execution time.
 */
public final class FencePlan {

    /** What the statement does to fenced tables. */
    public enum Kind {
        /** Names no fenced table (or is an allowed procedure call): send it unchanged, no fence needed. */
        PASS_THROUGH,
        /** Reads fenced tables but writes none: send it unchanged, no fence needed. */
        READ,
        /** Writes fenced tables: send {@link #preparedSql()} with the fence bound. */
        FENCED,
        /** Would write a fenced table but cannot carry the check: refuse, send nothing. */
        REFUSED
    }

    private final Kind kind;
    private final String sql;
    private final String fencedTable;
    private final String[] pieces;
    private final String preparedSql;
    private final int[] databaseIndexes;
    private final int[] fenceIndexes;
    private final ZeroRowCheck zeroRowCheck;
    private final String refusal;
    private final boolean countIsTheFencedWrite;
    private final boolean writesEpochTable;
    private final boolean controlsTransaction;
    private final boolean changesSchema;
    /** Sent as written because the database guard's triggers check it (fencing.database-guard=required). */
    private final boolean checkedByGuard;

    private FencePlan(Kind kind, String sql, String fencedTable, String[] pieces, int[] databaseIndexes,
                      int[] fenceIndexes, ZeroRowCheck zeroRowCheck, String refusal, boolean countIsTheFencedWrite,
                      boolean writesEpochTable, boolean controlsTransaction) {
        this.kind = kind;
        this.sql = sql;
        this.fencedTable = fencedTable;
        this.pieces = pieces;
        this.preparedSql = pieces == null ? sql : String.join("?", pieces);
        this.databaseIndexes = databaseIndexes;
        this.fenceIndexes = fenceIndexes;
        this.zeroRowCheck = zeroRowCheck;
        this.refusal = refusal;
        this.countIsTheFencedWrite = countIsTheFencedWrite;
        this.writesEpochTable = writesEpochTable;
        this.controlsTransaction = controlsTransaction;
        this.changesSchema = false;
        this.checkedByGuard = false;
    }

    private FencePlan(FencePlan plan, boolean changesSchema, boolean checkedByGuard) {
        this.kind = plan.kind;
        this.sql = plan.sql;
        this.fencedTable = plan.fencedTable;
        this.pieces = plan.pieces;
        this.preparedSql = plan.preparedSql;
        this.databaseIndexes = plan.databaseIndexes;
        this.fenceIndexes = plan.fenceIndexes;
        this.zeroRowCheck = plan.zeroRowCheck;
        this.refusal = plan.refusal;
        this.countIsTheFencedWrite = plan.countIsTheFencedWrite;
        this.writesEpochTable = plan.writesEpochTable;
        this.controlsTransaction = plan.controlsTransaction;
        this.changesSchema = changesSchema;
        this.checkedByGuard = checkedByGuard;
    }

    private FencePlan(FencePlan template, String sql, java.util.function.UnaryOperator<String> derive) {
        this.kind = template.kind;
        this.sql = sql;
        this.fencedTable = template.fencedTable;
        if (template.pieces == null) {
            this.pieces = null;
            this.preparedSql = sql;
        } else {
            this.pieces = new String[template.pieces.length];
            for (int i = 0; i < pieces.length; i++) {
                pieces[i] = derive.apply(template.pieces[i]);
            }
            this.preparedSql = String.join("?", pieces);
        }
        this.databaseIndexes = template.databaseIndexes;
        this.fenceIndexes = template.fenceIndexes;
        this.zeroRowCheck = template.zeroRowCheck == null ? null : template.zeroRowCheck.withQueries(derive);
        this.refusal = template.refusal;
        this.countIsTheFencedWrite = template.countIsTheFencedWrite;
        this.writesEpochTable = template.writesEpochTable;
        this.controlsTransaction = template.controlsTransaction;
        this.changesSchema = template.changesSchema;
        this.checkedByGuard = template.checkedByGuard;
    }

    /**
     * This plan (a shape's template, see {@link ShapeCache}) for {@code sql}: every text derived
     * from the template's (the database's text, the zero-row queries) passed through {@code derive}.
     */
    FencePlan withText(String sql, java.util.function.UnaryOperator<String> derive) {
        return new FencePlan(this, sql, derive);
    }

    /** This plan, marked as changing the schema. */
    FencePlan withSchemaChange() {
        return changesSchema ? this : new FencePlan(this, true, checkedByGuard);
    }

    /**
     * True when the text may change the schema (CREATE, ALTER, DROP, RENAME): what the analyzer
     * learned from the metadata (keys, foreign-key cascades) is read again before the next plan.
     */
    public boolean changesSchema() {
        return changesSchema;
    }

    /** This plan, marked as relying on the database guard's triggers. */
    FencePlan markCheckedByGuard() {
        return new FencePlan(this, changesSchema, true);
    }

    static FencePlan passThrough(String sql) {
        return new FencePlan(Kind.PASS_THROUGH, sql, null, null, null, NO_FENCES, null, null, false, false, false);
    }

    /** A text that names no fenced table but begins, ends or rolls back a transaction (or part of one). */
    static FencePlan transactionControl(String sql) {
        return new FencePlan(Kind.PASS_THROUGH, sql, null, null, null, NO_FENCES, null, null, false, false, true);
    }

    static FencePlan read(String sql, String fencedTable, boolean controlsTransaction) {
        return new FencePlan(Kind.READ, sql, fencedTable, null, null, NO_FENCES, null, null, false, false,
                controlsTransaction);
    }

    static FencePlan refused(String sql, String fencedTable, String reason) {
        return new FencePlan(Kind.REFUSED, sql, fencedTable, null, null, NO_FENCES, null, reason, false, false, false);
    }

    private static final int[] NO_FENCES = new int[0];

    /**
     * @param pieces          the database's text split at the fence placeholders
     *                        (so {@code pieces.length - 1} fences)
     * @param databaseIndexes for application parameter {@code i} (1-based), at {@code [i - 1]}, its
     *                        index in the database's text
     * @param fenceIndexes    the database's parameter indexes that receive the fence
     * @param countIsTheFencedWrite true when the statement's update count is the fenced write's own
     * @param writesEpochTable true when it writes a table in epoch mode (the guard must be checked)
     * @param controlsTransaction true when it also begins, ends or rolls back a transaction
     */
    static FencePlan fenced(String sql, String fencedTable, String[] pieces, int[] databaseIndexes,
                            int[] fenceIndexes, ZeroRowCheck zeroRowCheck, boolean countIsTheFencedWrite,
                            boolean writesEpochTable, boolean controlsTransaction) {
        if (fenceIndexes.length != pieces.length - 1) {
            throw new IllegalStateException("fence placeholders and indexes disagree for: " + sql);
        }
        return new FencePlan(Kind.FENCED, sql, fencedTable, pieces, databaseIndexes, fenceIndexes,
                zeroRowCheck, null, countIsTheFencedWrite, writesEpochTable, controlsTransaction);
    }

    public Kind kind() {
        return kind;
    }

    /** The SQL text as the application wrote it. */
    public String sql() {
        return sql;
    }

    /** The first fenced table the statement names, as configured; null for {@link Kind#PASS_THROUGH}. */
    public String fencedTable() {
        return fencedTable;
    }

    /** True when the statement names a fenced table (reads included). */
    public boolean namesFencedTable() {
        return kind != Kind.PASS_THROUGH;
    }

    /** The text to prepare on the database: the application's SQL with the check spliced in. */
    public String preparedSql() {
        return preparedSql;
    }

    /** How many parameters the application's text has. */
    public int parameterCount() {
        return databaseIndexes == null ? 0 : databaseIndexes.length;
    }

    /**
     * The database's index of application parameter {@code applicationIndex} (1-based), or -1
     * when the application's text has no such parameter.
     */
    public int databaseIndex(int applicationIndex) {
        if (databaseIndexes == null) {
            return applicationIndex;
        }
        if (applicationIndex < 1 || applicationIndex > databaseIndexes.length) {
            return -1;
        }
        return databaseIndexes[applicationIndex - 1];
    }

    /** The database parameter indexes (1-based) to bind with the fence. Do not modify. */
    public int[] fenceIndexes() {
        return fenceIndexes;
    }

    /**
     * The database's text with the fence rendered as a literal, for statements that carry no
     * parameters of their own (plain {@link java.sql.Statement}). The literal comes from the
     * {@code long}, never from application text.
     */
    public String renderWithFence(long fence) {
        if (pieces == null) {
            return sql;
        }
        String literal = Long.toString(fence);
        StringBuilder text = new StringBuilder(preparedSql.length() + fenceIndexes.length * literal.length());
        text.append(pieces[0]);
        for (int i = 1; i < pieces.length; i++) {
            text.append(literal).append(pieces[i]);
        }
        return text.toString();
    }

    /** How to diagnose a fenced write that changed no row; null when it cannot be diagnosed. */
    public ZeroRowCheck zeroRowCheck() {
        return zeroRowCheck;
    }

    /**
     * True when the update count the database returns for this text is the count of its one fenced
     * write: one statement, whose fenced write is not inside a CTE. Otherwise a count may belong to
     * another statement and says nothing about the fence.
     */
    public boolean countIsTheFencedWrite() {
        return countIsTheFencedWrite;
    }

    /**
     * True when the statement writes a table in {@code epoch} mode: before it is sent, the current
     * transaction must have checked (and locked) the guard row of the fence's lock.
     */
    public boolean writesEpochTable() {
        return writesEpochTable;
    }

    /**
     * True when the text may begin, end or roll back the transaction it runs in (only reported when
     * epoch tables are configured): transaction control, and every statement that is not a plain
     * query or write (DDL commits implicitly on MariaDB and H2, {@code SET autocommit} ..). What the
     * connection knows about the current transaction no longer holds after it.
     */
    public boolean controlsTransaction() {
        return controlsTransaction;
    }

    /**
     * True when the front door lets this text through as written only because the database guard
     * checks its writes (procedure calls, MERGE, multi-table writes, forms whose zero rows cannot be
     * diagnosed ..): where the guard is missing, it must be refused.
     */
    public boolean checkedByGuard() {
        return checkedByGuard;
    }

    /** A new exception explaining why this statement is refused; only for {@link Kind#REFUSED}. */
    public UnfenceableStatementException refusal() {
        if (kind != Kind.REFUSED) {
            throw new IllegalStateException("not a refused statement: " + kind);
        }
        return new UnfenceableStatementException(fencedTable, refusal);
    }

    /** Why the statement is refused; null unless {@link Kind#REFUSED}. */
    public String refusalReason() {
        return refusal;
    }

    @Override
    public String toString() {
        return switch (kind) {
            case PASS_THROUGH, READ -> kind + (checkedByGuard ? " (checked by the database guard)" : "") + ": " + sql;
            case REFUSED -> "REFUSED (" + refusal + "): " + sql;
            case FENCED -> "FENCED " + fencedTable + (checkedByGuard ? " (checked by the database guard)" : "") + (writesEpochTable ? " (epoch guard)" : "") + ": " + preparedSql + " parameters "
                    + Arrays.toString(databaseIndexes) + " fence at " + Arrays.toString(fenceIndexes)
                    + (zeroRowCheck == null ? "" : "; zero rows: " + zeroRowCheck);
        };
    }
}
