package dev.fencing.internal.sql;

/**
 * Text whose reading depends on the session or the JDBC driver: strings whose end depends on
 * whether their backslashes escape (a session setting decides) and JDBC escapes. Each rule answers {@link Decision#PASS}
 * or a {@link Decision.Refuse}.
 */
final class TextRules {

    private TextRules() {
    }

    /**
     * Where a quoted string ends can depend on the session when a backslash stands before a quote
     * in it: PostgreSQL's {@code standard_conforming_strings} (set by {@code SET},
     * {@code set_config}, the URL's {@code options} or the server) and MariaDB's
     * {@code NO_BACKSLASH_ESCAPES} and {@code ANSI_QUOTES} decide whether the backslash escapes,
     * and the setting can change inside the same text. Such a string may hide or reveal a
     * neighbouring statement, so it is refused anywhere in a text that may hold several statements
     * (any {@code ;}) or mentions a fenced table (or a table whose writes cascade into one). A
     * string that ends at the same place whether or not its backslashes escape
     * ({@code 'it''s \ fine'}, {@code 'a\\b'}) reads the same in every session and passes.
     */
    static Decision backslashString(AnalysisContext context, String sql, SqlTokens tokens) {
        if (!context.dialect().backslashEscapingDependsOnSession() || (sql.indexOf(';') < 0 && !context.mentionsWatchedTable(sql))) {
            return Decision.PASS;
        }
        for (int i = 0; i < tokens.size(); i++) {
            if (tokens.backslashMovesEnd(i)) {
                return Decision.refuse("a string literal whose end depends on whether its backslashes escape ("
                        + AnalysisContext.abbreviate(tokens.text(i)) + "), in a text that mentions a fenced table or may"
                        + " hold several statements: whether a backslash escapes depends on session settings"
                        + " (standard_conforming_strings, NO_BACKSLASH_ESCAPES, ANSI_QUOTES) that the text itself can"
                        + " change; write a quote inside a string by doubling it ('it''s'), bind the value as a"
                        + " parameter, or send the statements one at a time");
            }
        }
        return Decision.PASS;
    }

    /**
     * Text the server may read in another client encoding than the one it starts in. The server
     * reads the statements of one text one after the other, and an earlier one can change the
     * encoding the later ones are read in ({@code SET NAMES}, {@code SET client_encoding},
     * {@code set_config}); the encoding checked before the text is sent is then not theirs, and
     * a non-ASCII character in them may end a string or a name elsewhere. H2 receives Java strings.
     */
    static Decision clientEncodingChange(AnalysisContext context, String sql, SqlTokens tokens) {
        if (!context.dialect().checksClientEncoding()) {
            return Decision.PASS;
        }
        int firstEnd = tokens.firstStatementEnd();
        if (firstEnd < 0) {
            return Decision.PASS;
        }
        for (int c = tokens.start(firstEnd); c < sql.length(); c++) {
            if (sql.charAt(c) >= 0x80) {
                return Decision.refuse("a text of several statements with non-ASCII characters after the first:"
                        + " an earlier statement may change the session's client encoding (SET NAMES, SET"
                        + " client_encoding, set_config) before the server reads the later ones, and then where"
                        + " their strings and names end cannot be known; send the statements one at a time");
            }
        }
        return Decision.PASS;
    }

    /** JDBC escapes, whose reading depends on the JDBC driver. */
    static Decision sessionDependentText(StatementView statement) {
        SqlTokens tokens = statement.tokens();
        for (int i = statement.from(); i < statement.to(); i++) {
            if (tokens.kind(i) == SqlTokens.JDBC_ESCAPE_OPEN) {
                return Decision.refuse("JDBC escape syntax ({fn ..}, {d ..}, {oj ..}) in a statement on a fenced table"
                        + " cannot be analysed; write the native SQL instead");
            }
        }
        return Decision.PASS;
    }
}
