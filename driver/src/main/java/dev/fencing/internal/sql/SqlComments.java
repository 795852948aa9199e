package dev.fencing.internal.sql;

/**
 * Per-construct readings of comments that more than one reader of SQL text needs (the lexer,
 * {@link SqlTokens}, and the transaction tracker's head reader), so that they cannot disagree
 * about where code hides in a comment.
 */
public final class SqlComments {

    private SqlComments() {
    }

    /**
     * True when the {@code /*} at {@code slash} opens one of MariaDB's executable comments,
     * {@code /*!..*}{@code /} or {@code /*M!..*}{@code /} (with or without a version number),
     * whose content the server runs as SQL. Only asked where {@link Dialect#executableComments()}.
     */
    public static boolean opensExecutableComment(String sql, int slash) {
        int n = sql.length();
        return slash + 2 < n && (sql.charAt(slash + 2) == '!'
                || (sql.charAt(slash + 2) == 'M' && slash + 3 < n && sql.charAt(slash + 3) == '!'));
    }
}
