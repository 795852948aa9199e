package dev.fencing.internal.sql.recognize;

import dev.fencing.internal.sql.PlainNumber;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;

/**
 * Recognizes the single-table writes ORMs and query builders send, from the analyzer's tokens,
 * without JSqlParser; anything else is "not mine" ({@code null}). The grammar, over the whole text:
 * <pre>
 * UPDATE name SET name = value [, name = value]* [WHERE comparison [AND comparison]*]
 * DELETE FROM name [WHERE comparison [AND comparison]*]
 * INSERT INTO name (name [, name]*) VALUES row [, row]*      row: (value [, value]*), one per column
 * comparison: name op operand       op: = &lt;&gt; != &lt; &gt; &lt;= &gt;=  (written without a space inside)
 * value: ? | number | 'string' | NULL          operand: ? | number | 'string'
 * </pre>
 * Each piece is taken only in its plainest form, so that JSqlParser's lexer provably reads the same
 * tokens at the same places, and its parser the same statement, as the full analysis would have it
 * do: a name is an unquoted ASCII word the caller's {@code plainName} admits (JSqlParser's lexer
 * reads it as a plain identifier: no keyword, no start or continuation of a multi-word token), or a
 * quoted one ({@code "name"} or {@code `name`}, as the dialect's lexer read it) of ASCII letters,
 * digits and {@code _}; no schema or alias; a number is ASCII digits with at most one inner point
 * and at most 18 digits a side; a string is single-quoted printable ASCII with no quote and no
 * backslash; between tokens only ASCII spaces, tabs and line breaks (so no comment anywhere); no
 * two words, names, literals or parameters touching. A recognized statement is not a decision:
 * the caller's rules decide it as they decide JSqlParser's reading.
 */
public final class CommonShapes {

    /**
     * What a token is, as the analyzer's lexer read it; {@code OPEN} and {@code CLOSE} only for
     * {@code (} and {@code )}, {@code PARAMETER} only for a lone {@code ?}, {@code OPERATOR} only for
     * one character; anything else the caller gives as {@code OTHER}.
     */
    public enum Piece { WORD, QUOTED_NAME, STRING, NUMBER, PARAMETER, OPEN, CLOSE, COMMA, OPERATOR, OTHER }

    /** The analyzer's tokens of one text, as the recognizer reads them. */
    public interface Lexed {
        int size();

        Piece piece(int i);

        int start(int i);

        int end(int i);
    }

    public enum Kind { UPDATE, DELETE, INSERT }

    /**
     * A recognized statement.
     *
     * @param table   the target, as written
     * @param columns the columns it assigns (UPDATE's SET list, INSERT's column list), as written
     * @param spans   begin and end offsets, in pairs and in text order, of every token JSqlParser's
     *                lexer reads in the text (they cover it, with white space only between them)
     */
    public record Recognized(Kind kind, String table, List<String> columns, int[] spans) {
    }

    /** The comparison operators, as one token each for JSqlParser (written without inner space). */
    private static final List<String> COMPARISONS = List.of("=", "<>", "!=", "<", ">", "<=", ">=");
    /** The grammar's own words: never a name, whatever the caller's predicate says. */
    private static final List<String> GRAMMAR_WORDS = List.of("UPDATE", "SET", "WHERE", "AND", "DELETE", "FROM",
            "INSERT", "INTO", "VALUES", "NULL");

    private final String sql;
    private final Lexed tokens;
    private final int size;
    private final Predicate<String> plainName;
    private int at;
    private int[] spans;
    private int spanEnds;

    private CommonShapes(String sql, Lexed tokens, Predicate<String> plainName) {
        this.sql = sql;
        this.tokens = tokens;
        this.size = tokens.size();
        this.plainName = plainName;
        this.spans = new int[Math.max(8, size * 2)];
    }

    /**
     * The statement {@code sql} is, when its tokens are one of the shapes above; else null.
     *
     * @param plainName true for an unquoted word JSqlParser's lexer reads as a plain identifier
     */
    public static Recognized recognize(String sql, Lexed tokens, Predicate<String> plainName) {
        if (tokens.size() < 3 || tokens.piece(0) != Piece.WORD || !onlyWhiteSpaceBetween(sql, tokens)) {
            return null;
        }
        return new CommonShapes(sql, tokens, plainName).statement();
    }

