package dev.fencing.internal.sql;

import java.util.Arrays;

/**
 * H2's {@code [..]}: in MODE=MSSQLServer a quoted name, in the other modes an array or a subscript,
 * and the lexer cannot know the mode. {@link SqlTokens} reads a bracket as a parenthesis and asks
 * this class, at each closing one, whether the two readings could disagree about what runs; then
 * the text is unreadable. Every bracket is judged from two passes over the text made at the first
 * {@code [}, so that no bracket reads the text again.
 */
final class SquareBracketNames {

    private final String sql;
    /**
     * For each open parenthesis or bracket (by depth): where MODE=MSSQLServer ends the {@code [..]}
     * name that starts there, or -1 (a parenthesis, or no closing bracket); the token that opened
     * it; how many words and quoted names came before it.
     */
    private int[] bracketEnds = new int[8];
    private int[] bracketOpens = new int[8];
    private int[] bracketWords = new int[8];
    /**
     * Built at the first {@code [}: for each offset {@code j}, where a {@code [..]} name read from
     * {@code j} on ends (as {@link #nameEnd}), and how many characters before {@code j} can start
     * what may hide code ({@link #mayHide}).
     */
    private int[] nameEndFrom;
    private int[] hidersBefore;
    /** The characters the two passes looked at. */
    private long visited;

    SquareBracketNames(String sql) {
        this.sql = sql;
    }

    long visited() {
        return visited;
    }

    /**
     * A parenthesis or bracket opened at {@code depth} by token {@code openToken} at offset
     * {@code offset}, after {@code words} words and quoted names.
     */
    void open(int depth, int openToken, int offset, boolean bracket, int words) {
        if (depth >= bracketEnds.length) {
            int capacity = Math.max(depth + 1, bracketEnds.length * 2);
            bracketEnds = Arrays.copyOf(bracketEnds, capacity);
            bracketOpens = Arrays.copyOf(bracketOpens, capacity);
            bracketWords = Arrays.copyOf(bracketWords, capacity);
        }
        bracketEnds[depth] = bracket ? nameEnd(offset) : -1;
        bracketOpens[depth] = openToken;
        bracketWords[depth] = words;
    }

    /**
     * The parenthesis or bracket opened at {@code depth} closes at offset {@code close}, after
     * {@code words} words and quoted names in all; {@code openStart} is where it opened.
     */
    void close(int depth, int close, int openStart, int words) throws SqlTokens.UnreadableSqlException {
        int nameEnd = bracketEnds[depth];
        if (nameEnd < 0 || !mayHide(openStart, Math.max(close + 1, nameEnd))) {
            return;
        }
        boolean endsAlike = nameEnd == close + 1;
        boolean holdsWords = words > bracketWords[depth];
        if (!endsAlike || holdsWords) {
            throw new SqlTokens.UnreadableSqlException("the '[' at offset " + openStart + " closes at offset " + close
                    + ", but H2 in MODE=MSSQLServer reads [..] as a quoted name" + (endsAlike ? "" : " that ends at offset "
                    + (nameEnd - 1)) + "; write the array or name without quotes or comments inside");
        }
    }

    /** The token that opened the parenthesis or bracket at {@code depth}. */
    int opener(int depth) {
        return bracketOpens[depth];
    }

    /** The offset after the {@code ]} that ends a {@code [name]} starting at {@code i} ({@code ]]} escapes one), or -1. */
    private int nameEnd(int i) {
        if (nameEndFrom == null) {
            readText();
        }
        return nameEndFrom[i + 1];
    }

    /** One pass from the end for {@link #nameEndFrom}, one from the start for {@link #hidersBefore}. */
    private void readText() {
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
     * True when {@code [from, to)} holds what can start a string, quoted name, comment or new
     * statement: only then can two readings that end a bracket at different places disagree about
     * what runs (otherwise one reading merely takes some code for a name). Arrays of literals
     * ({@code ARRAY['a', 'b']}) and subscripts stay readable.
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
}
