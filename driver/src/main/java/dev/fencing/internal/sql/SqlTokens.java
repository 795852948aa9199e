package dev.fencing.internal.sql;

import java.util.Arrays;
import java.util.Locale;

/**
 * The significant tokens of a SQL text (comments and white space dropped), with their offsets in
 * the text and their parenthesis depth. Positions found here are where the analyzer splices the
 * check, so the lexer follows each dialect's quoting rules exactly: a {@code ?}, a keyword or a
 * semicolon inside a string, a quoted identifier or a comment is never taken for one outside.
 */
final class SqlTokens {

    static final byte WORD = 1;
    static final byte QUOTED_IDENTIFIER = 2;
    static final byte STRING = 3;
    static final byte NUMBER = 4;
    static final byte PARAMETER = 5;
    static final byte OPEN = 6;
    static final byte CLOSE = 7;
    static final byte COMMA = 8;
    static final byte SEMICOLON = 9;
    static final byte DOT = 10;
    static final byte OPERATOR = 11;
    /** A MariaDB {@code /*! ... *}{@code /} comment, which the server executes as code. */
    static final byte EXECUTABLE_COMMENT = 12;
    static final byte JDBC_ESCAPE_OPEN = 13;

    final String sql;
    private byte[] kinds = new byte[32];
    private int[] starts = new int[32];
    private int[] ends = new int[32];
    private int[] depths = new int[32];
    private int size;
    /** The index of the first {@link #SEMICOLON} outside parentheses, or -1. */
    private int firstStatementEnd = -1;
    /**
     * The characters the lexer has looked at: each character of the text once as the scan passes
     * it, plus every character a rule looks at again ({@link #hasBackslash}, H2's bracket rule).
     * Linear in the text's length; a test holds it to that.
     */
    private long visited;

    private SqlTokens(String sql) {
        this.sql = sql;
    }

    /** Thrown when the text cannot be read (an unterminated string, comment or quote). */
    static final class UnreadableSqlException extends Exception {
        private static final long serialVersionUID = 1L;

        UnreadableSqlException(String message) {
            super(message, null, false, false);
        }
    }

    static SqlTokens lex(String sql, Dialect dialect) throws UnreadableSqlException {
        return lex(sql, dialect, AnalysisBudget.UNLIMITED);
    }

    /** The tokens of {@code sql}, the scan's steps spent from {@code budget} (which may stop it). */
    static SqlTokens lex(String sql, Dialect dialect, AnalysisBudget budget) throws UnreadableSqlException {
        SqlTokens tokens = new SqlTokens(sql);
        tokens.scan(dialect, budget);
        return tokens;
    }

    /** How many characters the lexer (and the rules that read tokens again) have looked at so far. */
    long visited() {
        return visited + (brackets == null ? 0 : brackets.visited());
    }

    int size() {
        return size;
    }

    byte kind(int i) {
        return kinds[i];
    }

    int start(int i) {
        return starts[i];
    }

    int end(int i) {
        return ends[i];
    }

    /** Parenthesis (and bracket) depth of token {@code i}; an opening parenthesis has the outer depth. */
    int depth(int i) {
        return depths[i];
    }

    /** The index of the token that ends the first statement (a {@code ;} outside parentheses), or -1 when none does. */
    int firstStatementEnd() {
        return firstStatementEnd;
    }

    /**
     * True when the text holds a statement after its first: a semicolon outside strings, names,
     * comments and parentheses with a token after it.
     */
    boolean holdsSeveralStatements() {
        return firstStatementEnd >= 0 && firstStatementEnd < size - 1;
    }

    String text(int i) {
        return sql.substring(starts[i], ends[i]);
    }

    /** True when token {@code i} holds a backslash; reads the token only. */
    boolean hasBackslash(int i) {
        return holdsBackslash(starts[i], ends[i]);
    }

