package dev.fencing.internal.sql;

/**
 * What the first word of a statement says about it: the one owner of the statement-head word lists
 * that the pre-filter, the analysis and the transaction tracker ({@code TransactionText}) read.
 * Two lists that said different things about the same word (the analysis took {@code REPLACE} for
 * transaction control, the tracker did not) refused MariaDB's REPLACE of an epoch-mode table.
 */
public final class StatementHead {

    /**
     * Heads of statements that cannot begin, end or roll back the transaction they run in. With
     * epoch tables any other text (transaction control, DDL that MariaDB and H2 commit implicitly,
     * {@code SET autocommit}, {@code LOCK TABLES}, procedure calls ..) is taken as ending it, so
     * that the connection checks the guard row again instead of trusting a check the database has
     * let go of.
     */
    private static final String[] LEAVES_TRANSACTION_ALONE = {"SELECT", "INSERT", "UPDATE", "DELETE", "MERGE",
            "WITH", "VALUES", "TABLE", "SHOW", "EXPLAIN", "REPLACE", "DESCRIBE", "DESC"};
    /** Heads of DDL that MariaDB and H2 commit implicitly. */
    private static final String[] IMPLICITLY_COMMITTING = {"CREATE", "ALTER", "DROP", "RENAME", "TRUNCATE",
            "GRANT", "REVOKE", "COMMENT", "ANALYZE", "OPTIMIZE", "REPAIR"};
    /** Heads of procedure calls and dynamic SQL. */
    static final String[] DYNAMIC = {"CALL", "EXEC", "EXECUTE", "DO", "PREPARE", "RUNSCRIPT"};
    /** Words that start a MariaDB compound statement (outside a stored program). */
    static final String[] COMPOUND = {"IF", "CASE", "LOOP", "WHILE", "REPEAT", "FOR", "DECLARE"};
    /** Heads after which the metadata's facts (keys, cascades) are read again. */
    static final String[] SCHEMA_CHANGES = {"CREATE", "ALTER", "DROP", "RENAME"};
    /** Heads that end or undo (part of) a transaction: no metadata is read before them. */
    static final String[] TRANSACTION_CONTROL = {"ROLLBACK", "COMMIT", "END", "ABORT", "SAVEPOINT", "RELEASE"};
    static final String[] TEMPORARY = {"TEMP", "TEMPORARY"};
    /**
     * Heads of statements that only read the server's metadata or settings ({@code SHOW CREATE
     * TABLE orders}, {@code SHOW COLUMNS FROM orders}, {@code SHOW search_path}): no form of
     * them writes.
     */
    static final String[] METADATA_READS = {"SHOW"};

    /** {@link #mask} bits. */
    static final int DYNAMIC_BIT = 1;
    static final int TRUNCATE_BIT = 2;
    static final int SCHEMA_BIT = 4;
    static final int LEAVES_TRANSACTION_ALONE_BIT = 8;
    private static final String[] MASK_WORDS;
    private static final int[] MASKS;

    static {
        java.util.Map<String, Integer> masks = new java.util.LinkedHashMap<>();
        for (String[] words : new String[][] {DYNAMIC, COMPOUND, {"BEGIN"}}) {
            for (String word : words) {
                masks.merge(word, DYNAMIC_BIT, (a, b) -> a | b);
            }
        }
        masks.merge("TRUNCATE", TRUNCATE_BIT, (a, b) -> a | b);
        for (String word : SCHEMA_CHANGES) {
            masks.merge(word, SCHEMA_BIT, (a, b) -> a | b);
        }
        for (String word : LEAVES_TRANSACTION_ALONE) {
            masks.merge(word, LEAVES_TRANSACTION_ALONE_BIT, (a, b) -> a | b);
        }
        MASK_WORDS = masks.keySet().toArray(new String[0]);
        MASKS = masks.values().stream().mapToInt(Integer::intValue).toArray();
    }

    private StatementHead() {
    }

    /** True when the word {@code sql[start, end)} heads a statement that cannot end its transaction. */
    public static boolean leavesTransactionAlone(String sql, int start, int end) {
        return isAny(sql, start, end, LEAVES_TRANSACTION_ALONE);
    }

    /** True when the word {@code sql[start, end)} heads DDL that MariaDB and H2 commit implicitly. */
    public static boolean implicitlyCommits(String sql, int start, int end) {
        return isAny(sql, start, end, IMPLICITLY_COMMITTING);
    }

    /** True when token {@code token} of {@code tokens} heads a statement that cannot end its transaction. */
    static boolean leavesTransactionAlone(SqlTokens tokens, int token) {
        return isAnyWord(tokens, token, LEAVES_TRANSACTION_ALONE);
    }

    /** True when token {@code token} is one of {@code words}. */
    static boolean isAnyWord(SqlTokens tokens, int token, String[] words) {
        for (String word : words) {
            if (tokens.isWord(token, word)) {
                return true;
            }
        }
        return false;
    }

    /** True when token {@code head}, the first of a statement, makes it a procedure call or dynamic SQL. */
    static boolean isDynamic(SqlTokens tokens, int head) {
        return tokens.kind(head) == SqlTokens.JDBC_ESCAPE_OPEN || isAnyWord(tokens, head, DYNAMIC);
    }

    /** The position of the first character of {@code sql} from {@code from} that is not SQL white space. */
    static int skipSpace(String sql, int from) {
        int i = from;
        while (i < sql.length() && isSpace(sql.charAt(i))) {
            i++;
        }
        return i;
    }

    /** SQL white space as every supported server reads it between tokens. */
    static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
    }

    /**
     * What the text's first word (after white space, not comments) is, as {@code *_BIT} bits: one
     * pass over the word and a length-and-letter match against the words the pre-filter asks about.
     */
    static int mask(String sql) {
        int i = skipSpace(sql, 0);
        int end = i;
        while (end < sql.length() && (Character.isLetterOrDigit(sql.charAt(end)) || sql.charAt(end) == '_')) {
            end++;
        }
        int length = end - i;
        if (length == 0) {
            return 0;
        }
        char first = Character.toUpperCase(sql.charAt(i));
        int mask = 0;
        for (int k = 0; k < MASK_WORDS.length; k++) {
            String word = MASK_WORDS[k];
            if (word.length() == length && word.charAt(0) == first && sql.regionMatches(true, i, word, 0, length)) {
                mask |= MASKS[k];
            }
        }
        return mask;
    }

    /** True when the first word (after white space) is one of {@code words}. */
    static boolean startsWithAny(String sql, String[] words) {
        int i = skipSpace(sql, 0);
        for (String word : words) {
            int end = i + word.length();
            if (sql.regionMatches(true, i, word, 0, word.length())
                    && (end == sql.length() || !Character.isLetterOrDigit(sql.charAt(end)) && sql.charAt(end) != '_')) {
                return true;
            }
        }
        return false;
    }

    private static boolean isAny(String sql, int start, int end, String[] words) {
        for (String word : words) {
            if (end - start == word.length() && sql.regionMatches(true, start, word, 0, word.length())) {
                return true;
            }
        }
        return false;
    }
}
