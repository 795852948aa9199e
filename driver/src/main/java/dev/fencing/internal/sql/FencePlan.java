package dev.fencing.internal.sql;

import dev.fencing.UnfenceableStatementException;

import java.util.Arrays;
import java.util.function.UnaryOperator;

/**
 * What one SQL text needs in order to run under a fence: one of four kinds, each a record that
 * holds only what its kind has. Immutable, independent of any fence value, and shared by every
 * thread and connection that runs the same text: the fence is bound (or rendered from its
 * {@code long}) at execution time.
 *
 * <p>Callers switch over {@link #kind()}. The accessors below answer for every kind (a kind that
 * has no fence, no parameters of its own or no refusal answers with the neutral value), so that the
 * execution path reads a plan without casts or allocation.
 */
public sealed interface FencePlan permits FencePlan.PassThrough, FencePlan.Read, FencePlan.Fenced, FencePlan.Refused {

    /** What the statement does to fenced tables. */
    enum Kind {
        /** Names no fenced table (or is an allowed procedure call): send it unchanged, no fence needed. */
        PASS_THROUGH,
        /** Reads fenced tables but writes none: send it unchanged, no fence needed. */
        READ,
        /** Writes fenced tables: send {@link #preparedSql()} with the fence bound. */
        FENCED,
        /** Would write a fenced table but cannot carry the check: refuse, send nothing. */
        REFUSED
    }

    Kind kind();

    /** The SQL text as the application wrote it. */
    String sql();

    /**
     * True when the text may change the schema (CREATE, ALTER, DROP, RENAME): what the analyzer
     * learned from the metadata (keys, foreign-key cascades) is read again before the next plan.
     */
    boolean changesSchema();

    /** This plan, marked as changing the schema. */
    FencePlan withSchemaChange();

    /**
     * True when the text may hold a statement after its first (a semicolon outside strings, names,
     * comments and parentheses with a token after it), or could not be read: the server reads a
     * later statement after the earlier ones ran, maybe in another client encoding than the one
     * checked before the text was sent. Read by the analysis from the text's tokens.
     */
    boolean mayHoldSeveralStatements();

    /** This plan, with {@link #mayHoldSeveralStatements()} as the analysis read it. */
    FencePlan withSeveralStatements(boolean may);

    /** The first fenced table the statement names, as configured; null for {@link Kind#PASS_THROUGH}. */
    default String fencedTable() {
        return null;
    }

    /** True when the statement names a fenced table (reads included). */
    default boolean namesFencedTable() {
        return kind() != Kind.PASS_THROUGH;
    }

    /** The text to prepare on the database: the application's SQL with the check spliced in. */
    default String preparedSql() {
        return sql();
    }

    /** How many parameters the application's text has (counted only for {@link Kind#FENCED}). */
    default int parameterCount() {
        return 0;
    }

    /**
     * The database's index of application parameter {@code applicationIndex} (1-based), or -1
     * when the application's text has no such parameter.
     */
    default int databaseIndex(int applicationIndex) {
        return applicationIndex;
    }

    /** The database parameter indexes (1-based) to bind with the fence. Do not modify. */
    default int[] fenceIndexes() {
        return DatabaseText.NO_FENCES;
    }

    /**
     * The database's text with the fence rendered as a literal, for statements that carry no
     * parameters of their own (plain {@link java.sql.Statement}). The literal comes from the
     * {@code long}, never from application text.
     */
    default String renderWithFence(long fence) {
        return sql();
    }

    /**
     * True when the database's text hands the fence to the database guard's trigger by itself
     * ({@link FenceSlot#POSTGRES_CARRIED}): nothing needs to be set before it is sent.
     */
    default boolean carriesTheFence() {
        return false;
    }

    /** How to diagnose a fenced write that changed no row; null when it cannot be diagnosed. */
    default ZeroRowCheck zeroRowCheck() {
        return null;
    }

    /**
     * True when the update count the database returns for this text is the count of its one fenced
     * write: one statement, whose fenced write is not inside a CTE. Otherwise a count may belong to
     * another statement and says nothing about the fence.
     */
    default boolean countIsTheFencedWrite() {
        return false;
    }

    /**
     * True when the statement writes a table in {@code epoch} mode: before it is sent, the current
     * transaction must have checked (and locked) the guard row of the fence's lock.
     */
    default boolean writesEpochTable() {
        return false;
    }

    /**
     * True when the text may begin, end or roll back the transaction it runs in (only reported when
     * epoch tables are configured): transaction control, and every statement that is not a plain
     * query or write (DDL commits implicitly on MariaDB and H2, {@code SET autocommit} ..). What the
     * connection knows about the current transaction no longer holds after it.
     */
    default boolean controlsTransaction() {
        return false;
    }

