package dev.fencing.internal.sql;

import dev.fencing.internal.config.TableName;

import java.util.List;

/**
 * One write found in the tokens of a statement by {@link WriteSites}: where its parts stand, as
 * token indexes into the statement's {@link SqlTokens}. Immutable. A part the write does not have
 * (no WHERE, no alias, no column list ..) is null, never a made-up index.
 *
 * @param kind        UPDATE, DELETE, INSERT, or OTHER for MERGE, REPLACE, UPSERT, TRUNCATE and
 *                    WITH clauses that could not be read
 * @param head        the token of the write's keyword
 * @param topLevel    false for a write inside a data-modifying CTE
 * @param target      the table written and its alias; null when no name could be read
 * @param unsupported why the write's shape cannot carry the check; null when it can
 * @param multiTable  true when the text shows more tables than the target where the write may land
 *                    (MariaDB forms)
 * @param with        the statement's own WITH clause; null when it has none
 * @param rowChange   the clauses of an UPDATE or DELETE; null for other kinds
 * @param insert      the clauses of an INSERT; null for other kinds
 */
record WriteSite(ParsedWrites.Kind kind, int head, boolean topLevel, Target target, String unsupported,
                 boolean multiTable, With with, RowChange rowChange, Insert insert) {

    /**
     * The table written, its name in tokens {@code [first, last]} ({@code schema . table} when
     * qualified), and the token that names it in the statement's expressions: the alias, or the
     * name's last token when there is none.
     */
    record Target(int first, int last, int qualifier) {
        boolean aliased() {
            return qualifier != last;
        }
    }

    /** A clause: its keyword's token and its last token (the clause's body is the tokens between). */
    record Clause(int keyword, int last) {
    }

    /** Tokens {@code [first, last]}. */
    record Span(int first, int last) {
    }

    /**
     * The condition of a write that changes existing rows: its WHERE clause (null when it has
     * none), and the last token before RETURNING, ORDER BY, LIMIT or the statement's end, after
     * which a WHERE is appended when there is none.
     */
    record Condition(Clause where, int bodyLast) {
    }

    /** The clauses of an UPDATE ({@code set} non-null) or a DELETE ({@code set} null). */
    record RowChange(Assignments set, Clause from, Condition condition) {
    }

    /** The SET list of an UPDATE or of ON CONFLICT DO UPDATE, up to its last token. */
    record Assignments(int last) {
    }

    /**
     * The clauses of an INSERT: the column list's parentheses, each VALUES row's parentheses (empty
     * unless VALUES), {@code DEFAULT VALUES}, the inserted query, and ON CONFLICT DO UPDATE; each null
     * when absent.
     */
    record Insert(Span columns, List<Span> rows, Span defaultValues, Query query, ConflictUpdate conflictUpdate) {
        Insert {
            rows = List.copyOf(rows);
        }
    }

    /**
     * The query of {@code INSERT .. SELECT}, in tokens {@code [first, last]}; {@code selectList} is
     * the select list of a plain SELECT, where the fence is appended, or null when the query must be
     * wrapped (set operations, VALUES, TABLE, a parenthesised query).
     */
    record Query(int first, int last, Span selectList) {
    }

    /**
     * {@code ON CONFLICT .. DO UPDATE SET ..} with its own condition; {@code target} is the
     * parenthesised conflict target when it is a plain list of columns ({@code (id)},
     * {@code (a, b)}), else null ({@code ON CONSTRAINT}, expressions, an index predicate).
     */
    record ConflictUpdate(Span target, Assignments set, Condition condition) {
    }

    /** The statement's own WITH clause in tokens {@code [first, last]}; {@code writes} when a CTE writes. */
    record With(int first, int last, boolean writes) {
    }

    /** The table written, as the text names it; an empty name when no name could be read. */
    TableName targetName(SqlTokens tokens) {
        if (target == null) {
            return TableName.of(null, "");
        }
        String table = tokens.text(target.last);
        String schema = target.last - 2 >= target.first ? tokens.text(target.last - 2) : null;
        return TableName.of(schema, table);
    }

    boolean hasConflictUpdate() {
        return insert != null && insert.conflictUpdate != null;
    }
}
