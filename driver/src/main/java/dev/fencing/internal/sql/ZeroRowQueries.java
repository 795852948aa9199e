package dev.fencing.internal.sql;

import dev.fencing.internal.config.Identifiers;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Builds the {@link ZeroRowCheck} of a text's one fenced write: the queries that tell, after the
 * write changed no row, whether a newer fence holds the rows (stale) or no row matched. Their text
 * is cut from the application's (its WITH, FROM and WHERE clauses), with the application's
 * parameters that fall in those cuts listed for binding again.
 */
final class ZeroRowQueries {

    private final String sql;
    private final SqlTokens tokens;
    /** For each token, the 1-based ordinal of the application parameter it is; 0 for other tokens. */
    private final int[] parameterOrdinals;
    private final SchemaFacts facts;
    private final String column;
    private final Dialect dialect;

    ZeroRowQueries(String sql, SqlTokens tokens, int[] parameterOrdinals, SchemaFacts facts, String column,
                   Dialect dialect) {
        this.sql = sql;
        this.tokens = tokens;
        this.parameterOrdinals = parameterOrdinals;
        this.facts = facts;
        this.column = column;
        this.dialect = dialect;
    }

    /** The check for {@code site}, or null when its zero rows cannot be diagnosed. */
    ZeroRowCheck of(WriteSite site) {
        if (site.kind() == ParsedWrites.Kind.INSERT) {
            WriteSite.Insert insert = site.insert();
            if (insert.conflictUpdate() != null && insert.conflictUpdate().condition().where() == null
                    && !insert.rows().isEmpty()) {
                return ZeroRowCheck.expectedRows(insert.rows().size());
            }
            return null;
        }
        if (site.with() != null && site.with().writes()) {
            return null; // the diagnosis would run the CTE's writes again
        }
        WriteSite.Target target = site.target();
        WriteSite.Clause from = site.rowChange().from();
        WriteSite.Clause where = site.rowChange().condition().where();
        String qualifier = tokens.text(target.qualifier());
        StringBuilder query = new StringBuilder();
        int[] parameters = new int[0];
        if (site.with() != null) {
            query.append(sql, tokens.start(site.with().first()), tokens.end(site.with().last())).append(' ');
            parameters = append(parameters, site.with().first(), site.with().last());
        }
        query.append("SELECT MAX(COALESCE(").append(qualifier).append('.').append(column).append(", 0)) FROM ");
        boolean usingNamesTarget = dialect == Dialect.MARIADB && site.kind() == ParsedWrites.Kind.DELETE && from != null;
        if (usingNamesTarget) {
            // MariaDB's DELETE .. USING lists the target among its tables: naming it again is an error
            query.append(sql, tokens.start(from.keyword() + 1), tokens.end(from.last()));
            parameters = append(parameters, from.keyword() + 1, from.last());
            if (where != null) {
                query.append(" WHERE ").append(sql, tokens.start(where.keyword() + 1), tokens.end(where.last()));
                parameters = append(parameters, where.keyword() + 1, where.last());
            }
            return ZeroRowCheck.newestFenceQuery(query.toString(), parameters);
        }
        KeyRead key = keyRead(site, qualifier);
        ZeroRowCheck byKey = key == null ? null : ZeroRowCheck.newestFenceQuery(key.query, key.parameters);
        query.append(sql, tokens.start(target.first()), tokens.end(target.qualifier()));
        if (from != null) {
            query.append(", ").append(sql, tokens.start(from.keyword() + 1), tokens.end(from.last()));
            parameters = append(parameters, from.keyword() + 1, from.last());
        }
        if (where != null) {
            query.append(" WHERE ").append(sql, tokens.start(where.keyword() + 1), tokens.end(where.last()));
            parameters = append(parameters, where.keyword() + 1, where.last());
        }
        return ZeroRowCheck.newestFenceQuery(query.toString(), parameters, byKey);
    }

