package dev.fencing.internal.sql;

/**
 * One statement of a text, read only: tokens {@code [from, to)} of the text's tokens, which the
 * text {@code [rawFrom, rawTo)} holds with the comments around it.
 *
 * @param names the raw text may name a fenced table (or a table whose writes cascade into one)
 */
record StatementView(String sql, SqlTokens tokens, int from, int to, int rawFrom, int rawTo, boolean names) {

    /** The statement's text, comments around it included. */
    String raw() {
        return sql.substring(rawFrom, rawTo);
    }

    boolean isWord(int token, String word) {
        return tokens.isWord(token, word);
    }

    boolean isAnyWord(int token, String[] words) {
        return StatementHead.isAnyWord(tokens, token, words);
    }

    /** The index of the token that closes the parenthesis opened at {@code open}, or the last token. */
    int closeOf(int open) {
        int depth = tokens.depth(open);
        for (int i = open + 1; i < tokens.size(); i++) {
            if (tokens.kind(i) == SqlTokens.CLOSE && tokens.depth(i) == depth) {
                return i;
            }
        }
        return tokens.size() - 1;
    }
}