    /**
     * True when the front door lets this text through as written only because the database guard
     * checks its writes (procedure calls, MERGE, multi-table writes, forms whose zero rows cannot be
     * diagnosed ..): where the guard is missing, it must be refused.
     */
    default boolean checkedByGuard() {
        return false;
    }

    /** A new exception explaining why this statement is refused; only for {@link Kind#REFUSED}. */
    default UnfenceableStatementException refusal() {
        throw new IllegalStateException("not a refused statement: " + kind());
    }

    /** Why the statement is refused; null unless {@link Kind#REFUSED}. */
    default String refusalReason() {
        return null;
    }

    // Until the analysis says otherwise (withSeveralStatements), a plan's text may hold several
    // statements: an answer nobody read fails closed.

    static PassThrough passThrough(String sql) {
        return new PassThrough(sql, false, false, false, true);
    }

    /** A text that names no fenced table but begins, ends or rolls back a transaction (or part of one). */
    static PassThrough transactionControl(String sql) {
        return new PassThrough(sql, true, false, false, true);
    }

    static Read read(String sql, String fencedTable, boolean controlsTransaction) {
        return new Read(sql, fencedTable, controlsTransaction, false, true);
    }

    static Refused refused(String sql, String fencedTable, String reason) {
        return new Refused(sql, fencedTable, reason, false, true);
    }

    /**
     * Names no fenced table (or is an allowed procedure call): sent unchanged, no fence needed.
     *
     * @param checkedByGuard sent as written because the database guard's triggers check what it
     *                       writes (fencing.database-guard=required)
     */
    record PassThrough(String sql, boolean controlsTransaction, boolean changesSchema, boolean checkedByGuard,
                       boolean mayHoldSeveralStatements) implements FencePlan {
        @Override
        public Kind kind() {
            return Kind.PASS_THROUGH;
        }

        @Override
        public PassThrough withSchemaChange() {
            return changesSchema ? this
                    : new PassThrough(sql, controlsTransaction, true, checkedByGuard, mayHoldSeveralStatements);
        }

        @Override
        public PassThrough withSeveralStatements(boolean may) {
            return may == mayHoldSeveralStatements ? this
                    : new PassThrough(sql, controlsTransaction, changesSchema, checkedByGuard, may);
        }


        @Override
        public String toString() {
            return kind() + (checkedByGuard ? " (checked by the database guard)" : "") + ": " + sql;
        }
    }

    /** Reads fenced tables but writes none: sent unchanged, no fence needed. */
    record Read(String sql, String fencedTable, boolean controlsTransaction, boolean changesSchema,
                boolean mayHoldSeveralStatements) implements FencePlan {
        @Override
        public Kind kind() {
            return Kind.READ;
        }

        @Override
        public Read withSchemaChange() {
            return changesSchema ? this : new Read(sql, fencedTable, controlsTransaction, true, mayHoldSeveralStatements);
        }

        @Override
        public Read withSeveralStatements(boolean may) {
            return may == mayHoldSeveralStatements ? this
                    : new Read(sql, fencedTable, controlsTransaction, changesSchema, may);
        }

        /** This plan (a shape's template, see {@link ShapeCache}) for {@code sql}. */
        Read withText(String sql) {
            return new Read(sql, fencedTable, controlsTransaction, changesSchema, mayHoldSeveralStatements);
        }

        @Override
        public String toString() {
            return kind() + ": " + sql;
        }
    }

    /** Would write a fenced table but cannot carry the check: refused, nothing is sent. */
    record Refused(String sql, String fencedTable, String refusalReason, boolean changesSchema,
                   boolean mayHoldSeveralStatements) implements FencePlan {
        @Override
        public Kind kind() {
            return Kind.REFUSED;
        }

        @Override
        public Refused withSchemaChange() {
            return changesSchema ? this : new Refused(sql, fencedTable, refusalReason, true, mayHoldSeveralStatements);
        }

        @Override
        public Refused withSeveralStatements(boolean may) {
            return may == mayHoldSeveralStatements ? this
                    : new Refused(sql, fencedTable, refusalReason, changesSchema, may);
        }

        @Override
        public UnfenceableStatementException refusal() {
            return new UnfenceableStatementException(fencedTable, refusalReason);
        }

        @Override
        public String toString() {
            return "REFUSED (" + refusalReason + "): " + sql;
        }
    }