    /** A query reading the newest fence of the rows a write names by key, and the application parameters it binds. */
    private record KeyRead(String query, int[] parameters) {
    }

    /** At most this many writes' reads in one query of {@link #afterStatement} (one column each); more go to the next query. */
    static final int READS_PER_QUERY = 32;

    /**
     * The check of a text whose count cannot show what its fenced writes {@code sites} (in text
     * order, each writing the fenced table {@code tables} names at the same index) changed: after
     * it ran, the newest fence of the rows each write names by key (an UPDATE's or DELETE's key
     * conjuncts, an upsert's conflict columns in its VALUES rows), one column per write; writes that
     * name no row by key are not read. Null when no write names its rows by key.
     *
     * @param expectedRows see {@link ZeroRowCheck#keysAfterStatement}
     */
    ZeroRowCheck afterStatement(List<WriteSite> sites, List<String> tables, int expectedRows) {
        List<KeyRead> reads = new ArrayList<>();
        List<String> readTables = new ArrayList<>();
        for (int k = 0; k < sites.size(); k++) {
            KeyRead read = keysOf(sites.get(k));
            if (read != null) {
                reads.add(read);
                readTables.add(tables.get(k));
            }
        }
        if (reads.isEmpty()) {
            return null;
        }
        ZeroRowCheck next = null;
        for (int first = (reads.size() - 1) / READS_PER_QUERY * READS_PER_QUERY; first >= 0; first -= READS_PER_QUERY) {
            int end = Math.min(reads.size(), first + READS_PER_QUERY);
            next = chunk(reads.subList(first, end), readTables.subList(first, end), expectedRows, next);
        }
        return next;
    }

    /** One query of {@link #afterStatement}: {@code reads} as the columns of one row (the read itself when alone). */
    private static ZeroRowCheck chunk(List<KeyRead> reads, List<String> tables, int expectedRows, ZeroRowCheck more) {
        if (reads.size() == 1) {
            KeyRead read = reads.get(0);
            return ZeroRowCheck.keysAfterStatement(read.query, read.parameters, tables.toArray(new String[0]),
                    expectedRows, more);
        }
        StringBuilder query = new StringBuilder("SELECT ");
        int[] parameters = new int[0];
        for (int k = 0; k < reads.size(); k++) {
            KeyRead read = reads.get(k);
            query.append(k == 0 ? "(" : ", (").append(read.query).append(')');
            int[] all = Arrays.copyOf(parameters, parameters.length + read.parameters.length);
            System.arraycopy(read.parameters, 0, all, parameters.length, read.parameters.length);
            parameters = all;
        }
        return ZeroRowCheck.keysAfterStatement(query.toString(), parameters, tables.toArray(new String[0]),
                expectedRows, more);
    }

    /** The read of the rows {@code site} names by key, or null when it names none that way. */
    private KeyRead keysOf(WriteSite site) {
        if (site.target() == null) {
            return null;
        }
        String qualifier = tokens.text(site.target().qualifier());
        if (site.kind() == ParsedWrites.Kind.INSERT) {
            return site.hasConflictUpdate() ? conflictKeys(site, qualifier) : null;
        }
        if (dialect == Dialect.MARIADB && site.kind() == ParsedWrites.Kind.DELETE && site.rowChange().from() != null) {
            return null; // DELETE .. USING lists the target among its tables, as in of()
        }
        return keyRead(site, qualifier);
    }

