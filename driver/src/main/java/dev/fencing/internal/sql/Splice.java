package dev.fencing.internal.sql;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Edits to the original SQL text, and the text they produce: the database's statement split at
 * the fence placeholders, with the application's parameters mapped to their new indexes. Edits
 * never touch the application's own characters except where {@link #replace} says so.
 */
final class Splice {

    /** Marks where a fence placeholder goes inside inserted text. */
    static final char FENCE = '\u0000';

    /** Characters {@code [start, end)} of the original replaced by {@code text} (an insertion when empty). */
    record Edit(int start, int end, String text, int order) {
    }

    private final String sql;
    private final List<Edit> edits = new ArrayList<>();

    Splice(String sql) {
        this.sql = sql;
    }

    /** The edits, in the order they were made. */
    List<Edit> edits() {
        return java.util.Collections.unmodifiableList(edits);
    }

    /** Inserts {@code text} before the character at {@code offset}. */
    void insert(int offset, String text) {
        edits.add(new Edit(offset, offset, text, edits.size()));
    }

    /** Replaces the characters {@code [start, end)}. */
    void replace(int start, int end, String text) {
        edits.add(new Edit(start, end, text, edits.size()));
    }

    /**
     * Why an insertion would join the text next to it into one token (a letter, digit or fence on
     * both sides of an edge, or a fence next to a point), or null when every insertion stands apart.
     */
    String fusedEdge() {
        for (Edit edit : edits) {
            if (edit.text.isEmpty()) {
                continue;
            }
            char first = edit.text.charAt(0);
            char last = edit.text.charAt(edit.text.length() - 1);
            if ((edit.start > 0 && joins(sql.charAt(edit.start - 1), first))
                    || (edit.end < sql.length() && joins(last, sql.charAt(edit.end)))) {
                return "the fence check would join the text next to it at offset " + edit.start
                        + " (write a space there)";
            }
        }
        return null;
    }

    private static boolean joins(char before, char after) {
        return (isWordPart(before) && isWordPart(after)) || (before == FENCE && after == '.')
                || (before == '.' && after == FENCE);
    }

    private static boolean isWordPart(char c) {
        return c == FENCE || Character.isLetterOrDigit(c) || c == '_' || c == '$' || c >= 0x80;
    }

    /** The spliced statement. {@code parameterOffsets} are the offsets of the application's {@code ?}, in order. */
    Result apply(int[] parameterOffsets) {
        return apply(parameterOffsets, sql);
    }

    /**
     * The same edits applied to {@code source}, a text of the same length as the original (the
     * original with some characters blanked, as the second reader is given it).
     */
    Result apply(int[] parameterOffsets, String source) {
        if (source.length() != sql.length()) {
            throw new IllegalArgumentException("the edited text must keep the original's length");
        }
        final String sql = source;
        List<Edit> ordered = new ArrayList<>(edits);
        ordered.sort(Comparator.comparingInt(Edit::start).thenComparingInt(Edit::order));
        List<String> pieces = new ArrayList<>();
        List<Integer> fenceIndexes = new ArrayList<>();
        int[] databaseIndexes = new int[parameterOffsets.length];
        StringBuilder piece = new StringBuilder(sql.length() + 64);
        int copied = 0;
        int nextParameter = 0;
        int databaseIndex = 0;
        for (Edit edit : ordered) {
            if (edit.start < copied) {
                throw new IllegalStateException("overlapping edits at offset " + edit.start);
            }
            while (nextParameter < parameterOffsets.length && parameterOffsets[nextParameter] < edit.start) {
                databaseIndexes[nextParameter++] = ++databaseIndex;
            }
            piece.append(sql, copied, edit.start);
            for (int i = 0; i < edit.text.length(); i++) {
                char c = edit.text.charAt(i);
                if (c == FENCE) {
                    pieces.add(piece.toString());
                    piece.setLength(0);
                    fenceIndexes.add(++databaseIndex);
                } else {
                    piece.append(c);
                }
            }
            if (edit.end > edit.start) {
                while (nextParameter < parameterOffsets.length && parameterOffsets[nextParameter] < edit.end) {
                    throw new IllegalStateException("an edit replaces an application parameter at offset "
                            + parameterOffsets[nextParameter]);
                }
            }
            copied = edit.end;
        }
        while (nextParameter < parameterOffsets.length) {
            databaseIndexes[nextParameter++] = ++databaseIndex;
        }
        piece.append(sql, copied, sql.length());
        pieces.add(piece.toString());
        return new Result(pieces.toArray(String[]::new), databaseIndexes,
                fenceIndexes.stream().mapToInt(Integer::intValue).toArray());
    }

    record Result(String[] pieces, int[] databaseIndexes, int[] fenceIndexes) {
    }
}
