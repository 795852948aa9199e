package dev.fencing.internal.sql;

/**
 * Text whose reading depends on the session or the JDBC driver: strings with a backslash (where
 * they end depends on session settings) and JDBC escapes. Each rule answers {@link Decision#PASS}
 * or a {@link Decision.Refuse}.
 */
final class TextRules {

    private TextRules() {
    }

    /**
     * Where a quoted string with a backslash ends depends on the session (PostgreSQL's
     * {@code standard_conforming_strings}, set by {@code SET}, {@code set_config}, the URL's
     * {@code options} or the server; MariaDB's {@code NO_BACKSLASH_ESCAPES}), and the setting
     * can change inside the same text. Such a string may hide or reveal a neighbouring
     * statement, so it is refused anywhere in a text that may hold several statements (any
     * {@code ;}) or names a fenced table. Dollar-quoted strings read the same in every session.
     */
    static Decision backslashString(AnalysisContext context, String sql, SqlTokens tokens) {
        if (context.dialect() == Dialect.H2 || (sql.indexOf(';') < 0 && !context.filter().mayNameFencedTable(sql))) {
            return Decision.PASS;
        }
        for (int i = 0; i < tokens.size(); i++) {
            if (tokens.kind(i) == SqlTokens.STRING && tokens.hasBackslash(i) && sql.charAt(tokens.start(i)) != '$') {
                return Decision.refuse("a string literal with a backslash in a text that names a fenced table or may hold"
                        + " several statements: where it ends depends on session settings (standard_conforming_strings,"
                        + " NO_BACKSLASH_ESCAPES) that the text itself can change; bind the value as a parameter, or send"
                        + " the statements one at a time");
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
        for (int i = 0; i < tokens.size(); i++) {
            if (tokens.kind(i) == SqlTokens.SEMICOLON && tokens.depth(i) == 0) {
                for (int c = tokens.start(i); c < sql.length(); c++) {
                    if (sql.charAt(c) >= 0x80) {
                        return Decision.refuse("a text of several statements with non-ASCII characters after the first:"
                                + " an earlier statement may change the session's client encoding (SET NAMES, SET"
                                + " client_encoding, set_config) before the server reads the later ones, and then where"
                                + " their strings and names end cannot be known; send the statements one at a time");
                    }
                }
                return Decision.PASS;
            }
        }
        return Decision.PASS;
    }

    /**
     * Text whose reading depends on the session or the JDBC driver: on MariaDB a backslash in any
     * string of the text; JDBC escapes.
     */
    static Decision sessionDependentText(AnalysisContext context, StatementView statement) {
        SqlTokens tokens = statement.tokens();
        if (context.dialect() == Dialect.MARIADB && backslashStringIn(tokens)) {
            // NO_BACKSLASH_ESCAPES and ANSI_QUOTES move where a string ends, and with it where
            // every later statement of the text starts: a neighbour's string counts too
            return Decision.refuse("a string literal with a backslash in a text that writes or reads a fenced table:"
                    + " where it ends, and so where the next statement starts, depends on the session's sql_mode"
                    + " (NO_BACKSLASH_ESCAPES, ANSI_QUOTES); bind the value as a parameter instead");
        }
        for (int i = statement.from(); i < statement.to(); i++) {
            if (tokens.kind(i) == SqlTokens.JDBC_ESCAPE_OPEN) {
                return Decision.refuse("JDBC escape syntax ({fn ..}, {d ..}, {oj ..}) in a statement on a fenced table"
                        + " cannot be analysed; write the native SQL instead");
            }
        }
        return Decision.PASS;
    }

    private static boolean backslashStringIn(SqlTokens tokens) {
        for (int i = 0; i < tokens.size(); i++) {
            if (tokens.kind(i) == SqlTokens.STRING && tokens.hasBackslash(i)) {
                return true;
            }
        }
        return false;
    }
}
