package dev.fencing.internal.sql;

/**
 * A number literal that the shape path and the recognizer take as a plain value: ASCII digits
 * with at most one point between digits, and at most 18 digits on either side of it, so that
 * every server reads it as the same exact number and no exponent, sign or radix prefix hides in it.
 */
public final class PlainNumber {

    /** What {@link #point} answers for text that is not a plain number. */
    public static final int NOT_PLAIN = -2;
    /** What {@link #point} answers for a plain integer. */
    public static final int INTEGER = -1;

    private static final int MAX_DIGITS = 18;

    private PlainNumber() {
    }

    /**
     * Where the point of the plain number {@code sql[start, end)} is, {@link #INTEGER} when it has
     * none, {@link #NOT_PLAIN} when the text is not a plain number.
     */
    public static int point(String sql, int start, int end) {
        int point = INTEGER;
        for (int i = start; i < end; i++) {
            char c = sql.charAt(i);
            if (c == '.' && point == INTEGER && i > start && i < end - 1) {
                point = i;
            } else if (c < '0' || c > '9') {
                return NOT_PLAIN;
            }
        }
        int whole = (point == INTEGER ? end : point) - start;
        if (whole > MAX_DIGITS || (point != INTEGER && end - point - 1 > MAX_DIGITS)) {
            return NOT_PLAIN;
        }
        return point;
    }
}
