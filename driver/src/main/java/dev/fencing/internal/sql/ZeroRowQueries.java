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
        ZeroRowCheck byKey = keyCheck(site, qualifier);
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

    /**
     * The diagnosis by key: the top-level conjuncts of the WHERE clause of the form {@code
     * column = value} ({@code value} a parameter or a literal, {@code column} the target's), when
     * their columns cover a primary key or a unique index of the target; null otherwise (an OR at
     * the top, no whole key, a column of another table ..).
     */
    private ZeroRowCheck keyCheck(WriteSite site, String qualifier) {
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
            return ZeroRowCheck.newestFenceQuery(query.toString(), parameters);
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
