package dev.fencing.internal.sql;


import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntConsumer;

/**
 * Finds, in the tokens of one statement, every INSERT, UPDATE and DELETE (its own and those of its
 * data-modifying CTEs) and the positions of their clauses: where the target is, where the
 * assignments end, the WHERE predicate's extent, the VALUES rows. These are the places the
 * rewriter splices the check into the original text, so comments and hints survive.
 *
 * <p>A write whose shape is not one of the forms below is returned as {@link WriteSite#unsupported}
 * with the reason; the analyzer refuses it when its target is fenced.
 */
final class WriteSites {

    private static final String[] UPDATE_ASSIGNMENT_STOPS = {"FROM", "WHERE", "RETURNING", "ORDER", "LIMIT", "OFFSET", "FETCH"};
    private static final String[] FROM_STOPS = {"WHERE", "RETURNING", "ORDER", "LIMIT", "OFFSET", "FETCH"};
    private static final String[] WHERE_STOPS = {"RETURNING", "ORDER", "LIMIT", "OFFSET", "FETCH"};
    private static final String[] DELETE_TARGET_STOPS = {"USING", "WHERE", "RETURNING", "ORDER", "LIMIT", "OFFSET", "FETCH"};
    private static final String[] CONFLICT_ASSIGNMENT_STOPS = {"WHERE", "RETURNING"};
    private static final String[] CONFLICT_WHERE_STOPS = {"RETURNING"};
    private static final String[] MARIADB_UPDATE_ASSIGNMENT_STOPS = {"WHERE", "ORDER", "LIMIT"};
    private static final String[] MARIADB_WHERE_STOPS = {"ORDER", "LIMIT", "RETURNING"};
    private static final String[] SELECT_LIST_STOPS = {"INTO", "FROM", "WHERE", "GROUP", "HAVING", "WINDOW", "ORDER",
            "LIMIT", "OFFSET", "FETCH", "FOR", "ON", "RETURNING"};
    private static final String[] SET_OPERATIONS = {"UNION", "INTERSECT", "EXCEPT", "MINUS"};
    private static final String[] DML_HEADS = {"INSERT", "UPDATE", "DELETE", "MERGE", "TRUNCATE", "REPLACE", "UPSERT"};

    private final SqlTokens tokens;
    private final Dialect dialect;
    private final List<WriteSiteDraft> sites = new ArrayList<>();
    private final IntConsumer parserBlanks;

    private WriteSites(SqlTokens tokens, Dialect dialect, IntConsumer parserBlanks) {
        this.tokens = tokens;
        this.dialect = dialect;
        this.parserBlanks = parserBlanks;
    }

    /** The writes of the statement in tokens {@code [from, to)}, in text order. */
    static List<WriteSite> find(SqlTokens tokens, Dialect dialect, int from, int to) {
        return find(tokens, dialect, from, to, token -> { });
    }

    /**
     * As {@link #find(SqlTokens, Dialect, int, int)}; {@code parserBlanks} receives the tokens that
     * the database reads but JSqlParser cannot, and that change nothing about what is written
     * (PostgreSQL's {@code orders *}, {@code NOT MATERIALIZED}): the parser is given them blanked.
     */
    static List<WriteSite> find(SqlTokens tokens, Dialect dialect, int from, int to, IntConsumer parserBlanks) {
        WriteSites finder = new WriteSites(tokens, dialect, parserBlanks);
        finder.statement(from, to, true);
        List<WriteSite> found = new ArrayList<>(finder.sites.size());
        for (WriteSiteDraft draft : finder.sites) {
            found.add(draft.toSite());
        }
        return found;
    }