    /**
     * The rows an {@code INSERT .. ON CONFLICT (columns) DO UPDATE} names by key: for each VALUES
     * row, its values of the conflict columns ({@code (q.a = v1 AND q.b = v2) OR ..}); null unless
     * the conflict target is a plain column list, the insert has a column list naming each of
     * them, and each such value is a parameter or a plain literal.
     */
    private KeyRead conflictKeys(WriteSite site, String qualifier) {
        WriteSite.Insert insert = site.insert();
        WriteSite.Span target = insert.conflictUpdate().target();
        if (target == null || insert.columns() == null || insert.rows().isEmpty()) {
            return null;
        }
        List<int[]> columns = cells(insert.columns());
        List<Integer> conflictColumns = new ArrayList<>();
        List<Integer> positions = new ArrayList<>();
        for (int j = target.first() + 1; j < target.last(); j += 2) {
            int position = -1;
            for (int c = 0; c < columns.size(); c++) {
                int[] column = columns.get(c);
                if (column[0] == column[1] && tokens.isIdentifier(column[0])
                        && tokens.identifier(column[0]).equals(tokens.identifier(j))) {
                    position = c;
                }
            }
            if (position < 0) {
                return null;
            }
            conflictColumns.add(j);
            positions.add(position);
        }
        StringBuilder query = new StringBuilder("SELECT MAX(COALESCE(").append(qualifier).append('.').append(column)
                .append(", 0)) FROM ").append(sql, tokens.start(site.target().first()),
                        tokens.end(site.target().qualifier())).append(" WHERE ");
        int[] parameters = new int[0];
        String rowSeparator = "";
        for (WriteSite.Span row : insert.rows()) {
            List<int[]> values = cells(row);
            if (values.size() != columns.size()) {
                return null;
            }
            query.append(rowSeparator).append('(');
            for (int k = 0; k < positions.size(); k++) {
                int[] value = values.get(positions.get(k));
                if (!isPlainValue(value[0], value[1])) {
                    return null;
                }
                query.append(k == 0 ? "" : " AND ").append(qualifier).append('.')
                        .append(tokens.text(conflictColumns.get(k))).append(" = ")
                        .append(sql, tokens.start(value[0]), tokens.end(value[1]));
                parameters = append(parameters, value[0], value[1]);
            }
            query.append(')');
            rowSeparator = " OR ";
        }
        return new KeyRead(query.toString(), parameters);
    }

    /** The top-level comma-separated items inside the parentheses {@code span}, each as tokens {@code [first, last]}. */
    private List<int[]> cells(WriteSite.Span span) {
        List<int[]> cells = new ArrayList<>();
        int depth = tokens.depth(span.first()) + 1;
        int start = span.first() + 1;
        for (int i = start; i <= span.last(); i++) {
            if (i == span.last() || tokens.kind(i) == SqlTokens.COMMA && tokens.depth(i) == depth) {
                cells.add(new int[] {start, i - 1}); // an empty item is [start, start - 1]: no plain value
                start = i + 1;
            }
        }
        return cells;
    }

    /**
     * The diagnosis by key: the top-level conjuncts of the WHERE clause of the form {@code
     * column = value} ({@code value} a parameter or a literal, {@code column} the target's), when
     * their columns cover a primary key or a unique index of the target; null otherwise (an OR at
     * the top, no whole key, a column of another table ..).
     */
    private KeyRead keyRead(WriteSite site, String qualifier) {
        List<Set<String>> keys = facts.keysOf(site.targetName(tokens));
        WriteSite.Clause where = site.rowChange().condition().where();
        if (keys.isEmpty() || where == null) {
            return null;
        }
        int depth = tokens.depth(where.keyword());
        List<int[]> conjuncts = new ArrayList<>();
        int start = where.keyword() + 1;
        boolean between = false;
        for (int i = start; i <= where.last(); i++) {
            if (tokens.depth(i) != depth) {
                continue;
            }
            if (tokens.isWord(i, "OR") || tokens.isWord(i, "XOR") || (tokens.kind(i) == SqlTokens.OPERATOR
                    && (tokens.text(i).equals("|") || tokens.text(i).equals("&")))) {
                return null; // MariaDB's || and && are OR and AND; any of it at the top: no conjunction to trust
            }
            if (tokens.isWord(i, "BETWEEN")) {
                between = true;
            } else if (tokens.isWord(i, "AND")) {
                if (between) {
                    between = false;
                } else {
                    conjuncts.add(new int[] {start, i - 1});
                    start = i + 1;
                }
            }
        }
        conjuncts.add(new int[] {start, where.last()});
        boolean readsOtherTables = site.rowChange().from() != null;
        Map<String, int[]> equalities = new LinkedHashMap<>();
        for (int[] conjunct : conjuncts) {
            String keyColumn = keyEquality(conjunct[0], conjunct[1], readsOtherTables, qualifier);
            if (keyColumn != null) {
                equalities.putIfAbsent(keyColumn, conjunct);
            }
        }
        for (Set<String> key : keys) {
            if (!equalities.keySet().containsAll(key)) {
                continue;
            }
            StringBuilder query = new StringBuilder("SELECT MAX(COALESCE(").append(qualifier).append('.')
                    .append(column).append(", 0)) FROM ")
                    .append(sql, tokens.start(site.target().first()), tokens.end(site.target().qualifier()))
                    .append(" WHERE ");
            int[] parameters = new int[0];
            String separator = "";
            for (String keyColumn : key) {
                int[] conjunct = equalities.get(keyColumn);
                query.append(separator).append(sql, tokens.start(conjunct[0]), tokens.end(conjunct[1]));
                parameters = append(parameters, conjunct[0], conjunct[1]);
                separator = " AND ";
            }
            return new KeyRead(query.toString(), parameters);
        }
        return null;
    }

