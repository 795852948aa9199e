package dev.fencing.internal.sql;

/**
 * Which texts need no analysis: one cheap pass over a text that names no fenced table (the
 * {@link FencedNameFilter} decided that) to see whether it may still run or hide a write, read
 * from its head ({@link StatementHead}) and from the few characters that start a comment, a
 * second statement, a JDBC escape or SQL-level {@code EXECUTE}. Everything it is unsure of is
 * analysed.
 */
final class PreFilter {

    private final Dialect dialect;
    private final boolean epochTables;

    PreFilter(Dialect dialect, boolean epochTables) {
        this.dialect = dialect;
        this.epochTables = epochTables;
    }

    /**
     * The plan of {@code sql} when it needs no analysis, or null when it must be analysed.
     *
     * @param mentionsWatchedTable the name filters' answer: the text may name a fenced table or a
     *                             table whose writes cascade into one
     */
    FencePlan plan(String sql, boolean mentionsWatchedTable) {
        int head = StatementHead.mask(sql);
        if (mentionsWatchedTable || mayRunDynamicSql(sql, head) || (head & StatementHead.TRUNCATE_BIT) != 0
                || (epochTables && (head & StatementHead.LEAVES_TRANSACTION_ALONE_BIT) == 0)
                || (dialect.writesLargeObjectsByFunction() && mayWriteLargeObject(sql))) {
            return null;
        }
        // a text with a semicolon anywhere was sent to the analysis above (mayRunDynamicSql)
        FencePlan oneStatement = FencePlan.passThrough(sql).withSeveralStatements(false);
        return changesSchema(sql, head) ? oneStatement.withSchemaChange() : oneStatement;
    }

    /** True when the text may change the schema: a CREATE, ALTER, DROP or RENAME not of a temporary table. */
    static boolean changesSchema(String sql) {
        return changesSchema(sql, StatementHead.mask(sql));
    }

    private static boolean changesSchema(String sql, int head) {
        return (head & StatementHead.SCHEMA_BIT) != 0 && !isTemporaryTableChange(sql);
    }

    /**
     * Cheap test for a text that needs a closer look although it names no fenced table: it may
     * start a procedure call or dynamic SQL, or holds several statements. Only a text that starts
     * with a plain ASCII word other than a procedure keyword, and has no comment, semicolon or
     * JDBC escape anywhere, is cleared here; everything else is lexed with the dialect's rules.
     */
    private static boolean mayRunDynamicSql(String sql, int head) {
        int n = sql.length();
        int i = StatementHead.skipSpace(sql, 0);
        if (i == n) {
            return false;
        }
        char first = sql.charAt(i);
        if (!((first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z') || first == '(')) {
            return true;
        }
        for (int j = i; j < n; j++) {
            char c = sql.charAt(j);
            if (c == ';' || c == '{' || c == '#' || (c == '-' && j + 1 < n && sql.charAt(j + 1) == '-')
                    || (c == '/' && j + 1 < n && (sql.charAt(j + 1) == '*' || sql.charAt(j + 1) == '/'))
                    // SQL-level EXECUTE hides in wrappers (EXPLAIN ANALYZE EXECUTE, CREATE TABLE .. AS EXECUTE)
                    || ((c | 0x20) == 'e' && j + 6 < n && (sql.charAt(j + 1) | 0x20) == 'x'
                    && sql.regionMatches(true, j, "execute", 0, 7))) {
                return true;
            }
        }
        return (head & StatementHead.DYNAMIC_BIT) != 0;
    }

    /**
     * {@code CREATE [GLOBAL|LOCAL] TEMP[ORARY] ..} and {@code DROP TEMPORARY ..}: a temporary table
     * can be referenced by no permanent table, so its DDL changes no fact about the fenced tables
     * (and applications that make one per request do not pay a metadata read each time).
     */
    private static boolean isTemporaryTableChange(String sql) {
        int first = StatementHead.skipSpace(sql, 0);
        int firstEnd = wordEnd(sql, first);
        int second = StatementHead.skipSpace(sql, firstEnd);
        int secondEnd = wordEnd(sql, second);
        if (second == firstEnd || secondEnd == second || StatementHead.skipSpace(sql, secondEnd) == sql.length()) {
            return false; // fewer than three words
        }
        if (is(sql, second, secondEnd, "GLOBAL") || is(sql, second, secondEnd, "LOCAL")) {
            second = StatementHead.skipSpace(sql, secondEnd);
            if (second == secondEnd) {
                return false;
            }
            secondEnd = wordEnd(sql, second);
        }
        return (is(sql, first, firstEnd, "CREATE") || is(sql, first, firstEnd, "DROP"))
                && (is(sql, second, secondEnd, "TEMP") || is(sql, second, secondEnd, "TEMPORARY"));
    }

    /** The end of the run of characters from {@code start} that are not SQL white space. */
    private static int wordEnd(String sql, int start) {
        int i = start;
        while (i < sql.length() && !StatementHead.isSpace(sql.charAt(i))) {
            i++;
        }
        return i;
    }

    private static boolean is(String sql, int start, int end, String word) {
        return end - start == word.length() && sql.regionMatches(true, start, word, 0, word.length());
    }

    /**
     * False when no token of {@code sql} can name a large-object write: it never spells "lo_",
     * "lowrite" or "largeobject" (any case; a {@code U&"} name, which can spell them, is sent to
     * the analysis by the name filter). One pass, as it runs on texts the pre-filter would
     * otherwise pass.
     */
    static boolean mayWriteLargeObject(String sql) {
        for (int i = 0, last = sql.length() - 3; i <= last; i++) {
            char c = (char) (sql.charAt(i) | 0x20);
            if ((c == 'l' && (sql.charAt(i + 1) | 0x20) == 'o'
                    && (sql.charAt(i + 2) == '_' || sql.regionMatches(true, i + 2, "write", 0, 5)))
                    || (c == 'l' && sql.regionMatches(true, i, "largeobject", 0, 11))) {
                return true;
            }
        }
        return false;
    }
}