    /**
     * How many write keywords in {@code [from, to)} stand where a statement begins (at the start,
     * after '(', ')' or ';'), for checking that every one of them was accounted for.
     */
    static int countStatementHeads(SqlTokens tokens, int from, int to) {
        int heads = 0;
        for (int i = from; i < to; i++) {
            if (tokens.kind(i) != SqlTokens.WORD) {
                continue;
            }
            byte previous = i == from ? SqlTokens.SEMICOLON : tokens.kind(i - 1);
            boolean atStart = previous == SqlTokens.OPEN || previous == SqlTokens.SEMICOLON || previous == SqlTokens.CLOSE;
            boolean functionCall = i + 1 < to && tokens.kind(i + 1) == SqlTokens.OPEN;
            if (atStart && !functionCall) {
                for (String head : DML_HEADS) {
                    if (tokens.isWord(i, head)) {
                        heads++;
                        break;
                    }
                }
            }
        }
        return heads;
    }

    private void statement(int from, int to, boolean topLevel) {
        int i = from;
        int sitesBeforeWith = sites.size();
        if (tokens.isWord(i, "WITH")) {
            i = withClause(i + 1, to);
            if (i < 0) {
                WriteSiteDraft site = new WriteSiteDraft();
                site.kind = ParsedWrites.Kind.OTHER;
                site.head = from;
                site.unsupported = "a WITH clause of a shape the analyzer does not know";
                sites.add(site);
                return;
            }
        }
        if (i >= to) {
            return;
        }
        int sitesBeforeMain = sites.size();
        if (tokens.isWord(i, "UPDATE")) {
            update(i, to, topLevel);
        } else if (tokens.isWord(i, "DELETE")) {
            delete(i, to, topLevel);
        } else if (tokens.isWord(i, "INSERT")) {
            insert(i, to, topLevel);
        } else if (tokens.isWord(i, "MERGE") || tokens.isWord(i, "REPLACE") || tokens.isWord(i, "UPSERT")
                || tokens.isWord(i, "TRUNCATE")) {
            WriteSiteDraft site = site(ParsedWrites.Kind.OTHER, i, topLevel);
            site.unsupported = tokens.text(i).toUpperCase(Locale.ROOT) + " cannot carry a per-row fence check";
        }
        if (i > from && sites.size() > sitesBeforeMain) {
            WriteSiteDraft main = sites.get(sitesBeforeMain);
            main.withFirst = from;
            main.withLast = i - 1;
            main.withWrites = sitesBeforeMain > sitesBeforeWith;
        }
    }

    /** Reads {@code name [(cols)] AS [NOT] [MATERIALIZED] (body), ...}; returns the index after it, or -1. */
    private int withClause(int i, int to) {
        if (tokens.isWord(i, "RECURSIVE")) {
            i++;
        }
        while (i < to) {
            if (!tokens.isIdentifier(i)) {
                return -1;
            }
            i++;
            if (i < to && tokens.kind(i) == SqlTokens.OPEN) {
                i = closeOf(i) + 1;
            }
            if (!tokens.isWord(i, "AS")) {
                return -1;
            }
            i++;
            if (tokens.isWord(i, "NOT") && tokens.isWord(i + 1, "MATERIALIZED")) {
                parserBlanks.accept(i);
                i++;
            }
            if (tokens.isWord(i, "MATERIALIZED")) {
                i++;
            }
            if (i >= to || tokens.kind(i) != SqlTokens.OPEN) {
                return -1;
            }
            int close = closeOf(i);
            statement(i + 1, close, false);
            i = close + 1;
            if (i < to && tokens.kind(i) == SqlTokens.COMMA) {
                i++;
            } else {
                return i;
            }
        }
        return -1;
    }

    private WriteSiteDraft site(ParsedWrites.Kind kind, int head, boolean topLevel) {
        WriteSiteDraft site = new WriteSiteDraft();
        site.kind = kind;
        site.head = head;
        site.topLevel = topLevel;
        sites.add(site);
        return site;
    }