    /**
     * True when string token {@code i} would end elsewhere if its backslashes were read the other
     * way: as escapes where this lexer reads them as characters, or as characters where it reads
     * them as escapes. Where such a string ends depends on session settings (PostgreSQL's
     * {@code standard_conforming_strings}, MariaDB's {@code NO_BACKSLASH_ESCAPES} and
     * {@code ANSI_QUOTES}). A string whose backslashes stand before no quote ({@code 'a\\b'},
     * {@code 'it''s \ fine'}) ends at the same place in every session. Dollar-quoted strings
     * have no escapes. Reads the token and at most one character past it.
     */
    boolean backslashMovesEnd(int i) {
        int start = starts[i];
        int end = ends[i];
        if (kinds[i] != STRING || sql.charAt(start) == '$' || !hasBackslash(i)) {
            return false;
        }
        int quote = start;
        while (sql.charAt(quote) != '\'' && sql.charAt(quote) != '"') {
            quote++; // past a prefix: E, N, B, X, U&
        }
        char q = sql.charAt(quote);
        return closingEnd(quote, q, true, end) != end || closingEnd(quote, q, false, end) != end;
    }

    private boolean holdsBackslash(int from, int to) {
        visited += to - from;
        for (int j = from; j < to; j++) {
            if (sql.charAt(j) == '\\') {
                return true;
            }
        }
        return false;
    }

    /** True when token {@code i} is {@code ??}, which pgjdbc sends to the server as one {@code ?}. */
    boolean isEscapedQuestionMark(int i) {
        return kinds[i] == OPERATOR && ends[i] - starts[i] == 2 && sql.charAt(starts[i]) == '?';
    }

    /** True when token {@code i} is the unquoted word {@code keyword} (any case). */
    boolean isWord(int i, String keyword) {
        return i >= 0 && i < size && kinds[i] == WORD && ends[i] - starts[i] == keyword.length()
                && sql.regionMatches(true, starts[i], keyword, 0, keyword.length());
    }

    boolean isIdentifier(int i) {
        return i >= 0 && i < size && (kinds[i] == WORD || kinds[i] == QUOTED_IDENTIFIER);
    }

    /**
     * True when token {@code i} is a Unicode-escaped name ({@code U&".."}, PostgreSQL and H2),
     * whose escapes can spell any name.
     */
    boolean isUnicodeEscapedName(int i) {
        return kinds[i] == QUOTED_IDENTIFIER && (sql.charAt(starts[i]) | 0x20) == 'u' && sql.charAt(starts[i] + 1) == '&';
    }

    /** The token's identifier value: unquoted, folded to lower case. */
    String identifier(int i) {
        return dev.fencing.internal.config.Identifiers.unquote(text(i)).toLowerCase(Locale.ROOT);
    }

    private void add(byte kind, int start, int end, int depth) {
        if (size == kinds.length) {
            int capacity = size * 2;
            kinds = Arrays.copyOf(kinds, capacity);
            starts = Arrays.copyOf(starts, capacity);
            ends = Arrays.copyOf(ends, capacity);
            depths = Arrays.copyOf(depths, capacity);
        }
        if (kind <= QUOTED_IDENTIFIER) {
            words++;
        }
        kinds[size] = kind;
        starts[size] = start;
        ends[size] = end;
        depths[size] = depth;
        size++;
    }

    private SqlLexing rules;
    /** {@link #rules}' answers the per-character tests need, read once per text. */
    private boolean nonAsciiNames;
    private boolean unicodeSpaces;
    /** Start and end offsets of MariaDB's '#' comments, in pairs (the first {@link #hashCommentEnds} ints); null when none. */
    private int[] hashComments;
    private int hashCommentEnds;

    /**
     * The MariaDB {@code #} comments (start, end offset pairs), which JSqlParser does not know:
     * it is given them blanked. Empty when there are none.
     */
    int[] hashComments() {
        return hashComments == null ? new int[0] : Arrays.copyOf(hashComments, hashCommentEnds);
    }

    private void addHashComment(int start, int end) {
        if (hashComments == null) {
            hashComments = new int[8];
        } else if (hashCommentEnds == hashComments.length) {
            hashComments = Arrays.copyOf(hashComments, hashCommentEnds * 2);
        }
        hashComments[hashCommentEnds++] = start;
        hashComments[hashCommentEnds++] = end;
    }

    /**
     * Characters that may continue an unquoted identifier. PostgreSQL and MariaDB take every
     * character above U+007F (and PostgreSQL a {@code $}); reading one as an operator instead
     * would shift every position after it.
     */
    private boolean isIdentifierPart(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$' || (c >= 0x80 && nonAsciiNames);
    }

