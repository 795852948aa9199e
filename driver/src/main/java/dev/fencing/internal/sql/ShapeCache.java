package dev.fencing.internal.sql;

import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Plans by shape: texts that differ only in the values of their literals share one analysis.
 *
 * <p>A text's shape is the text itself with every literal replaced by a sentinel literal of the
 * same kind that names its position ({@code 4719305281700003} for the fourth literal, {@code
 * '4719305281700003'} for a string, {@code 4719305281700003.5} for a decimal). Everything else
 * (words, operators, white space, comments) stays as it is, so two texts of one shape read the
 * same outside their literals. The shape is itself a text: the first text of a shape has the
 * shape analysed in full (the template), and every text of that shape gets the template's plan
 * with each sentinel replaced by the text's own literal, in the database's text and in the
 * zero-row diagnosis alike.
 *
 * <p>The rule ({@link #shapeOf}) admits only texts whose literals can change neither how a server
 * lexes the text nor what the analysis decides: one plain {@code SELECT}, {@code INSERT},
 * {@code UPDATE} or {@code DELETE}; no {@code ;}, executable comment, JDBC escape, or word that
 * runs or prepares other SQL or changes a setting; every single-quoted string made of printable
 * ASCII without a quote, backslash, {@code $}, {@code #}, {@code ?}, braces, {@code --},
 * {@code /*}, a write keyword or a watched table's name; every number plain digits (with at most
 * one decimal point), and no literal touching a letter, digit or quote. Any other text is
 * analysed in full. Only templates that read or fence are used; a text whose template is refused
 * or passed through is analysed in full, with its own words in the message.
 *
 * <p>A multi-row literal {@code INSERT .. VALUES (..), (..)} whose rows share one shape
 * ({@link ShapeRows}) has its templates made with one, two and three rows, whatever its own
 * number of rows: its plan is the templates' with the row repeated, so a bulk insert of 10,000
 * rows is planned without JSqlParser reading its rows.
 */
final class ShapeCache {

    /** The digits every sentinel starts with; a text that holds them anywhere has no shape. */
    static final String MARKER = "47193052817";
    static final int INDEX_DIGITS = 5;
    private static final int SENTINEL_DIGITS = MARKER.length() + INDEX_DIGITS;
    static final int MAX_LITERALS = 99_999;

    static final byte INTEGER = 1;
    static final byte DECIMAL = 2;
    static final byte STRING = 3;

    private static final String[] HEADS = {"SELECT", "INSERT", "UPDATE", "DELETE"};
    /** Words that run, prepare or schedule other SQL, or change settings the lexing depends on. */
    private static final String[] EXCLUDED_WORDS = {"SET_CONFIG", "EXECUTE", "EXEC", "CALL", "PREPARE", "DO",
            "RUNSCRIPT", "DEALLOCATE", "LOAD_FILE", "SLEEP", "PG_SLEEP"};
    /** A string holding one of these could change how an unparseable read is judged; see mentionsWriteKeyword. */
    private static final String[] WRITE_KEYWORDS = {"insert", "update", "delete", "merge", "truncate", "replace",
            "upsert", "copy", "call"};

    /**
     * A text's shape: the key, and the text's own literals in order; for a multi-row INSERT whose
     * rows share one shape, its {@link ShapeRows} and no key until one is asked for.
     */
    record Shape(String key, String[] literals, byte[] kinds, ShapeRows rows) implements FencePlan.Derivation {

        /** A text of the template with this shape's literals put back ({@link #substitute}). */
        @Override
        public String apply(String template) {
            return substitute(template, this);
        }

        @Override
        public void appendTo(StringBuilder out, String template) {
            appendSubstituted(out, template, 0, template.length(), this, index -> index);
        }

        @Override
        public int lengthChange() {
            int change = 0;
            for (int i = 0; i < literals.length; i++) {
                change += literals[i].length() - SENTINEL_DIGITS - (kinds[i] == INTEGER ? 0 : 2);
            }
            return change;
        }
    }

    private final PlanCache templates;

    ShapeCache(int capacity) {
        this.templates = new PlanCache(capacity);
    }

    void clear() {
        templates.clear();
    }

    int size() {
        return templates.size();
    }

    /**
     * The plan of {@code sql} from its shape's template (analysed now by {@code analysis} when the
     * shape is new), or null when the template neither reads nor fences: the caller analyses the
     * text in full.
     */
    FencePlan plan(String sql, Shape shape, Function<String, FencePlan> analysis) {
        if (shape.rows() == null) {
            return planByKey(sql, shape, analysis);
        }
        FencePlan byRows = shape.rows().plan(sql, shape, key -> templates.get(key, analysis));
        if (byRows != null) {
            return byRows;
        }
        Shape single = shape.rows().singleShape(shape);
        return single == null ? null : planByKey(sql, single, analysis);
    }

    /** The plan of {@code sql} from the template of its shape's one key, or null (see {@link #plan}). */
    private FencePlan planByKey(String sql, Shape shape, Function<String, FencePlan> analysis) {
        FencePlan template = templates.cached(shape.key());
        if (template == null) {
            template = templates.get(shape.key(), key -> derivable(analysis.apply(key), shape));
        }
        if (template.changesSchema()) {
            return null;
        }
        if (template instanceof FencePlan.Read read) {
            return read.withText(sql);
        }
        if (!(template instanceof FencePlan.Fenced fenced) || !fenced.text().derivable(shape)) {
            return null; // a sentinel the analysis moved or cut: the full analysis decides
        }
        return fenced.withText(sql, shape);
    }

    /**
     * {@code template}, or a pass-through (every text of the shape analysed in full) when its
     * zero-row queries cannot take a text's literals. Whether they can depends only on the template
     * and the shape's key, so it is checked once here (the database's text alike, once per
     * template: {@link FencePlan.DatabaseText#derivable}); each text's queries are then substituted
     * only when a write needs them ({@link ZeroRowCheck#withQueries}), and its database text when
     * it is sent ({@link FencePlan.DatabaseText#render}).
     */
    private static FencePlan derivable(FencePlan template, Shape shape) {
        if (template instanceof FencePlan.Fenced fenced && fenced.zeroRowCheck() != null) {
            try {
                for (ZeroRowCheck check = fenced.zeroRowCheck(); check != null; check = check.more()) {
                    substitute(check.query(), shape);
                    substitute(check.byKey() == null ? null : check.byKey().query(), shape);
                }
            } catch (IllegalStateException e) {
                return FencePlan.passThrough(template.sql());
            }
        }
        return template;
    }

    /**
     * The shape of a lexed text, or null when the rule sends it to the full analysis.
     *
     * @param namesWatched true for a string that may name a fenced table or one whose writes cascade into one
     */
    static Shape shapeOf(String sql, SqlTokens tokens, Predicate<String> namesWatched) {
        int size = tokens.size();
        if (size == 0 || tokens.kind(0) != SqlTokens.WORD || !isAny(tokens, 0, HEADS) || sql.contains(MARKER)) {
            return null;
        }
        boolean update = tokens.isWord(0, "UPDATE");
        boolean parameters = false;
        int literals = 0;
        for (int i = 0; i < size; i++) {
            byte kind = tokens.kind(i);
            switch (kind) {
                case SqlTokens.SEMICOLON, SqlTokens.EXECUTABLE_COMMENT, SqlTokens.JDBC_ESCAPE_OPEN -> {
                    return null;
                }
                case SqlTokens.WORD -> {
                    boolean conflictAction = tokens.isWord(i, "DO")
                            && (tokens.isWord(i + 1, "UPDATE") || tokens.isWord(i + 1, "NOTHING")); // ON CONFLICT .. DO
                    if ((isAny(tokens, i, EXCLUDED_WORDS) && !conflictAction) || (!update && tokens.isWord(i, "SET")
                            && !conflictAction && !tokens.isWord(i - 1, "UPDATE"))) {
                        return null;
                    }
                }
                case SqlTokens.STRING, SqlTokens.NUMBER -> literals++;
                case SqlTokens.PARAMETER -> parameters = true;
                default -> {
                }
            }
        }
        String[] values = new String[literals];
        byte[] kinds = new byte[literals];
        int literal = 0;
        for (int i = 0; i < size; i++) {
            byte kind = tokens.kind(i);
            if (kind != SqlTokens.STRING && kind != SqlTokens.NUMBER) {
                continue;
            }
            int start = tokens.start(i);
            int end = tokens.end(i);
            byte literalKind = kind == SqlTokens.STRING ? plainString(sql, start, end, namesWatched) : plainNumber(sql, start, end);
            if (literalKind == 0 || touches(sql, start - 1) || touches(sql, end)) {
                return null;
            }
            values[literal] = sql.substring(start, end);
            kinds[literal] = literalKind;
            literal++;
        }
        ShapeRows rows = parameters ? null : ShapeRows.of(sql, tokens, kinds);
        if (rows != null) {
            return new Shape(null, values, kinds, rows);
        }
        return singleShape(sql, tokens, values, kinds);
    }

    /**
     * The shape of a text whose literals ({@code values}, of {@code kinds}) the rule admitted, with
     * one key for the whole text, each literal replaced by its sentinel; null when there are more
     * literals than a key numbers.
     */
    static Shape singleShape(String sql, SqlTokens tokens, String[] values, byte[] kinds) {
        if (values.length > MAX_LITERALS) {
            return null;
        }
        // a sentinel is longer than most literals: room for those of a usual statement, built without a resize
        StringBuilder key = new StringBuilder(sql.length() + Math.min(values.length, 64) * (SENTINEL_DIGITS + 4));
        int copied = 0;
        int literal = 0;
        for (int i = 0; i < tokens.size(); i++) {
            byte kind = tokens.kind(i);
            if (kind == SqlTokens.STRING || kind == SqlTokens.NUMBER) {
                key.append(sql, copied, tokens.start(i));
                sentinel(key, literal, kinds[literal]);
                copied = tokens.end(i);
                literal++;
            }
        }
        return new Shape(key.append(sql, copied, sql.length()).toString(), values, kinds, null);
    }

    static void sentinel(StringBuilder key, int index, byte kind) {
        if (kind == STRING) {
            key.append('\'');
        }
        key.append(MARKER);
        String digits = Integer.toString(index);
        for (int pad = digits.length(); pad < INDEX_DIGITS; pad++) {
            key.append('0');
        }
        key.append(digits);
        if (kind == STRING) {
            key.append('\'');
        } else if (kind == DECIMAL) {
            key.append(".5");
        }
    }

    /** {@link #STRING} for a single-quoted string the rule admits, else 0. */
    private static byte plainString(String sql, int start, int end, Predicate<String> namesWatched) {
        if (end - start < 2 || sql.charAt(start) != '\'' || sql.charAt(end - 1) != '\'') {
            return 0;
        }
        boolean letters = false;
        for (int i = start + 1; i < end - 1; i++) {
            char c = sql.charAt(i);
            if (c < 0x20 || c > 0x7E || c == '\'' || c == '\\' || c == '$' || c == '#' || c == '?' || c == '{'
                    || c == '}' || c == ';' || c == '"' || c == '`') {
                return 0;
            }
            char next = i + 1 < end - 1 ? sql.charAt(i + 1) : ' ';
            if ((c == '-' && next == '-') || (c == '/' && next == '*') || (c == '*' && next == '/')) {
                return 0;
            }
            letters |= (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
        }
        if (letters) {
            String content = sql.substring(start + 1, end - 1);
            if (namesWatched.test(content) || mentionsWriteKeyword(content)) {
                return 0;
            }
        }
        return STRING;
    }

    /** {@link #INTEGER} or {@link #DECIMAL} for a {@link PlainNumber}, else 0. */
    private static byte plainNumber(String sql, int start, int end) {
        int point = PlainNumber.point(sql, start, end);
        return point == PlainNumber.NOT_PLAIN ? 0 : point == PlainNumber.INTEGER ? INTEGER : DECIMAL;
    }

    /** True when the character at {@code i} would join a literal next to it (a letter, digit, quote, point ..). */
    private static boolean touches(String sql, int i) {
        if (i < 0 || i >= sql.length()) {
            return false;
        }
        char c = sql.charAt(i);
        return Character.isLetterOrDigit(c) || c == '_' || c == '$' || c == '.' || c == '\'' || c == '"' || c == '`'
                || c == '\\' || c >= 0x80;
    }

    private static boolean mentionsWriteKeyword(String content) {
        String lower = content.toLowerCase(java.util.Locale.ROOT);
        for (String keyword : WRITE_KEYWORDS) {
            if (lower.contains(keyword)) {
                return true;
            }
        }
        return false;
    }

    static boolean isAny(SqlTokens tokens, int i, String[] words) {
        for (String word : words) {
            if (tokens.isWord(i, word)) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code text} (derived from the template) with each sentinel replaced by the literal it stands
     * for. Every occurrence of the marker must be a whole sentinel of a known literal, of its kind,
     * standing alone; otherwise {@link IllegalStateException}.
     */
    static String substitute(String text, Shape shape) {
        if (text == null) {
            return null;
        }
        if (!text.contains(MARKER)) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length() + 16);
        appendSubstituted(out, text, 0, text.length(), shape, index -> index);
        return out.toString();
    }

    /**
     * Appends {@code text[from, to)} to {@code out} with each sentinel replaced by the literal of
     * {@code shape} at {@code literalOf(index)} (-1: no literal of this part). Each must be a whole
     * sentinel standing alone, inside the part (a part may neither start nor end with one where
     * the text goes on: its neighbours there are not known); otherwise {@link IllegalStateException}.
     */
    static void appendSubstituted(StringBuilder out, String text, int from, int to, Shape shape,
                                  java.util.function.IntUnaryOperator literalOf) {
        int at = text.indexOf(MARKER, from);
        int copied = from;
        while (at >= 0 && at < to) {
            int digitsEnd = at + SENTINEL_DIGITS;
            if (digitsEnd > to) {
                throw new IllegalStateException("a cut sentinel");
            }
            int index = 0;
            for (int i = at + MARKER.length(); i < digitsEnd; i++) {
                char c = text.charAt(i);
                if (c < '0' || c > '9') {
                    throw new IllegalStateException("a cut sentinel");
                }
                index = index * 10 + (c - '0');
            }
            int literal = index < shape.kinds().length ? literalOf.applyAsInt(index) : -1;
            if (literal < 0 || literal >= shape.kinds().length) {
                throw new IllegalStateException("a sentinel of no literal");
            }
            int start = at;
            int end = digitsEnd;
            switch (shape.kinds()[literal]) {
                case STRING -> {
                    if (at == from || text.charAt(at - 1) != '\'' || end >= to || text.charAt(end) != '\'') {
                        throw new IllegalStateException("a string sentinel out of its quotes");
                    }
                    start--;
                    end++;
                }
                case DECIMAL -> {
                    if (end + 2 > to || !text.startsWith(".5", end)) {
                        throw new IllegalStateException("a decimal sentinel cut");
                    }
                    end += 2;
                }
                default -> {
                }
            }
            if ((start == from && from > 0) || (end == to && to < text.length())) {
                throw new IllegalStateException("a sentinel at the edge of a repeated part");
            }
            if (touches(text, start - 1) || touches(text, end)) {
                throw new IllegalStateException("a sentinel joined to its neighbours");
            }
            out.append(text, copied, start).append(shape.literals()[literal]);
            copied = end;
            at = text.indexOf(MARKER, end);
        }
        out.append(text, copied, to);
    }
}