    private void update(int head, int to, boolean topLevel) {
        WriteSiteDraft site = site(ParsedWrites.Kind.UPDATE, head, topLevel);
        int depth = tokens.depth(head);
        int i = skipWords(head + 1, to, "LOW_PRIORITY", "IGNORE");
        i = target(site, i, to, "SET");
        if (i < 0) {
            return;
        }
        if (!tokens.isWord(i, "SET") || tokens.depth(i) != depth) {
            site.unsupported = "an UPDATE of several tables or of an unexpected shape (expected SET after the target)";
            site.multiTable = true;
            return;
        }
        int stop = findClause(i + 1, to, depth,
                dialect.rowChangeTailIsOrderByLimit() ? MARIADB_UPDATE_ASSIGNMENT_STOPS : UPDATE_ASSIGNMENT_STOPS);
        if (stop == i + 1) {
            site.unsupported = "an UPDATE without assignments";
            return;
        }
        site.assignmentsLast = stop - 1;
        int next = stop;
        if (stop < to && tokens.isWord(stop, "FROM")) {
            site.fromKeyword = stop;
            next = findClause(stop + 1, to, depth, FROM_STOPS);
            site.fromLast = next - 1;
        }
        whereAndTail(site, next, to, depth);
    }

    private void delete(int head, int to, boolean topLevel) {
        WriteSiteDraft site = site(ParsedWrites.Kind.DELETE, head, topLevel);
        int depth = tokens.depth(head);
        int i = skipWords(head + 1, to, "LOW_PRIORITY", "QUICK", "IGNORE");
        if (dialect.deleteMayNameItsTargetBeforeFrom() && tokens.isIdentifier(i) && tokens.isWord(i + 1, "FROM")
                && singleTableAliasDelete(site, i, to, depth)) {
            return;
        }
        if (tokens.isWord(i, "FROM")) {
            i++;
        }
        i = target(site, i, to, DELETE_TARGET_STOPS);
        if (i < 0) {
            return;
        }
        int next = i;
        if (tokens.isWord(i, "USING")) {
            site.fromKeyword = i;
            next = findClause(i + 1, to, depth, FROM_STOPS);
            site.fromLast = next - 1;
        } else if (i < to && !isAnyWord(i, FROM_STOPS)) {
            site.unsupported = "a DELETE of several tables or of an unexpected shape";
            site.multiTable = true;
            return;
        }
        whereAndTail(site, next, to, depth);
    }

    /**
     * MariaDB's multi-table syntax naming one table, as Hibernate 6 writes a bulk delete:
     * {@code DELETE o1_0 FROM orders o1_0 WHERE ..}. When the one table deleted from is the one
     * table read (by its alias or name), it is a single-table DELETE with an alias; else false and
     * the site is left for the multi-table reading.
     */
    private boolean singleTableAliasDelete(WriteSiteDraft site, int deleted, int to, int depth) {
        int i = targetName(site, deleted + 2, to);
        if (i < 0) {
            site.unsupported = null;
            site.targetFirst = -1;
            site.targetLast = -1;
            return false;
        }
        int alias = -1;
        if (tokens.isWord(i, "AS") && tokens.isIdentifier(i + 1)) {
            alias = i + 1;
            i += 2;
        } else if (i < to && tokens.isIdentifier(i) && !isAnyWord(i, FROM_STOPS) && !tokens.isWord(i, "USING")) {
            alias = i;
            i++;
        }
        String named = tokens.identifier(deleted);
        boolean same = alias >= 0 ? named.equals(tokens.identifier(alias))
                : named.equals(tokens.identifier(site.targetLast));
        if (!same || (i < to && !isAnyWord(i, FROM_STOPS))) {
            site.targetFirst = -1;
            site.targetLast = -1;
            return false;
        }
        site.alias = alias;
        whereAndTail(site, i, to, depth);
        return true;
    }

