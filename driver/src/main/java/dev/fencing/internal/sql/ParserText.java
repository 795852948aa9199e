package dev.fencing.internal.sql;

/**
 * The text JSqlParser reads: the original, with what it cannot read but the database does
 * ({@code #} comments, PostgreSQL's {@code orders *}, MariaDB's {@code SET STATEMENT .. FOR})
 * blanked. Owned by one text's analysis; the blanking is its only change.
 */
final class ParserText {

    private final String sql;
    /** The blanked copy, once something was blanked; else null. */
    private char[] view;

    ParserText(String sql) {
        this.sql = sql;
    }

    /** The parser's text of {@code sql[from, to)}. */
    String of(int from, int to) {
        return view == null ? sql.substring(from, to) : new String(view, from, to - from);
    }

    /** The whole text as the parser reads it, or null when nothing was blanked. */
    String blankedOrNull() {
        return view == null ? null : new String(view);
    }

    void blank(int start, int end) {
        if (view == null) {
            view = sql.toCharArray();
        }
        java.util.Arrays.fill(view, start, end, ' ');
    }
}
