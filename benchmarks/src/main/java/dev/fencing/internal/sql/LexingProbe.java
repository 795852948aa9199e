package dev.fencing.internal.sql;

/**
 * For the benchmarks only (it shares the driver's package to reach its package-private lexer):
 * what an analysis pays to read a text before any parse, the lexer and the backslash test of
 * every token.
 */
public final class LexingProbe {

    private LexingProbe() {
    }

    /** Lexes {@code sql} as the analysis does; the number of tokens, plus those holding a backslash. */
    public static int lex(String sql, Dialect dialect) throws Exception {
        SqlTokens tokens = SqlTokens.lex(sql, dialect);
        int backslashes = 0;
        for (int i = 0; i < tokens.size(); i++) {
            backslashes += tokens.hasBackslash(i) ? 1 : 0;
        }
        return tokens.size() + backslashes;
    }
}