    private void whereAndTail(WriteSiteDraft site, int i, int to, int depth) {
        int tail = i;
        if (i < to && tokens.isWord(i, "WHERE")) {
            if (isCurrentOf(i + 1, to)) {
                site.unsupported = "WHERE CURRENT OF a cursor";
                return;
            }
            site.whereKeyword = i;
            tail = findClause(i + 1, to, depth, dialect.rowChangeTailIsOrderByLimit() ? MARIADB_WHERE_STOPS : WHERE_STOPS);
            site.whereLast = tail - 1;
            if (site.whereLast == site.whereKeyword) {
                site.unsupported = "an empty WHERE clause";
                return;
            }
        }
        site.bodyLast = tail - 1;
    }

    private boolean isCurrentOf(int i, int to) {
        return i + 1 < to && tokens.isWord(i, "CURRENT") && tokens.isWord(i + 1, "OF");
    }

    private void insert(int head, int to, boolean topLevel) {
        WriteSiteDraft site = site(ParsedWrites.Kind.INSERT, head, topLevel);
        int depth = tokens.depth(head);
        int i = skipWords(head + 1, to, "LOW_PRIORITY", "DELAYED", "HIGH_PRIORITY", "IGNORE");
        if (tokens.isWord(i, "INTO")) {
            i++;
        }
        i = targetName(site, i, to);
        if (i < 0) {
            return;
        }
        if (tokens.isWord(i, "AS") && tokens.isIdentifier(i + 1)) {
            site.alias = i + 1;
            i += 2;
        }
        if (i < to && tokens.kind(i) == SqlTokens.OPEN) {
            int close = closeOf(i);
            boolean columnList = close > i + 1 && tokens.isIdentifier(i + 1) && !tokens.isWord(i + 1, "SELECT")
                    && !tokens.isWord(i + 1, "WITH") && !tokens.isWord(i + 1, "VALUES");
            if (columnList) {
                site.columnsOpen = i;
                site.columnsClose = close;
                i = close + 1;
            }
        }
        if (tokens.isWord(i, "OVERRIDING")) {
            i += 3;
        }
        int bodyEnd = insertedRows(site, i, to, depth);
        if (bodyEnd >= 0) {
            afterInsertedRows(site, bodyEnd, to, depth);
        }
    }

    /**
     * Reads what is inserted, from token {@code i}: DEFAULT VALUES, VALUES rows or a query.
     * Returns the index after it, or -1 (site marked unsupported).
     */
    private int insertedRows(WriteSiteDraft site, int i, int to, int depth) {
        if (tokens.isWord(i, "DEFAULT") && tokens.isWord(i + 1, "VALUES")) {
            if (site.columnsClose >= 0) {
                site.unsupported = "DEFAULT VALUES after a column list";
                return -1;
            }
            site.defaultValuesFirst = i;
            site.defaultValuesLast = i + 1;
            return i + 2;
        }
        boolean values = tokens.isWord(i, "VALUES") || tokens.isWord(i, "VALUE");
        boolean query = tokens.isWord(i, "SELECT") || tokens.isWord(i, "WITH") || tokens.isWord(i, "TABLE")
                || (i < to && tokens.kind(i) == SqlTokens.OPEN);
        if (!values && !query) {
            site.unsupported = "an INSERT of an unexpected shape (INSERT .. SET and row aliases cannot carry the fence)";
            return -1;
        }
        if (site.columnsClose < 0) {
            site.unsupported = "an INSERT without a column list (name the columns so the fence column can be added)";
            return -1;
        }
        if (values) {
            return valuesRows(site, i + 1, to);
        }
        site.queryFirst = i;
        int end = i;
        while (end < to && !(tokens.depth(end) == depth && (isConflictClause(end) || tokens.isWord(end, "RETURNING")))) {
            end++;
        }
        site.queryLast = end - 1;
        site.selectList = selectList(i, end, depth);
        return end;
    }

