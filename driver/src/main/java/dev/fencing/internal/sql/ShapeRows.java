package dev.fencing.internal.sql;

import java.util.function.Function;
import java.util.function.IntUnaryOperator;

/**
 * The rows of a multi-row literal {@code INSERT .. VALUES (..), (..)} whose rows share one shape
 * (what bulk loaders and ORMs send): each row the same tokens, white space and comments as the
 * first, literals of the same kinds in the same places, the same separator between rows, and no
 * parameter in the text. Such a text of any number of rows is planned from three templates of its
 * shape with one, two and three rows ({@link #key}), each analysed in full once: the two-row
 * plan must be the one-row plan with one part inserted (the second row and what the analysis added
 * to it), the three-row plan the same part inserted twice, and everything else about the three
 * plans alike (or, for an upsert's expected row count, growing by the same amount per row). The
 * plan of {@code n} rows is then the one-row plan with the part repeated {@code n - 1} times, each
 * copy with its row's literals; any other outcome leaves the text to the single-key shape or the
 * full analysis. So JSqlParser parses three short texts once per shape, never the rows of a bulk
 * insert.
 *
 * <p>Sentinels in the row keys: the literals before the rows and after them first (in text
 * order), then row {@code r}'s {@code j}-th literal at {@code fixed + r * perRow + j}, so the
 * parts that do not repeat read alike in all three templates.
 */
final class ShapeRows {

    /** Joins a plan's pieces while the templates are compared (a character no admitted text holds there). */
    private static final char JOIN = '\u0000';
    private static final String[] NOT_BEFORE_VALUES = {"SELECT", "WITH", "TABLE", "SET", "DEFAULT", "UNION"};

    private final String sql;
    private final SqlTokens tokens;
    private final int rows;
    private final int perRow;
    private final int before;
    private final int after;
    /** Tokens: the first row's parentheses, the second row's opening one, the last row's closing one. */
    private final int firstOpen;
    private final int firstClose;
    private final int secondOpen;
    private final int lastClose;

    private ShapeRows(String sql, SqlTokens tokens, int rows, int perRow, int before, int after, int firstOpen,
                      int firstClose, int secondOpen, int lastClose) {
        this.sql = sql;
        this.tokens = tokens;
        this.rows = rows;
        this.perRow = perRow;
        this.before = before;
        this.after = after;
        this.firstOpen = firstOpen;
        this.firstClose = firstClose;
        this.secondOpen = secondOpen;
        this.lastClose = lastClose;
    }

    /**
     * The rows of {@code sql} when it is an {@code INSERT .. VALUES} of at least two rows that all
     * share the first one's shape, else null. {@code kinds} are the kinds of the text's literals.
     */
    static ShapeRows of(String sql, SqlTokens tokens, byte[] kinds) {
        int firstOpen = firstRow(tokens);
        if (firstOpen < 0) {
            return null;
        }
        int firstClose = closeOf(tokens, firstOpen);
        int width = firstClose - firstOpen;
        int before = literalsIn(tokens, 0, firstOpen);
        int perRow = literalsIn(tokens, firstOpen, firstClose + 1);
        int separatorFrom = tokens.end(firstClose);
        int rows = 1;
        int close = firstClose;
        int secondOpen = -1;
        while (close + 2 < tokens.size() && tokens.kind(close + 1) == SqlTokens.COMMA && tokens.depth(close + 1) == 0
                && tokens.kind(close + 2) == SqlTokens.OPEN) {
            int open = close + 2;
            if (open + width >= tokens.size() || !sameRow(sql, tokens, firstOpen, open, width)) {
                return null;
            }
            if (secondOpen < 0) {
                secondOpen = open;
            } else {
                int separator = tokens.start(secondOpen) - separatorFrom;
                if (tokens.start(open) - tokens.end(close) != separator
                        || !sql.regionMatches(tokens.end(close), sql, separatorFrom, separator)) {
                    return null; // not the first row's separator
                }
            }
            close = open + width;
            rows++;
        }
        int after = kinds.length - before - perRow * rows;
        if (rows < 2 || !sameKindsInEveryRow(kinds, before, perRow, rows)
                || before + after + 3 * perRow > ShapeCache.MAX_LITERALS) {
            return null;
        }
        return new ShapeRows(sql, tokens, rows, perRow, before, after, firstOpen, firstClose, secondOpen, close);
    }