    private boolean isIdentifierStart(char c) {
        return Character.isLetter(c) || c == '_' || (c >= 0x80 && nonAsciiNames);
    }

    /** H2 reads Java's space characters (a no-break space too) as white space; the others only ASCII ones. */
    private boolean isSpace(char c) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0x0B) {
            return true;
        }
        return unicodeSpaces && (Character.isWhitespace(c) || Character.isSpaceChar(c));
    }

    /**
     * The lexer's one loop over the text, a branch per construct: it stays one method (over 60
     * lines) because each branch hands its construct to a helper and the order of the tests is
     * itself the dialect's reading (a comment before an operator, a prefix before a word).
     */
    private void scan(Dialect dialect, AnalysisBudget budget) throws UnreadableSqlException {
        this.rules = dialect.lexing();
        this.nonAsciiNames = rules.nonAsciiNameCharacters();
        this.unicodeSpaces = rules.unicodeSpacesAreWhiteSpace();
        final String s = sql;
        final int n = s.length();
        final boolean mysql = dialect.mysqlLexing();
        int depth = 0;
        int i = 0;
        int spentTo = 0;
        while (i < n) {
            if (i - spentTo >= 1024) {
                budget.spend(i - spentTo);
                spentTo = i;
            }
            char c = s.charAt(i);
            if (isSpace(c)) {
                i++;
            } else if (c == '-' && i + 1 < n && s.charAt(i + 1) == '-'
                    && (!mysql || i + 2 >= n || s.charAt(i + 2) <= ' ' || s.charAt(i + 2) == 0x7F)) {
                // MariaDB needs an ASCII space or control character after "--" (my_isspace/my_iscntrl
                // on the next byte): a Unicode space (U+2028, U+3000, U+00A0) leaves two minus signs
                i = lineEnd(i, !mysql);
            } else if (mysql && c == '#') {
                int end = lineEnd(i, false);
                addHashComment(i, end);
                i = end;
            } else if (rules.doubleSlashComments() && c == '/' && i + 1 < n && s.charAt(i + 1) == '/') {
                i = lineEnd(i, true);
            } else if (c == '/' && i + 1 < n && s.charAt(i + 1) == '*') {
                boolean executable = mysql && SqlComments.opensExecutableComment(s, i);
                int end = mysql && !executable ? plainMariaDbCommentEnd(i) : blockCommentEnd(i, !mysql);
                if (executable) {
                    add(EXECUTABLE_COMMENT, i, end, depth);
                }
                i = end;
            } else if (c == '\'') {
                int end = quotedEnd(i, '\'', mysql);
                add(STRING, i, end, depth);
                i = end;
            } else if (c == '"') {
                int end = quotedEnd(i, '"', mysql);
                add(mysql ? STRING : QUOTED_IDENTIFIER, i, end, depth);
                i = end;
            } else if (c == '`' && rules.backtickQuotedNames()) {
                int end = quotedEnd(i, '`', false);
                add(QUOTED_IDENTIFIER, i, end, depth);
                i = end;
            } else if (c == '$' && rules.onlyUntaggedDollarQuotes() && !(i > 0 && isIdentifierPart(s.charAt(i - 1)))
                    && !(i + 1 < n && (s.charAt(i + 1) == '$' || Character.isDigit(s.charAt(i + 1))))) {
                // H2 opens a dollar quote only with "$$" and reads any other lone '$' as a parameter
                throw new UnreadableSqlException("a lone '$' at offset " + i + " (H2 reads it as a parameter)");
            } else if (c == '$' && !mysql && dollarTagEnd(i) > 0) {
                int end = dollarQuotedEnd(i);
                add(STRING, i, end, depth);
                i = end;
            } else if (isPrefixedString(i, mysql)) {
                int quote = s.indexOf('\'', i);
                // H2 reads E'..' as a plain string: a backslash escapes nothing there
                boolean backslashes = mysql || (Character.toUpperCase(c) == 'E' && rules.escapeStringPrefix());
                int end = quotedEnd(quote, '\'', backslashes);
                add(STRING, i, end, depth);
                i = end;
            } else if (c == 'U' || c == 'u') {
                if (i + 2 < n && s.charAt(i + 1) == '&' && s.charAt(i + 2) == '"' && !mysql) {
                    int end = quotedEnd(i + 2, '"', false);
                    add(QUOTED_IDENTIFIER, i, end, depth);
                    i = end;
                } else {
                    i = word(i, depth);
                }
            } else if (isIdentifierStart(c)) {
                i = word(i, depth);
            } else if (Character.isDigit(c) || (c == '.' && i + 1 < n && Character.isDigit(s.charAt(i + 1)))) {
                int end = i + 1;
                while (end < n && (Character.isLetterOrDigit(s.charAt(end)) || s.charAt(end) == '.'
                        || s.charAt(end) == '_'
                        || ((s.charAt(end) == '+' || s.charAt(end) == '-')
                        && (s.charAt(end - 1) == 'e' || s.charAt(end - 1) == 'E')))) {
                    end++;
                }
                add(NUMBER, i, end, depth);
                i = end;
            } else if (c == '?') {
                if (i + 1 < n && s.charAt(i + 1) == '?') {
                    // pgjdbc sends "??" as the operator character '?' ("??|" as "?|"): no parameter
                    add(OPERATOR, i, i + 2, depth);
                    i += 2;
                } else {
                    add(PARAMETER, i, i + 1, depth);
                    i++;
                }
            } else if (c == '(' || c == '[') {
                add(OPEN, i, i + 1, depth);
                if (rules.squareBracketsMayQuoteNames()) {
                    if (brackets == null) {
                        brackets = new SquareBracketNames(s);
                    }
                    brackets.open(depth, size - 1, i, c == '[', words);
                }
                depth++;
                i++;
            } else if (c == ')' || c == ']') {
                depth--;
                if (depth < 0) {
                    throw new UnreadableSqlException("unbalanced ')' at offset " + i);
                }
                if (brackets != null) {
                    brackets.close(depth, i, starts[brackets.opener(depth)], words);
                }
                add(CLOSE, i, i + 1, depth);
                i++;
            } else if (c == '{') {
                add(JDBC_ESCAPE_OPEN, i, i + 1, depth);
                i++;
            } else if (c == ',') {
                add(COMMA, i, i + 1, depth);
                i++;
            } else if (c == ';') {
                if (depth == 0 && firstStatementEnd < 0) {
                    firstStatementEnd = size;
                }
                add(SEMICOLON, i, i + 1, depth);
                i++;
            } else if (c == '.') {
                add(DOT, i, i + 1, depth);
                i++;
            } else {
                add(OPERATOR, i, i + 1, depth);
                i++;
            }
        }
        if (depth != 0) {
            throw new UnreadableSqlException("unbalanced '(': " + depth + " left open");
        }
        visited += n;
        budget.spend(n - spentTo);
    }

    /** How many {@link #WORD} and {@link #QUOTED_IDENTIFIER} tokens there are so far. */
    private int words;
    /** H2's {@code [..]} rule, made at the first parenthesis or bracket; null elsewhere. */
    private SquareBracketNames brackets;

    private int word(int i, int depth) {
        final String s = sql;
        int end = i + 1;
        while (end < s.length() && isIdentifierPart(s.charAt(end))) {
            end++;
        }
        add(WORD, i, end, depth);
        return end;
    }

    /** The end of a line comment: PostgreSQL and H2 also end it at a lone carriage return. */
    private int lineEnd(int i, boolean carriageReturnEnds) {
        for (int j = i; j < sql.length(); j++) {
            char c = sql.charAt(j);
            if (c == '\n' || (c == '\r' && carriageReturnEnds)) {
                return j + 1;
            }
        }
        return sql.length();
    }

    /**
     * MariaDB ends a plain comment at the first "*" "/" after its opening (sql_lex.cc
     * consume_comment: no nesting outside executable comments), so in {@code /*}{@code /*}{@code /}
     * the second slash-star does not open anything and its star closes the comment.
     */
    private int plainMariaDbCommentEnd(int i) throws UnreadableSqlException {
        int close = sql.indexOf("*/", i + 2);
        if (close < 0) {
            throw new UnreadableSqlException("unterminated comment starting at offset " + i);
        }
        return close + 2;
    }

    private int blockCommentEnd(int i, boolean nested) throws UnreadableSqlException {
        int level = 0;
        int j = i;
        final String s = sql;
        while (j < s.length() - 1) {
            if (s.charAt(j) == '/' && s.charAt(j + 1) == '*') {
                level++;
                j += 2;
                if (!nested && level > 1) {
                    level = 1;
                }
            } else if (s.charAt(j) == '*' && s.charAt(j + 1) == '/') {
                level--;
                j += 2;
                if (level == 0) {
                    return j;
                }
            } else {
                j++;
            }
        }
        throw new UnreadableSqlException("unterminated comment starting at offset " + i);
    }

    /** The end (exclusive) of a quoted run that starts at {@code i}; the quote doubles to escape itself. */
    private int quotedEnd(int i, char quote, boolean backslashEscapes) throws UnreadableSqlException {
        int end = closingEnd(i, quote, backslashEscapes, sql.length());
        if (end < 0) {
            throw new UnreadableSqlException("unterminated " + quote + " quote starting at offset " + i);
        }
        return end;
    }

    /**
     * The end (exclusive) of the quoted run that starts at {@code i} when its closing quote stands
     * before {@code limit}, else -1.
     */
    private int closingEnd(int i, char quote, boolean backslashEscapes, int limit) {
        final String s = sql;
        int j = i + 1;
        while (j < limit) {
            char c = s.charAt(j);
            if (backslashEscapes && c == '\\') {
                j += 2;
            } else if (c == quote) {
                if (j + 1 < s.length() && s.charAt(j + 1) == quote) {
                    j += 2;
                } else {
                    return j + 1;
                }
            } else {
                j++;
            }
        }
        return -1;
    }

    /** E'..', N'..', B'..', X'..', U&'..' (and MariaDB's _charset'..' is read as a word then a string). */
    private boolean isPrefixedString(int i, boolean mysql) {
        final String s = sql;
        char c = Character.toUpperCase(s.charAt(i));
        if (i > 0 && isIdentifierPart(s.charAt(i - 1))) {
            return false;
        }
        if ((c == 'E' && !mysql) || c == 'N' || c == 'B' || c == 'X') {
            return i + 1 < s.length() && s.charAt(i + 1) == '\'';
        }
        return c == 'U' && !mysql && i + 2 < s.length() && s.charAt(i + 1) == '&' && s.charAt(i + 2) == '\'';
    }

    /**
     * For {@code $tag$} at {@code i}: the offset after the closing {@code $} of the tag, else 0.
     * PostgreSQL's scan.l: {@code dolq_start [A-Za-z\200-\377_]}, {@code dolq_cont
     * [A-Za-z\200-\377_0-9]}: every byte from 0x80 up is a letter there, so every character
     * above U+007F is one here (a non-ASCII digit too), and only ASCII digits may not start a tag.
     */
    private int dollarTagEnd(int i) {
        final String s = sql;
        if (i > 0 && isIdentifierPart(s.charAt(i - 1))) {
            return 0;
        }
        int j = i + 1;
        if (rules.onlyUntaggedDollarQuotes()) {
            return j < s.length() && s.charAt(j) == '$' ? j + 1 : 0;
        }
        if (j < s.length() && s.charAt(j) != '$') {
            if (!isDollarTagStart(s.charAt(j))) {
                return 0;
            }
            j++;
            while (j < s.length() && isDollarTagStart(s.charAt(j)) || j < s.length() && s.charAt(j) >= '0' && s.charAt(j) <= '9') {
                j++;
            }
        }
        return j < s.length() && s.charAt(j) == '$' ? j + 1 : 0;
    }

    private static boolean isDollarTagStart(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c >= 0x80;
    }

    private int dollarQuotedEnd(int i) throws UnreadableSqlException {
        int tagEnd = dollarTagEnd(i);
        String tag = sql.substring(i, tagEnd);
        int close = sql.indexOf(tag, tagEnd);
        if (close < 0) {
            throw new UnreadableSqlException("unterminated " + tag + " quote starting at offset " + i);
        }
        return close + tag.length();
    }
}