    /** Reads the rows {@code (..), (..)} from token {@code j}; returns the index after them, or -1 (site marked). */
    private int valuesRows(WriteSiteDraft site, int j, int to) {
        while (j < to && tokens.kind(j) == SqlTokens.OPEN) {
            int close = closeOf(j);
            site.rows.add(new WriteSite.Span(j, close));
            j = close + 1;
            if (j < to && tokens.kind(j) == SqlTokens.COMMA) {
                j++;
            } else {
                break;
            }
        }
        if (site.rows.isEmpty()) {
            site.unsupported = "VALUES rows of an unexpected shape (use VALUES (..), (..))";
            return -1;
        }
        return j;
    }

    /**
     * Reads what may follow the inserted rows at token {@code i}: ON CONFLICT (DO NOTHING or DO
     * UPDATE with its own condition), then only RETURNING; anything else marks the site.
     */
    private void afterInsertedRows(WriteSiteDraft site, int i, int to, int depth) {
        if (i < to && tokens.isWord(i, "ON")) {
            if (tokens.isWord(i + 1, "DUPLICATE")) {
                site.unsupported = "ON DUPLICATE KEY UPDATE (its assignments cannot be made conditional on the fence)";
                return;
            }
            if (!tokens.isWord(i + 1, "CONFLICT")) {
                site.unsupported = "an unexpected ON clause after the inserted rows";
                return;
            }
            int doKeyword = i + 2;
            while (doKeyword < to && !(tokens.depth(doKeyword) == depth && tokens.isWord(doKeyword, "DO"))) {
                doKeyword++;
            }
            conflictTarget(site, i + 2, doKeyword);
            if (tokens.isWord(doKeyword + 1, "NOTHING")) {
                i = doKeyword + 2;
            } else if (tokens.isWord(doKeyword + 1, "UPDATE") && tokens.isWord(doKeyword + 2, "SET")) {
                i = conflictUpdate(site, doKeyword + 3, to, depth);
            } else {
                site.unsupported = "an ON CONFLICT clause of an unexpected shape";
                return;
            }
        }
        if (i < to && !tokens.isWord(i, "RETURNING")) {
            site.unsupported = "unexpected text after the inserted rows: " + tokens.text(i);
        }
    }

    /** Marks tokens {@code [open, doKeyword)} as the conflict target when they are {@code (column [, column]..)}. */
    private void conflictTarget(WriteSiteDraft site, int open, int doKeyword) {
        if (tokens.kind(open) != SqlTokens.OPEN || closeOf(open) != doKeyword - 1) {
            return;
        }
        for (int j = open + 1; j < doKeyword - 1; j += 2) {
            if (!tokens.isIdentifier(j) || !(j + 1 == doKeyword - 1 || tokens.kind(j + 1) == SqlTokens.COMMA)) {
                return;
            }
        }
        if (doKeyword - 1 > open + 1) {
            site.conflictTargetOpen = open;
            site.conflictTargetClose = doKeyword - 1;
        }
    }

    /** Reads ON CONFLICT's assignments from token {@code i} and its WHERE; returns the index after them. */
    private int conflictUpdate(WriteSiteDraft site, int i, int to, int depth) {
        int stop = findClause(i, to, depth, CONFLICT_ASSIGNMENT_STOPS);
        site.conflictAssignmentsLast = stop - 1;
        int tail = stop;
        if (stop < to && tokens.isWord(stop, "WHERE")) {
            site.conflictWhereKeyword = stop;
            tail = findClause(stop + 1, to, depth, CONFLICT_WHERE_STOPS);
            site.conflictWhereLast = tail - 1;
        }
        site.conflictBodyLast = tail - 1;
        return tail;
    }

