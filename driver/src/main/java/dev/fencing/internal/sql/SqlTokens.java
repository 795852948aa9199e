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
        return visited;
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

    private Dialect dialect;
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
        return Character.isLetterOrDigit(c) || c == '_' || c == '$' || (c >= 0x80 && dialect != Dialect.H2);
    }

    private boolean isIdentifierStart(char c) {
        return Character.isLetter(c) || c == '_' || (c >= 0x80 && dialect != Dialect.H2);
    }

    /** H2 reads Java's space characters (a no-break space too) as white space; the others only ASCII ones. */
    private boolean isSpace(char c) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0x0B) {
            return true;
        }
        return dialect == Dialect.H2 && (Character.isWhitespace(c) || Character.isSpaceChar(c));
    }

    private void scan(Dialect dialect, AnalysisBudget budget) throws UnreadableSqlException {
        this.dialect = dialect;
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
            } else if (dialect == Dialect.H2 && c == '/' && i + 1 < n && s.charAt(i + 1) == '/') {
                i = lineEnd(i, true);
            } else if (c == '/' && i + 1 < n && s.charAt(i + 1) == '*') {
                boolean executable = mysql && i + 2 < n && (s.charAt(i + 2) == '!'
                        || (s.charAt(i + 2) == 'M' && i + 3 < n && s.charAt(i + 3) == '!'));
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
            } else if (c == '`' && (mysql || dialect == Dialect.H2)) {
                int end = quotedEnd(i, '`', false);
                add(QUOTED_IDENTIFIER, i, end, depth);
                i = end;
            } else if (c == '$' && dialect == Dialect.H2 && !(i > 0 && isIdentifierPart(s.charAt(i - 1)))
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
                boolean backslashes = mysql || (Character.toUpperCase(c) == 'E' && dialect != Dialect.H2);
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
                if (dialect == Dialect.H2) {
                    pushBracket(depth, c == '[' ? squareBracketNameEnd(i) : -1);
                }
                depth++;
                i++;
            } else if (c == ')' || c == ']') {
                depth--;
                if (depth < 0) {
                    throw new UnreadableSqlException("unbalanced ')' at offset " + i);
                }
                if (dialect == Dialect.H2 && bracketEnds[depth] >= 0) {
                    checkSquareBracket(depth, i);
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

    /**
     * H2: for each open parenthesis or bracket (by depth), where H2's MSSQLServer mode ends the
     * {@code [..]} quoted name that starts there, or -1 (a parenthesis, or no closing bracket);
     * the token that opened it; how many words and quoted names came before it.
     */
    private int[] bracketEnds;
    private int[] bracketOpens;
    private int[] bracketWords;
    /** How many {@link #WORD} and {@link #QUOTED_IDENTIFIER} tokens there are so far. */
    private int words;
    /**
     * H2, built at the first {@code [}: for each offset {@code j}, where a {@code [..]} name read
     * from {@code j} on ends (as {@link #squareBracketNameEnd}), and how many characters before
     * {@code j} can start what may hide code ({@link #mayHide}). Each is one pass over the text,
     * so that every bracket is judged without reading the text again.
     */
    private int[] nameEndFrom;
    private int[] hidersBefore;

    private void pushBracket(int depth, int end) {
        if (bracketEnds == null || depth >= bracketEnds.length) {
            int capacity = Math.max(8, Math.max(depth + 1, bracketEnds == null ? 0 : bracketEnds.length * 2));
            bracketEnds = bracketEnds == null ? new int[capacity] : Arrays.copyOf(bracketEnds, capacity);
            bracketOpens = bracketOpens == null ? new int[capacity] : Arrays.copyOf(bracketOpens, capacity);
            bracketWords = bracketWords == null ? new int[capacity] : Arrays.copyOf(bracketWords, capacity);
        }
        bracketEnds[depth] = end;
        bracketOpens[depth] = size - 1;
        bracketWords[depth] = words;
    }

    /** The offset after the {@code ]} that ends a {@code [name]} starting at {@code i} ({@code ]]} escapes one), or -1. */
    private int squareBracketNameEnd(int i) {
        if (nameEndFrom == null) {
            readBracketRules();
        }
        return nameEndFrom[i + 1];
    }

    /** One pass from the end for {@link #nameEndFrom}, one from the start for {@link #hidersBefore}. */
    private void readBracketRules() {
        final String s = sql;
        final int n = s.length();
        nameEndFrom = new int[n + 2];
        nameEndFrom[n] = -1;
        nameEndFrom[n + 1] = -1;
        for (int j = n - 1; j >= 0; j--) {
            if (s.charAt(j) != ']') {
                nameEndFrom[j] = nameEndFrom[j + 1];
            } else {
                nameEndFrom[j] = j + 1 < n && s.charAt(j + 1) == ']' ? nameEndFrom[j + 2] : j + 1;
            }
        }
        hidersBefore = new int[n + 1];
        for (int j = 0; j < n; j++) {
            hidersBefore[j + 1] = hidersBefore[j] + (hides(j, n) ? 1 : 0);
        }
        visited += 2L * n;
    }

    /**
     * H2 in MODE=MSSQLServer reads {@code [..]} as a quoted name, the other modes as an array or
     * subscript, and the lexer cannot know the mode. The two readings are allowed to differ only
     * where nothing can hide: when the bracket that closes at {@code close} ends elsewhere as a
     * name, or holds names or words next to quotes or comments (code that would be a name),
     * the text is unreadable. Arrays of literals ({@code ARRAY['a', 'b']}) and subscripts stay
     * readable.
     */
    private void checkSquareBracket(int depth, int close) throws UnreadableSqlException {
        int open = bracketOpens[depth];
        int nameEnd = bracketEnds[depth];
        if (!mayHide(starts[open], Math.max(close + 1, nameEnd))) {
            return;
        }
        boolean endsAlike = nameEnd == close + 1;
        boolean holdsWords = words > bracketWords[depth];
        if (!endsAlike || holdsWords) {
            throw new UnreadableSqlException("the '[' at offset " + starts[open] + " closes at offset " + close
                    + ", but H2 in MODE=MSSQLServer reads [..] as a quoted name" + (endsAlike ? "" : " that ends at offset "
                    + (nameEnd - 1)) + "; write the array or name without quotes or comments inside");
        }
    }

    /**
     * True when {@code [from, to)} holds what can start a string, quoted name, comment or new
     * statement: only then can two readings that end a bracket at different places disagree about
     * what runs (otherwise one reading merely takes some code for a name).
     */
    private boolean mayHide(int from, int to) {
        int hiders = hidersBefore[to] - hidersBefore[from];
        // a "--", "//" or "/*" whose second character is past the range does not count
        return hiders - (to > from && hides(to - 1, sql.length()) && !hides(to - 1, to) ? 1 : 0) > 0;
    }

    /** True when the character at {@code j} starts a string, quoted name, comment or new statement within {@code [j, to)}. */
    private boolean hides(int j, int to) {
        char c = sql.charAt(j);
        return c == '\'' || c == '"' || c == '`' || c == '$' || c == ';'
                || ((c == '-' || c == '/') && j + 1 < to && (sql.charAt(j + 1) == c || sql.charAt(j + 1) == '*'));
    }

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
        if (dialect == Dialect.H2) {
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