    /** The token opening the first row: {@code INSERT} and names up to {@code VALUES (}; else -1. */
    private static int firstRow(SqlTokens tokens) {
        if (!tokens.isWord(0, "INSERT")) {
            return -1;
        }
        for (int i = 1; i + 1 < tokens.size(); i++) {
            if (tokens.depth(i) > 0) {
                continue;
            }
            if (tokens.isWord(i, "VALUES")) {
                return tokens.kind(i + 1) == SqlTokens.OPEN ? i + 1 : -1;
            }
            byte kind = tokens.kind(i);
            if (!(kind == SqlTokens.WORD || kind == SqlTokens.QUOTED_IDENTIFIER || kind == SqlTokens.DOT
                    || kind == SqlTokens.OPEN || kind == SqlTokens.CLOSE) || ShapeCache.isAny(tokens, i, NOT_BEFORE_VALUES)) {
                return -1;
            }
        }
        return -1;
    }

    /** The token closing the parenthesis opened at token {@code open}. */
    private static int closeOf(SqlTokens tokens, int open) {
        int depth = tokens.depth(open);
        int close = open + 1;
        while (tokens.kind(close) != SqlTokens.CLOSE || tokens.depth(close) != depth) {
            close++;
        }
        return close;
    }

    private static int literalsIn(SqlTokens tokens, int from, int to) {
        int literals = 0;
        for (int i = from; i < to; i++) {
            literals += isLiteral(tokens, i) ? 1 : 0;
        }
        return literals;
    }

    private static boolean isLiteral(SqlTokens tokens, int i) {
        return tokens.kind(i) == SqlTokens.STRING || tokens.kind(i) == SqlTokens.NUMBER;
    }