    /** JSqlParser's white space alone between tokens and around them; no two word-like tokens touching. */
    private static boolean onlyWhiteSpaceBetween(String sql, Lexed tokens) {
        int previousEnd = 0;
        boolean previousWordLike = false;
        for (int i = 0; i < tokens.size(); i++) {
            int start = tokens.start(i);
            if (start < previousEnd || !whiteSpace(sql, previousEnd, start)) {
                return false;
            }
            boolean wordLike = isWordLike(tokens.piece(i));
            if (start == previousEnd && i > 0 && wordLike && previousWordLike) {
                return false;
            }
            previousEnd = tokens.end(i);
            previousWordLike = wordLike;
        }
        return whiteSpace(sql, previousEnd, sql.length());
    }

    private static boolean isWordLike(Piece piece) {
        return piece == Piece.WORD || piece == Piece.QUOTED_NAME || piece == Piece.STRING || piece == Piece.NUMBER
                || piece == Piece.PARAMETER;
    }

    private static boolean whiteSpace(String sql, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = sql.charAt(i);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return false;
            }
        }
        return true;
    }

    private Recognized statement() {
        Recognized recognized;
        if (word("UPDATE")) {
            recognized = update();
        } else if (word("DELETE")) {
            recognized = delete();
        } else if (word("INSERT")) {
            recognized = insert();
        } else {
            return null;
        }
        return recognized != null && at == size ? recognized : null;
    }

    private Recognized update() {
        String table = name();
        if (table == null || !word("SET")) {
            return null;
        }
        List<String> columns = new ArrayList<>(4);
        do {
            String column = name();
            if (column == null || !operator(false) || !value(true)) {
                return null;
            }
            columns.add(column);
        } while (piece(Piece.COMMA));
        return optionalWhere() ? recognized(Kind.UPDATE, table, columns) : null;
    }

    private Recognized delete() {
        if (!word("FROM")) {
            return null;
        }
        String table = name();
        return table != null && optionalWhere() ? recognized(Kind.DELETE, table, List.of()) : null;
    }

    private Recognized insert() {
        if (!word("INTO")) {
            return null;
        }
        String table = name();
        if (table == null || !piece(Piece.OPEN)) {
            return null;
        }
        List<String> columns = new ArrayList<>(4);
        do {
            String column = name();
            if (column == null) {
                return null;
            }
            columns.add(column);
        } while (piece(Piece.COMMA));
        if (!piece(Piece.CLOSE) || !word("VALUES")) {
            return null;
        }
        do {
            if (!row(columns.size())) {
                return null;
            }
        } while (piece(Piece.COMMA));
        return recognized(Kind.INSERT, table, columns);
    }

    /** {@code (value, ..)} with exactly {@code values} values. */
    private boolean row(int values) {
        if (!piece(Piece.OPEN)) {
            return false;
        }
        for (int v = 0; v < values; v++) {
            if ((v > 0 && !piece(Piece.COMMA)) || !value(true)) {
                return false;
            }
        }
        return piece(Piece.CLOSE);
    }

    /** Nothing more, or {@code WHERE comparison [AND comparison]*}. */
    private boolean optionalWhere() {
        if (at == size) {
            return true;
        }
        if (!word("WHERE")) {
            return false;
        }
        do {
            if (name() == null || !operator(true) || !value(false)) {
                return false;
            }
        } while (word("AND"));
        return true;
    }

    private Recognized recognized(Kind kind, String table, List<String> columns) {
        return new Recognized(kind, table, List.copyOf(columns), Arrays.copyOf(spans, spanEnds));
    }

    /** Takes the next token when it is the unquoted word {@code word} (any case). */
    private boolean word(String word) {
        if (at < size && tokens.piece(at) == Piece.WORD && length(at) == word.length()
                && isKeyword(tokens.start(at), word)) {
            take(at, at);
            return true;
        }
        return false;
    }

    /**
     * Whether the text at {@code start} spells {@code keyword} (upper-case ASCII) in ASCII letters
     * of either case. Java's case-blind comparison also takes {@code ſ} for S and {@code ı} for I,
     * which JSqlParser reads as parts of a name, so it is not used here.
     */
    private boolean isKeyword(int start, String keyword) {
        for (int i = 0; i < keyword.length(); i++) {
            char c = sql.charAt(start + i);
            if (c != keyword.charAt(i) && c != Character.toLowerCase(keyword.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /** Takes the next token when it is {@code piece}, one character long. */
    private boolean piece(Piece piece) {
        if (at < size && tokens.piece(at) == piece && length(at) == 1) {
            take(at, at);
            return true;
        }
        return false;
    }

    /** Takes the next token when it is a name (see the class comment); its text as written, else null. */
    private String name() {
        if (at >= size) {
            return null;
        }
        int start = tokens.start(at);
        int end = tokens.end(at);
        String text = sql.substring(start, end);
        boolean plain = switch (tokens.piece(at)) {
            case WORD -> isAsciiName(text, 0, text.length()) && !isGrammarWord(text) && plainName.test(text);
            case QUOTED_NAME -> text.length() > 2 && (text.charAt(0) == '"' || text.charAt(0) == '`')
                    && text.charAt(text.length() - 1) == text.charAt(0) && isAsciiName(text, 1, text.length() - 1);
            default -> false;
        };
        if (!plain) {
            return null;
        }
        take(at, at);
        return text;
    }

    /** ASCII letters, digits and {@code _}, not starting with a digit. */
    private static boolean isAsciiName(String text, int from, int to) {
        if (from >= to || (text.charAt(from) >= '0' && text.charAt(from) <= '9')) {
            return false;
        }
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) {
                return false;
            }
        }
        return true;
    }

    private static boolean isGrammarWord(String text) {
        for (String word : GRAMMAR_WORDS) {
            if (word.equalsIgnoreCase(text)) {
                return true;
            }
        }
        return false;
    }

    /** Takes a parameter, a plain number or string, and {@code NULL} when {@code nullAllowed}. */
    private boolean value(boolean nullAllowed) {
        if (at >= size) {
            return false;
        }
        boolean plain = switch (tokens.piece(at)) {
            case PARAMETER -> length(at) == 1;
            case NUMBER -> isPlainNumber(tokens.start(at), tokens.end(at));
            case STRING -> isPlainString(tokens.start(at), tokens.end(at));
            case WORD -> nullAllowed && length(at) == 4 && isKeyword(tokens.start(at), "NULL");
            default -> false;
        };
        if (plain) {
            take(at, at);
        }
        return plain;
    }

    private boolean isPlainNumber(int start, int end) {
        return PlainNumber.point(sql, start, end) != PlainNumber.NOT_PLAIN;
    }

    private boolean isPlainString(int start, int end) {
        if (end - start < 2 || sql.charAt(start) != '\'' || sql.charAt(end - 1) != '\'') {
            return false;
        }
        for (int i = start + 1; i < end - 1; i++) {
            char c = sql.charAt(i);
            if (c < 0x20 || c > 0x7E || c == '\'' || c == '\\') {
                return false;
            }
        }
        return true;
    }

    /**
     * Takes the operator tokens that touch each other from here as one operator (as JSqlParser
     * reads {@code <=}): one of {@link #COMPARISONS} for a comparison, else {@code =}.
     */
    private boolean operator(boolean comparison) {
        int last = at;
        while (last < size && tokens.piece(last) == Piece.OPERATOR
                && (last == at || tokens.start(last) == tokens.end(last - 1))) {
            last++;
        }
        if (last == at) {
            return false;
        }
        String operator = sql.substring(tokens.start(at), tokens.end(last - 1));
        if (comparison ? !COMPARISONS.contains(operator) : !operator.equals("=")) {
            return false;
        }
        take(at, last - 1);
        return true;
    }

    private int length(int i) {
        return tokens.end(i) - tokens.start(i);
    }

    /** Records tokens {@code [first, last]} as one of JSqlParser's tokens, and moves past them. */
    private void take(int first, int last) {
        if (spanEnds + 2 > spans.length) {
            spans = Arrays.copyOf(spans, spans.length * 2);
        }
        spans[spanEnds++] = tokens.start(first);
        spans[spanEnds++] = tokens.end(last);
        at = last + 1;
    }
}