    /**
     * How a shape's texts are made from its template's ({@link ShapeCache}): each sentinel replaced
     * by the text's own literal. {@link #apply} answers a whole text; {@link #appendTo} writes it
     * into a text being built. Either throws {@link IllegalStateException} for a text whose
     * sentinels the analysis moved or cut.
     */
    interface Derivation extends UnaryOperator<String> {
        void appendTo(StringBuilder out, String template);

        /** How much longer (or shorter) a derived text is than its template, with each sentinel once. */
        int lengthChange();
    }

    /**
     * The database's text of a fenced write, split at the fence placeholders (so
     * {@code pieces().length - 1} fences), with the application's parameters mapped into it.
     *
     * <p>The text of a shape's plan is derived from its template's only when it is asked for: a
     * plain statement's text is rendered with its fence straight from the template's pieces
     * ({@link #render}), one copy per execution, and its pieces and prepared form are made only for
     * a prepare, the dump or a message. Immutable to its users; what is derived is derived once
     * (a race derives it twice, to the same text).
     */
    final class DatabaseText {

        private static final int[] NO_FENCES = new int[0];
        /** Room beyond the estimate of a derived text's length, for a sentinel the analysis copied. */
        private static final int RENDER_SLACK = 8;

        /** The template's text this one is derived from; null when this text is not derived. */
        private final DatabaseText template;
        private final Derivation derivation;
        private volatile String[] pieces;
        private volatile String preparedSql;
        private final int[] databaseIndexes;
        private final int[] fenceIndexes;
        private final FenceSlot slot;
        /** For a template: whether {@link #derivable} holds (0 not asked yet, 1 yes, 2 no). */
        private volatile byte derivable;

        /**
         * @param preparedSql     the pieces joined with the slot's prepared form
         * @param databaseIndexes for application parameter {@code i} (1-based), at {@code [i - 1]}, its
         *                        index in the database's text
         * @param fenceIndexes    the database's parameter indexes that receive the fence
         * @param slot            how each fence placeholder is written ({@link FenceSlot})
         */
        public DatabaseText(String[] pieces, String preparedSql, int[] databaseIndexes, int[] fenceIndexes,
                            FenceSlot slot) {
            if (fenceIndexes.length != pieces.length - 1) {
                throw new IllegalStateException("fence placeholders and indexes disagree for: " + preparedSql);
            }
            this.template = null;
            this.derivation = null;
            this.pieces = pieces;
            this.preparedSql = preparedSql;
            this.databaseIndexes = databaseIndexes;
            this.fenceIndexes = fenceIndexes;
            this.slot = slot;
        }

        private DatabaseText(DatabaseText template, Derivation derivation) {
            this.template = template;
            this.derivation = derivation;
            this.databaseIndexes = template.databaseIndexes;
            this.fenceIndexes = template.fenceIndexes;
            this.slot = template.slot;
        }

        static DatabaseText spliced(Splice.Result spliced, FenceSlot slot) {
            return new DatabaseText(spliced.pieces(), String.join(slot.prepared(), spliced.pieces()),
                    spliced.databaseIndexes(), spliced.fenceIndexes(), slot);
        }

        /** The text as written, its {@code parameters} parameters where they were, no fence spliced in. */
        static DatabaseText asWritten(String sql, int parameters) {
            int[] unchanged = new int[parameters];
            for (int p = 0; p < parameters; p++) {
                unchanged[p] = p + 1;
            }
            return new DatabaseText(new String[] {sql}, sql, unchanged, NO_FENCES, FenceSlot.PLAIN);
        }

        /**
         * True when every piece of this (template's) text takes a shape's literals through
         * {@code derivation}. That depends only on the template and its shape's key, which fixes
         * each literal's kind and place, so it is found out once; a text derived from a template
         * for which it does not hold must not be made ({@link #derive}).
         */
        boolean derivable(Derivation derivation) {
            byte known = derivable;
            if (known == 0) {
                known = 1;
                try {
                    for (String piece : pieces()) {
                        derivation.apply(piece);
                    }
                } catch (IllegalStateException e) {
                    known = 2;
                }
                derivable = known;
            }
            return known == 1;
        }

        /** This text derived through {@code derivation}, when it is first asked for; only after {@link #derivable}. */
        DatabaseText derive(Derivation derivation) {
            return new DatabaseText(this, derivation);
        }

        public String[] pieces() {
            String[] derived = pieces;
            if (derived == null) {
                String[] from = template.pieces();
                derived = new String[from.length];
                for (int i = 0; i < derived.length; i++) {
                    derived[i] = derivation.apply(from[i]);
                }
                pieces = derived;
            }
            return derived;
        }