    /**
     * For a query that is one plain SELECT (after an optional WITH clause), its select list; null
     * for set operations, VALUES, TABLE or a parenthesised query, which get wrapped.
     */
    private WriteSite.Span selectList(int first, int end, int depth) {
        int i = first;
        if (tokens.isWord(i, "WITH")) {
            WriteSites nested = new WriteSites(tokens, dialect, parserBlanks);
            i = nested.withClause(i + 1, end);
            if (i < 0 || !nested.sites.isEmpty()) {
                return null;
            }
        }
        if (!tokens.isWord(i, "SELECT")) {
            return null;
        }
        for (int j = i + 1; j < end; j++) {
            if (tokens.depth(j) == depth && isAnyWord(j, SET_OPERATIONS)) {
                return null;
            }
        }
        int stop = findClause(i + 1, end, depth, SELECT_LIST_STOPS);
        return stop - 1 > i ? new WriteSite.Span(i + 1, stop - 1) : null;
    }

    private boolean isConflictClause(int i) {
        return tokens.isWord(i, "ON") && (tokens.isWord(i + 1, "CONFLICT") || tokens.isWord(i + 1, "DUPLICATE"));
    }

    /** Reads the target name and an optional alias; returns the index after them, or -1 (site marked). */
    private int target(WriteSiteDraft site, int i, int to, String... stops) {
        i = targetName(site, i, to);
        if (i < 0) {
            return -1;
        }
        if (tokens.isWord(i, "AS")) {
            if (!tokens.isIdentifier(i + 1)) {
                site.unsupported = "AS without an alias";
                return -1;
            }
            site.alias = i + 1;
            return i + 2;
        }
        if (i < to && tokens.isIdentifier(i) && !isAnyWord(i, stops)) {
            site.alias = i;
            return i + 1;
        }
        return i;
    }

    private int targetName(WriteSiteDraft site, int i, int to) {
        if (tokens.isWord(i, "ONLY")) {
            site.unsupported = "ONLY (write to the table by name)";
            return -1;
        }
        if (!tokens.isIdentifier(i)) {
            site.unsupported = "no table name where one was expected";
            return -1;
        }
        site.targetFirst = i;
        site.targetLast = i;
        while (i + 2 < to && tokens.kind(i + 1) == SqlTokens.DOT && tokens.isIdentifier(i + 2)) {
            i += 2;
            site.targetLast = i;
        }
        i++;
        if (i < to && dialect.starAfterTableNameMeansDescendants() && site.kind != ParsedWrites.Kind.INSERT
                && tokens.kind(i) == SqlTokens.OPERATOR && tokens.text(i).equals("*")) {
            // "orders *": the table and its descendants, which is what "orders" means anyway
            parserBlanks.accept(i);
            i++;
        }
        if (i < to && (tokens.kind(i) == SqlTokens.OPERATOR && tokens.text(i).equals("*")
                || tokens.kind(i) == SqlTokens.OPEN && site.kind != ParsedWrites.Kind.INSERT)) {
            site.unsupported = "an unexpected token after the table name: " + tokens.text(i);
            return -1;
        }
        return i;
    }

    /** The first token in {@code [from, to)} at {@code depth} that starts one of the clauses, or {@code to}. */
    private int findClause(int from, int to, int depth, String[] clauses) {
        for (int i = from; i < to; i++) {
            if (tokens.depth(i) == depth && tokens.kind(i) == SqlTokens.WORD && isAnyWord(i, clauses)
                    && !(tokens.isWord(i, "FROM") && tokens.isWord(i - 1, "DISTINCT"))) {
                return i;
            }
        }
        return to;
    }

    private boolean isAnyWord(int i, String[] words) {
        for (String word : words) {
            if (tokens.isWord(i, word)) {
                return true;
            }
        }
        return false;
    }

    private int skipWords(int i, int to, String... words) {
        while (i < to && isAnyWord(i, words) && dialect.writesTakeModifierWords()) {
            i++;
        }
        return i;
    }

    private int closeOf(int open) {
        int depth = tokens.depth(open);
        for (int i = open + 1; i < tokens.size(); i++) {
            if (tokens.kind(i) == SqlTokens.CLOSE && tokens.depth(i) == depth) {
                return i;
            }
        }
        return tokens.size() - 1;
    }
}
