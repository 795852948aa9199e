package dev.fencing.internal.sql;

/**
 * How to tell, after a fenced write changed no row, whether the fence was the reason.
 * Immutable and fence-independent, like the plan that holds it.
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
        EXPECTED_ROWS
    }

    private final Method method;
    private final String query;
    private final int[] queryParameters;
    private final int expectedRows;

    private final ZeroRowCheck byKey;

    private ZeroRowCheck(Method method, String query, int[] queryParameters, int expectedRows, ZeroRowCheck byKey) {
        this.method = method;
        this.query = query;
        this.queryParameters = queryParameters;
        this.expectedRows = expectedRows;
        this.byKey = byKey;
    }

    static ZeroRowCheck newestFenceQuery(String query, int[] applicationParameters) {
        return new ZeroRowCheck(Method.NEWEST_FENCE_QUERY, query, applicationParameters.clone(), -1, null);
    }

    /**
     * @param byKey the same question asked of the rows the write's key conjuncts identify, for when
     *              no row matches the whole predicate; null when the predicate names no whole key
     */
    static ZeroRowCheck newestFenceQuery(String query, int[] applicationParameters, ZeroRowCheck byKey) {
        return new ZeroRowCheck(Method.NEWEST_FENCE_QUERY, query, applicationParameters.clone(), -1, byKey);
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

    /** The same check with its queries passed through {@code derive} (a shape's literals put back). */
    ZeroRowCheck withQueries(java.util.function.UnaryOperator<String> derive) {
        if (query == null) {
            return this;
        }
        return new ZeroRowCheck(method, derive.apply(query), queryParameters, expectedRows,
                byKey == null ? null : byKey.withQueries(derive));
    }

    static ZeroRowCheck expectedRows(int rows) {
        return new ZeroRowCheck(Method.EXPECTED_ROWS, null, new int[0], rows, null);
    }

    public Method method() {
        return method;
    }

    /**
     * For {@link Method#NEWEST_FENCE_QUERY}: a single-column, single-row query with {@code ?} for
     * the application's parameters listed by {@link #queryParameters()}, in order.
     */
    public String query() {
        return query;
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

    /** For {@link Method#EXPECTED_ROWS}: how many rows the statement proposes. */
    public int expectedRows() {
        return expectedRows;
    }

    @Override
    public String toString() {
        return method == Method.NEWEST_FENCE_QUERY
                ? "newest fence query: " + query + (byKey == null ? "" : "; then by key: " + byKey.query)
                : "expect " + expectedRows + " changed rows";
    }
}
