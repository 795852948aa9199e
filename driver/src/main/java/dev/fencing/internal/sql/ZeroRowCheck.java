package dev.fencing.internal.sql;

import java.util.Arrays;
import java.util.function.UnaryOperator;

/**
 * How to tell, after a fenced write changed no row (or changed rows its count cannot show),
 * whether the fence was the reason. Immutable and fence-independent, like the plan that holds it.
 * A check derived from a shape's template ({@link ShapeCache}) puts the text's literals into its
 * queries only when a query is asked for, that is only when a write needs the diagnosis.
 */
public final class ZeroRowCheck {

    /** How the reason for zero changed rows is found. */
    public enum Method {
        /**
         * Run {@link #query()}: it returns the newest fence among the rows that match the write's own
         * predicate (NULL when none matches). Only a fence the comparison rejects means stale.
         */
        NEWEST_FENCE_QUERY,
        /**
         * An upsert without a condition of its own: every proposed row is either inserted or
         * updated unless the fence check stops it, so fewer changed rows than
         * {@link #expectedRows()} means stale.
         */
        EXPECTED_ROWS,
        /**
         * A form whose count cannot show what its fenced writes changed (writes in data-modifying
         * CTEs, texts of several statements) or shows only that some proposed row was not written
         * (an upsert with a WHERE of its own, {@link #expectedRows()} rows proposed): after the
         * statement ran, run {@link #query()}, one row with one column per fenced write that names
         * its rows by key: the newest fence among those rows (NULL when none exists), for the table
         * {@link #table(int)}. A fence newer than the statement's means stale; the statement's other
         * effects stand.
         */
        KEYS_AFTER_STATEMENT
    }

    private final Method method;
    /** The query as the analysis made it; for a derived check, the template's. */
    private final String template;
    /** Puts a text's literals into {@link #template}; null when the template is the query. */
    private final UnaryOperator<String> derive;
    /** {@link #template} derived, once asked for (a race derives it twice, to the same text). */
    private String query;
    private final int[] queryParameters;
    private final int expectedRows;
    private final String[] tables;

    private final ZeroRowCheck byKey;
    private final ZeroRowCheck more;

    private ZeroRowCheck(Method method, String template, UnaryOperator<String> derive, int[] queryParameters,
                         int expectedRows, String[] tables, ZeroRowCheck byKey, ZeroRowCheck more) {
        this.method = method;
        this.template = template;
        this.derive = derive;
        this.query = derive == null ? template : null;
        this.queryParameters = queryParameters;
        this.expectedRows = expectedRows;
        this.tables = tables;
        this.byKey = byKey;
        this.more = more;
    }

    static ZeroRowCheck newestFenceQuery(String query, int[] applicationParameters) {
        return newestFenceQuery(query, applicationParameters, null);
    }

    /**
     * @param byKey the same question asked of the rows the write's key conjuncts identify, for when
     *              no row matches the whole predicate; null when the predicate names no whole key
     */
    static ZeroRowCheck newestFenceQuery(String query, int[] applicationParameters, ZeroRowCheck byKey) {
        return new ZeroRowCheck(Method.NEWEST_FENCE_QUERY, query, null, applicationParameters.clone(), -1, null, byKey, null);
    }

    static ZeroRowCheck expectedRows(int rows) {
        return new ZeroRowCheck(Method.EXPECTED_ROWS, null, null, new int[0], rows, null, null, null);
    }

    /**
     * @param tables       the fenced table of each of the query's columns, in order
     * @param expectedRows the rows an upsert with a WHERE of its own proposes, when the statement's
     *                     count is that upsert's; -1 when the count cannot tell
     * @param more         the next query, for the writes this one has no column for; null when none
     */
    static ZeroRowCheck keysAfterStatement(String query, int[] applicationParameters, String[] tables, int expectedRows,
                                           ZeroRowCheck more) {
        return new ZeroRowCheck(Method.KEYS_AFTER_STATEMENT, query, null, applicationParameters.clone(), expectedRows,
                tables.clone(), null, more);
    }

    /** For {@link Method#KEYS_AFTER_STATEMENT}: the query for the next writes of the text, or null. */
    public ZeroRowCheck more() {
        return more;
    }

    /**
     * For {@link Method#NEWEST_FENCE_QUERY}: the query that reads the newest fence of the rows the
     * write's key conjuncts (equality on every column of a primary key or unique index, from the
     * metadata) identify, ignoring its other conditions; run when {@link #query()} finds no row,
     * so that a writer whose business predicate no longer matches because a newer holder changed
     * the row is still told it is stale. Null when the predicate names no whole key.
     */
    public ZeroRowCheck byKey() {
        return byKey;
    }

    /**
     * The same check with its queries passed through {@code derive} (a shape's literals put back)
     * when they are first asked for: a write that needs no diagnosis never pays for them.
     */
    ZeroRowCheck withQueries(UnaryOperator<String> derive) {
        if (template == null) {
            return this;
        }
        UnaryOperator<String> both = this.derive == null ? derive : text -> derive.apply(this.derive.apply(text));
        return new ZeroRowCheck(method, template, both, queryParameters, expectedRows, tables,
                byKey == null ? null : byKey.withQueries(derive), more == null ? null : more.withQueries(derive));
    }

    public Method method() {
        return method;
    }

    /**
     * For {@link Method#NEWEST_FENCE_QUERY}: a single-column, single-row query with {@code ?} for
     * the application's parameters listed by {@link #queryParameters()}, in order. For
     * {@link Method#KEYS_AFTER_STATEMENT}: a single-row query with one column per
     * {@link #table(int)}, parameters alike.
     */
    public String query() {
        String derived = query;
        if (derived == null && template != null) {
            derived = derive.apply(template);
            query = derived;
        }
        return derived;
    }

    /**
     * The application's (1-based) parameter indexes to bind to the query's parameters 1..n, in
     * order. Empty for a plain statement.
     */
    public int[] queryParameters() {
        return queryParameters.clone();
    }

    /** How many of the query's parameters there are, without copying them. */
    public int queryParameterCount() {
        return queryParameters.length;
    }

    /** The application parameter bound to the query's parameter {@code position} (1-based). */
    public int queryParameter(int position) {
        return queryParameters[position - 1];
    }

    /**
     * For {@link Method#EXPECTED_ROWS}: how many rows the statement proposes. For
     * {@link Method#KEYS_AFTER_STATEMENT}: the same for an upsert with a WHERE of its own whose
     * count is the statement's, else -1 (the count cannot tell).
     */
    public int expectedRows() {
        return expectedRows;
    }

    /** For {@link Method#KEYS_AFTER_STATEMENT}: how many columns the query returns. */
    public int columns() {
        return tables == null ? 0 : tables.length;
    }

    /** For {@link Method#KEYS_AFTER_STATEMENT}: the fenced table whose rows column {@code column} (1-based) reads. */
    public String table(int column) {
        return tables[column - 1];
    }

    @Override
    public String toString() {
        return switch (method) {
            case NEWEST_FENCE_QUERY -> "newest fence query: " + query() + (byKey == null ? "" : "; then by key: "
                    + byKey.query());
            case EXPECTED_ROWS -> "expect " + expectedRows + " changed rows";
            case KEYS_AFTER_STATEMENT -> (expectedRows < 0 ? "after the statement" : "when fewer than " + expectedRows
                    + " rows changed") + ", the rows named by key of " + Arrays.toString(tables) + ": " + query()
                    + (more == null ? "" : "; " + more);
        };
    }
}
