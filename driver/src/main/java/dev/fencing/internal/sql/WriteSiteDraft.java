package dev.fencing.internal.sql;

import java.util.ArrayList;
import java.util.List;

/**
 * A write while it is being read: token indexes, -1 where a clause has not been seen (yet).
 * Only {@link WriteSites} fills it in; {@link #toSite} makes the immutable {@link WriteSite}.
 */
final class WriteSiteDraft {
    ParsedWrites.Kind kind;
    int head;
    boolean topLevel;
    int targetFirst = -1;
    int targetLast = -1;
    int alias = -1;
    String unsupported;
    boolean multiTable;

    // UPDATE / DELETE
    int assignmentsLast = -1;
    int fromKeyword = -1;
    int fromLast = -1;
    int whereKeyword = -1;
    int whereLast = -1;
    /** The last token before RETURNING / ORDER BY / LIMIT (or the statement's end). */
    int bodyLast = -1;

    // INSERT
    int columnsOpen = -1;
    int columnsClose = -1;
    final List<WriteSite.Span> rows = new ArrayList<>();
    int defaultValuesFirst = -1;
    int defaultValuesLast = -1;
    int queryFirst = -1;
    int queryLast = -1;
    /** The parenthesised conflict target when it is a plain column list; else -1. */
    int conflictTargetOpen = -1;
    int conflictTargetClose = -1;
    int conflictAssignmentsLast = -1;
    int conflictWhereKeyword = -1;
    int conflictWhereLast = -1;
    int conflictBodyLast = -1;
    /** For INSERT .. SELECT: the select list, where the fence is appended; else null (wrap the query). */
    WriteSite.Span selectList;

    // the statement's own WITH clause (for a diagnosis query that needs its names)
    int withFirst = -1;
    int withLast = -1;
    boolean withWrites;

    WriteSite toSite() {
        WriteSite.Target target = targetFirst < 0 ? null
                : new WriteSite.Target(targetFirst, targetLast, alias >= 0 ? alias : targetLast);
        WriteSite.With with = withFirst < 0 ? null : new WriteSite.With(withFirst, withLast, withWrites);
        WriteSite.RowChange rowChange = null;
        WriteSite.Insert insert = null;
        if (kind == ParsedWrites.Kind.UPDATE || kind == ParsedWrites.Kind.DELETE) {
            rowChange = new WriteSite.RowChange(
                    assignmentsLast < 0 ? null : new WriteSite.Assignments(assignmentsLast),
                    clause(fromKeyword, fromLast), new WriteSite.Condition(clause(whereKeyword, whereLast), bodyLast));
        } else if (kind == ParsedWrites.Kind.INSERT) {
            WriteSite.ConflictUpdate conflictUpdate = conflictAssignmentsLast < 0 ? null
                    : new WriteSite.ConflictUpdate(span(conflictTargetOpen, conflictTargetClose),
                    new WriteSite.Assignments(conflictAssignmentsLast),
                    new WriteSite.Condition(clause(conflictWhereKeyword, conflictWhereLast), conflictBodyLast));
            insert = new WriteSite.Insert(span(columnsOpen, columnsClose), rows,
                    span(defaultValuesFirst, defaultValuesLast),
                    queryFirst < 0 ? null : new WriteSite.Query(queryFirst, queryLast, selectList), conflictUpdate);
        }
        return new WriteSite(kind, head, topLevel, target, unsupported, multiTable, with, rowChange, insert);
    }

    private static WriteSite.Clause clause(int keyword, int last) {
        return keyword < 0 ? null : new WriteSite.Clause(keyword, last);
    }

    private static WriteSite.Span span(int first, int last) {
        return first < 0 ? null : new WriteSite.Span(first, last);
    }
}