    /**
     * The column (folded) of a conjunct {@code [q.]column = value} or {@code value = [q.]column}
     * in tokens {@code [first, last]}, where {@code q} is the target's alias or name (a bare column
     * only when the write reads no other table) and {@code value} a parameter, a number or a
     * string; else null.
     */
    private String keyEquality(int first, int last, boolean readsOtherTables, String qualifier) {
        for (int equals = first + 1; equals < last; equals++) {
            if (tokens.kind(equals) == SqlTokens.OPERATOR && tokens.text(equals).equals("=")) {
                String keyColumn = columnOf(first, equals - 1, readsOtherTables, qualifier);
                if (keyColumn != null && isPlainValue(equals + 1, last)) {
                    return keyColumn;
                }
                keyColumn = columnOf(equals + 1, last, readsOtherTables, qualifier);
                return keyColumn != null && isPlainValue(first, equals - 1) ? keyColumn : null;
            }
        }
        return null;
    }

    private String columnOf(int first, int last, boolean readsOtherTables, String qualifier) {
        if (first == last && tokens.isIdentifier(first) && !readsOtherTables) {
            return tokens.identifier(first);
        }
        if (last == first + 2 && tokens.isIdentifier(first) && tokens.kind(first + 1) == SqlTokens.DOT
                && tokens.isIdentifier(last) && Identifiers.unquote(tokens.text(first))
                .equalsIgnoreCase(Identifiers.unquote(qualifier))) {
            return tokens.identifier(last);
        }
        return null;
    }

    private boolean isPlainValue(int first, int last) {
        if (first == last) {
            byte kind = tokens.kind(first);
            return kind == SqlTokens.PARAMETER || kind == SqlTokens.NUMBER
                    || (kind == SqlTokens.STRING && !tokens.hasBackslash(first));
        }
        return last == first + 1 && tokens.kind(first) == SqlTokens.OPERATOR && tokens.text(first).equals("-")
                && tokens.kind(last) == SqlTokens.NUMBER;
    }

    /** {@code parameters} followed by the ordinals of the application parameters in tokens {@code [first, last]}. */
    private int[] append(int[] parameters, int first, int last) {
        int count = 0;
        for (int i = first; i <= last; i++) {
            if (parameterOrdinals[i] > 0) {
                count++;
            }
        }
        int[] all = Arrays.copyOf(parameters, parameters.length + count);
        int next = parameters.length;
        for (int i = first; i <= last; i++) {
            if (parameterOrdinals[i] > 0) {
                all[next++] = parameterOrdinals[i];
            }
        }
        return all;
    }
}