    /**
     * True when the row opening at token {@code open} reads as the first row (opening at
     * {@code first}) outside its literals: the same tokens, the same text between them.
     */
    private static boolean sameRow(String sql, SqlTokens tokens, int first, int open, int width) {
        for (int q = 0; q <= width; q++) {
            int a = first + q;
            int b = open + q;
            if (tokens.kind(a) != tokens.kind(b) || tokens.depth(b) != tokens.depth(a)) {
                return false;
            }
            if (!isLiteral(tokens, a) && (tokens.end(a) - tokens.start(a) != tokens.end(b) - tokens.start(b)
                    || !sql.regionMatches(tokens.start(a), sql, tokens.start(b), tokens.end(a) - tokens.start(a)))) {
                return false;
            }
            if (q < width) {
                int gap = tokens.start(a + 1) - tokens.end(a);
                if (tokens.start(b + 1) - tokens.end(b) != gap
                        || !sql.regionMatches(tokens.end(a), sql, tokens.end(b), gap)) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean sameKindsInEveryRow(byte[] kinds, int before, int perRow, int rows) {
        for (int r = 1; r < rows; r++) {
            for (int j = 0; j < perRow; j++) {
                if (kinds[before + r * perRow + j] != kinds[before + j]) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The shape's template text with {@code count} rows (1 to 3), sentinels numbered as the class says. */
    String key(int count, byte[] kinds) {
        int fixed = before + after;
        StringBuilder key = new StringBuilder(tokens.start(firstOpen) + (sql.length() - tokens.end(lastClose))
                + count * (tokens.start(secondOpen) - tokens.start(firstOpen)) + 64);
        appendWithSentinels(key, 0, firstOpen, 0, tokens.start(firstOpen), kinds, 0, j -> j);
        for (int r = 0; r < count; r++) {
            if (r > 0) {
                key.append(sql, tokens.end(firstClose), tokens.start(secondOpen));
            }
            int row = r;
            appendWithSentinels(key, firstOpen, firstClose + 1, tokens.start(firstOpen), tokens.end(firstClose), kinds,
                    before, j -> fixed + row * perRow + j);
        }
        appendWithSentinels(key, lastClose + 1, tokens.size(), tokens.end(lastClose), sql.length(), kinds,
                before + rows * perRow, j -> before + j);
        return key.toString();
    }

    /**
     * Appends {@code sql[textFrom, textTo)}, whose literals are tokens {@code [from, to)}, with the
     * {@code j}-th literal there (literal {@code firstLiteral + j} of the text) as sentinel {@code sentinelOf(j)}.
     */
    private void appendWithSentinels(StringBuilder key, int from, int to, int textFrom, int textTo, byte[] kinds,
                                     int firstLiteral, IntUnaryOperator sentinelOf) {
        int copied = textFrom;
        int j = 0;
        for (int i = from; i < to; i++) {
            if (isLiteral(tokens, i)) {
                key.append(sql, copied, tokens.start(i));
                ShapeCache.sentinel(key, sentinelOf.applyAsInt(j), kinds[firstLiteral + j]);
                copied = tokens.end(i);
                j++;
            }
        }
        key.append(sql, copied, textTo);
    }

    /** The same text's shape with one key for all its literals (when the rows' templates do not generalise). */
    ShapeCache.Shape singleShape(ShapeCache.Shape shape) {
        return ShapeCache.singleShape(sql, tokens, shape.literals(), shape.kinds());
    }

    /**
     * The plan of {@code text} (of this shape) from the templates of one, two and three rows that
     * {@code template} gives by key, or null when they do not generalise to this text's rows.
     */
    FencePlan plan(String text, ShapeCache.Shape shape, Function<String, FencePlan> template) {
        FencePlan one = template.apply(key(1, shape.kinds()));
        if (one.changesSchema() || !(one instanceof FencePlan.Fenced || one instanceof FencePlan.Read)) {
            return null;
        }
        FencePlan two = template.apply(key(2, shape.kinds()));
        FencePlan three = template.apply(key(3, shape.kinds()));
        if (one instanceof FencePlan.Read read) {
            return two.equals(read.withText(two.sql())) && three.equals(read.withText(three.sql())) ? read.withText(text)
                    : null;
        }
        if (!(two instanceof FencePlan.Fenced second) || !(three instanceof FencePlan.Fenced third)) {
            return null;
        }
        FencePlan.Fenced first = (FencePlan.Fenced) one;
        if (!alike(first, second) || !alike(first, third)) {
            return null;
        }
        ZeroRowCheck check = rowsCheck(first.zeroRowCheck(), second.zeroRowCheck(), third.zeroRowCheck());
        if (check == null && first.zeroRowCheck() != null) {
            return null;
        }
        try {
            String[] pieces = repeated(joined(first), joined(second), joined(third), shape);
            if (pieces == null) {
                return null;
            }
            int[] fences = new int[pieces.length - 1];
            for (int f = 0; f < fences.length; f++) {
                fences[f] = f + 1;
            }
            FenceSlot slot = first.text().slot();
            FencePlan.DatabaseText database = new FencePlan.DatabaseText(pieces, String.join(slot.prepared(), pieces),
                    new int[0], fences, slot);
            return new FencePlan.Fenced(text, first.fencedTable(), database, check, first.countIsTheFencedWrite(),
                    first.writesEpochTable(), first.controlsTransaction(), first.changesSchema(), first.checkedByGuard(),
                    first.mayHoldSeveralStatements());
        } catch (IllegalStateException e) {
            return null; // a sentinel the analysis moved, cut or joined: the text takes another path
        }
    }

    /**
     * True when the two plans differ at most in their texts: the same table, flags and fence slot,
     * no application parameter, and every parameter a fence.
     */
    private static boolean alike(FencePlan.Fenced first, FencePlan.Fenced other) {
        return first.fencedTable().equals(other.fencedTable())
                && first.countIsTheFencedWrite() == other.countIsTheFencedWrite()
                && first.writesEpochTable() == other.writesEpochTable()
                && first.controlsTransaction() == other.controlsTransaction()
                && first.changesSchema() == other.changesSchema() && first.checkedByGuard() == other.checkedByGuard()
                && first.text().slot() == other.text().slot() && onlyFences(first) && onlyFences(other)
                && (first.zeroRowCheck() == null) == (other.zeroRowCheck() == null);
    }

    private static boolean onlyFences(FencePlan.Fenced plan) {
        int[] fences = plan.text().fenceIndexes();
        for (int f = 0; f < fences.length; f++) {
            if (fences[f] != f + 1) {
                return false;
            }
        }
        return plan.text().databaseIndexes().length == 0;
    }

    /**
     * The zero-row check of this text's rows: none when the templates have none; an expected row
     * count that grows by the same number per row in all three (an upsert's); else null.
     */
    private ZeroRowCheck rowsCheck(ZeroRowCheck one, ZeroRowCheck two, ZeroRowCheck three) {
        if (one == null || two == null || three == null) {
            return null;
        }
        for (ZeroRowCheck check : new ZeroRowCheck[] {one, two, three}) {
            if (check.method() != ZeroRowCheck.Method.EXPECTED_ROWS || check.query() != null || check.byKey() != null
                    || check.queryParameters().length != 0) {
                return null;
            }
        }
        int perRowMore = two.expectedRows() - one.expectedRows();
        if (three.expectedRows() - two.expectedRows() != perRowMore) {
            return null;
        }
        return ZeroRowCheck.expectedRows(one.expectedRows() + (rows - 1) * perRowMore);
    }

    /** The plan's pieces joined by {@link #JOIN}; {@link IllegalStateException} when a piece holds it. */
    private static String joined(FencePlan.Fenced plan) {
        String[] pieces = plan.text().pieces();
        StringBuilder joined = new StringBuilder();
        for (int p = 0; p < pieces.length; p++) {
            if (pieces[p].indexOf(JOIN) >= 0) {
                throw new IllegalStateException("a piece holds the joining character");
            }
            joined.append(p == 0 ? "" : String.valueOf(JOIN)).append(pieces[p]);
        }
        return joined.toString();
    }

    /**
     * This text's pieces: {@code one} with the part {@code two} inserts into it repeated once per
     * further row, each copy with its row's literals; null when {@code two} is not {@code one}
     * with one part inserted, or {@code three} not {@code one} with that part inserted twice.
     */
    private String[] repeated(String one, String two, String three, ShapeCache.Shape shape) {
        int prefix = 0;
        int limit = Math.min(one.length(), two.length());
        while (prefix < limit && one.charAt(prefix) == two.charAt(prefix)) {
            prefix++;
        }
        int suffix = 0;
        while (suffix < one.length() - prefix && one.charAt(one.length() - 1 - suffix) == two.charAt(two.length() - 1 - suffix)) {
            suffix++;
        }
        if (prefix + suffix != one.length() || two.length() <= one.length()) {
            return null;
        }
        int partFrom = prefix;
        int partTo = two.length() - suffix;
        int fixed = before + after;
        // the part as the second row wrote it, moved to the third row: three must be one with both
        StringBuilder expectedThree = new StringBuilder(three.length());
        expectedThree.append(one, 0, prefix).append(two, partFrom, partTo);
        appendRenumbered(expectedThree, two, partFrom, partTo, fixed + perRow, fixed + 2 * perRow);
        expectedThree.append(one, prefix, one.length());
        if (!expectedThree.toString().equals(three)) {
            return null;
        }
        // outside the repeated part: the literals before and after the rows, and the first row's
        IntUnaryOperator outside = sentinel -> sentinel < before ? sentinel
                : sentinel < fixed ? sentinel + rows * perRow
                : sentinel < fixed + perRow ? before + (sentinel - fixed) : -1;
        StringBuilder out = new StringBuilder(sql.length() + one.length() + (rows - 1) * (partTo - partFrom));
        ShapeCache.appendSubstituted(out, one, 0, prefix, shape, outside);
        for (int r = 1; r < rows; r++) {
            int row = r;
            ShapeCache.appendSubstituted(out, two, partFrom, partTo, shape, sentinel ->
                    sentinel >= fixed + perRow && sentinel < fixed + 2 * perRow
                            ? before + row * perRow + (sentinel - fixed - perRow) : -1);
        }
        ShapeCache.appendSubstituted(out, one, prefix, one.length(), shape, outside);
        return split(out);
    }

    /**
     * Appends {@code text[from, to)} with every sentinel from {@code firstOld} on (one row's)
     * renumbered to start at {@code firstNew}; the text is otherwise copied as it is.
     */
    private void appendRenumbered(StringBuilder out, String text, int from, int to, int firstOld, int firstNew) {
        int copied = from;
        int at = text.indexOf(ShapeCache.MARKER, from);
        int width = ShapeCache.INDEX_DIGITS;
        while (at >= 0 && at + ShapeCache.MARKER.length() + width <= to) {
            int digits = at + ShapeCache.MARKER.length();
            int index = indexAt(text, digits);
            if (index >= firstOld && index < firstOld + perRow) {
                out.append(text, copied, digits);
                String renumbered = Integer.toString(index - firstOld + firstNew);
                for (int pad = renumbered.length(); pad < width; pad++) {
                    out.append('0');
                }
                out.append(renumbered);
                copied = digits + width;
            }
            at = text.indexOf(ShapeCache.MARKER, digits + width);
        }
        out.append(text, copied, to);
    }

    /** The sentinel index whose digits start at {@code digits}, or -1 when they are not all digits. */
    private static int indexAt(String text, int digits) {
        int index = 0;
        for (int i = digits; i < digits + ShapeCache.INDEX_DIGITS; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            index = index * 10 + (c - '0');
        }
        return index;
    }

    private static String[] split(StringBuilder joined) {
        int count = 1;
        for (int i = 0; i < joined.length(); i++) {
            count += joined.charAt(i) == JOIN ? 1 : 0;
        }
        String[] pieces = new String[count];
        int from = 0;
        int piece = 0;
        for (int i = 0; i <= joined.length(); i++) {
            if (i == joined.length() || joined.charAt(i) == JOIN) {
                pieces[piece++] = joined.substring(from, i);
                from = i + 1;
            }
        }
        return pieces;
    }
}