        public String preparedSql() {
            String derived = preparedSql;
            if (derived == null) {
                derived = String.join(slot.prepared(), pieces());
                preparedSql = derived;
            }
            return derived;
        }

        public int[] databaseIndexes() {
            return databaseIndexes;
        }

        public int[] fenceIndexes() {
            return fenceIndexes;
        }

        public FenceSlot slot() {
            return slot;
        }

        /**
         * The text with {@code fence} rendered as a literal into each slot, in one pass: a text not
         * yet derived is derived from its template's pieces as it is written.
         */
        String render(long fence) {
            String literal = Long.toString(fence);
            String[] own = pieces;
            String[] from = own != null ? own : template.pieces();
            int length = own != null ? preparedSql().length()
                    : Math.max(0, template.preparedSql().length() + derivation.lengthChange()) + RENDER_SLACK;
            StringBuilder rendered = new StringBuilder(length
                    + fenceIndexes.length * (literal.length() + slot.literalOverhead()));
            for (int i = 0; i < from.length; i++) {
                if (i > 0) {
                    slot.appendLiteral(rendered, literal);
                }
                if (own != null) {
                    rendered.append(from[i]);
                } else {
                    derivation.appendTo(rendered, from[i]);
                }
            }
            return rendered.toString();
        }
    }

    /**
     * Writes fenced tables: {@link #preparedSql()} is sent with the fence bound.
     *
     * @param countIsTheFencedWrite see {@link FencePlan#countIsTheFencedWrite()}
     * @param writesEpochTable      it writes a table in epoch mode (the guard row must be checked)
     * @param controlsTransaction   it also begins, ends or rolls back a transaction
     * @param checkedByGuard        sent as written because the database guard's triggers check it
     * @param mayHoldSeveralStatements see {@link FencePlan#mayHoldSeveralStatements()}
     */
    record Fenced(String sql, String fencedTable, DatabaseText text, ZeroRowCheck zeroRowCheck,
                  boolean countIsTheFencedWrite, boolean writesEpochTable, boolean controlsTransaction,
                  boolean changesSchema, boolean checkedByGuard, boolean mayHoldSeveralStatements) implements FencePlan {

        @Override
        public Kind kind() {
            return Kind.FENCED;
        }

        @Override
        public Fenced withSchemaChange() {
            return changesSchema ? this : new Fenced(sql, fencedTable, text, zeroRowCheck, countIsTheFencedWrite,
                    writesEpochTable, controlsTransaction, true, checkedByGuard, mayHoldSeveralStatements);
        }

        @Override
        public Fenced withSeveralStatements(boolean may) {
            return may == mayHoldSeveralStatements ? this : new Fenced(sql, fencedTable, text, zeroRowCheck,
                    countIsTheFencedWrite, writesEpochTable, controlsTransaction, changesSchema, checkedByGuard, may);
        }


        /**
         * This plan (a shape's template, see {@link ShapeCache}) for {@code sql}: every text derived
         * from the template's (the database's text, the zero-row queries) through {@code derive}
         * when it is first asked for. Only for a template whose text is {@link DatabaseText#derivable}.
         */
        Fenced withText(String sql, Derivation derive) {
            return new Fenced(sql, fencedTable, text.derive(derive),
                    zeroRowCheck == null ? null : zeroRowCheck.withQueries(derive), countIsTheFencedWrite,
                    writesEpochTable, controlsTransaction, changesSchema, checkedByGuard, mayHoldSeveralStatements);
        }

        @Override
        public String preparedSql() {
            return text.preparedSql();
        }

        @Override
        public int parameterCount() {
            return text.databaseIndexes().length;
        }

        @Override
        public int databaseIndex(int applicationIndex) {
            int[] indexes = text.databaseIndexes();
            if (applicationIndex < 1 || applicationIndex > indexes.length) {
                return -1;
            }
            return indexes[applicationIndex - 1];
        }

        @Override
        public int[] fenceIndexes() {
            return text.fenceIndexes();
        }

        @Override
        public String renderWithFence(long fence) {
            return text.render(fence);
        }

        @Override
        public boolean carriesTheFence() {
            return text.fenceIndexes().length > 0 && text.slot().carriesTheFence();
        }

        @Override
        public String toString() {
            return "FENCED " + fencedTable + (checkedByGuard ? " (checked by the database guard)" : "")
                    + (writesEpochTable ? " (epoch guard)" : "") + ": " + text.preparedSql() + " parameters "
                    + Arrays.toString(text.databaseIndexes()) + " fence at " + Arrays.toString(text.fenceIndexes())
                    + (zeroRowCheck == null ? "" : "; zero rows: " + zeroRowCheck);
        }
    }
}
