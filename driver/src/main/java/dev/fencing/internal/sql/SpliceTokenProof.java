package dev.fencing.internal.sql;

import net.sf.jsqlparser.parser.CCJSqlParserConstants;
import net.sf.jsqlparser.parser.Token;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Proves, from the tokens JSqlParser's lexer read while parsing the original text, that it would
 * read every fence of the spliced text as a token of its own, and the rest as before: the front
 * door's second reader, without re-reading the spliced text. It holds when
 * <ul>
 * <li>the parser's tokens and comments, with only JSqlParser's white space between them, account
 *     for every character of the text it was given (the parse read to the end);</li>
 * <li>every edit starts and ends where that lexer saw no token or comment go on (not inside one,
 *     not at the end of a {@code --} or {@code //} comment, which the insertion would continue);</li>
 * <li>each inserted text is fixed SQL of plain words, digits, white space and {@code ( ) , . * < > =}
 *     (no quote, no comment opener), each fence with only white space, a parenthesis or a comma
 *     beside it, and no word that can start or continue one of JSqlParser's multi-word tokens;</li>
 * <li>at each edge of an insertion, one side is white space, a parenthesis or a comma, and the
 *     original token before the edit is no date or time keyword (their tokens, {@code TIMESTAMP(3)
 *     WITH TIME ZONE} and {@code CURRENT_TIMESTAMP()}, may take in a following parenthesis).</li>
 * </ul>
 * Together: no token of the spliced text crosses an edge of an insertion, so JSqlParser's lexer
 * reads the original's tokens unchanged and each inserted piece as its own tokens. The rules follow
 * the token definitions of JSqlParser 5.3's grammar ({@code JSqlParserCC.jjt}: white space,
 * {@code K_TIME_KEY_EXPR}, {@code DT_ZONE}, {@code K_NEXTVAL}, {@code K_SIMILAR_TO}, the quoted
 * multi-word tokens, {@code S_HEX}); {@code SpliceTokenProofTest} checks the multi-word tokens
 * against the parser on the class path. When the proof does not hold, the caller re-reads the
 * spliced text with JSqlParser's lexer, as before: {@code false} means "not proven here", never
 * "unsafe".
 */
final class SpliceTokenProof {

    /** First words of JSqlParser's tokens that take in white space and further words. */
    static final Set<String> MULTI_WORD_FIRSTS = Set.of("WITH", "IN", "DISTRIBUTED", "RESTRICTED", "KILL",
            "NEXTVAL", "NEXT", "CURRENT", "SIMILAR", "DATE", "DATETIME", "TIME", "TIMESTAMP", "TIMESTAMPTZ", "X");

    /** The words that follow the first in those tokens. */
    static final Set<String> MULTI_WORD_CONTINUATIONS = Set.of("TIES", "NATURAL", "LANGUAGE", "MODE", "WITH",
            "QUERY", "EXPANSION", "BOOLEAN", "RECOVERY", "SESSION", "FOR", "VALUE", "TIMESTAMP", "TIME", "DATE",
            "TIMEZONE", "TO", "WITHOUT", "LOCAL", "ZONE");

    /** {@code K_DATETIMELITERAL}: may be followed, inside one token, by {@code (n) WITH TIME ZONE}. */
    private static final Set<String> DATE_TIME_WORDS = Set.of("DATE", "DATETIME", "TIME", "TIMESTAMP", "TIMESTAMPTZ");

    private static final byte TOKEN = 0;
    private static final byte LINE_COMMENT = 1;
    private static final byte BLOCK_COMMENT = 2;

    /** Spans of the original's tokens and comments, in text order. */
    private final int[] begins;
    private final int[] ends;
    private final byte[] kinds;
    private final String[] images;
    private final int count;
    private final String text;

    private SpliceTokenProof(String text, int[] begins, int[] ends, byte[] kinds, String[] images, int count) {
        this.text = text;
        this.begins = begins;
        this.ends = ends;
        this.kinds = kinds;
        this.images = images;
        this.count = count;
    }

    /** True when the edits of {@code splice} provably leave every fence a token of its own for JSqlParser. */
    static boolean holds(SqlParser.Parsed original, Splice splice) {
        SpliceTokenProof spans = read(original.text(), original.firstToken());
        if (spans == null) {
            return false;
        }
        List<Splice.Edit> edits = splice.edits();
        for (Splice.Edit edit : edits) {
            if (!spans.editHolds(edit)) {
                return false;
            }
        }
        return true;
    }

    /**
     * True when the edits of {@code splice} provably leave every fence a token of its own for
     * JSqlParser, from {@code spans}: the begin and end offsets, in pairs, of the tokens its lexer
     * reads in {@code text} (comments none), as the recognizer of common shapes certifies them
     * ({@link RecognizedReading}). False as well when they do not cover the text with white space
     * alone between them.
     */
    static boolean holds(String text, int[] spans, Splice splice) {
        int count = spans.length / 2;
        int[] begins = new int[count];
        int[] ends = new int[count];
        String[] images = new String[count];
        int cursor = 0;
        for (int k = 0; k < count; k++) {
            begins[k] = spans[2 * k];
            ends[k] = spans[2 * k + 1];
            if (begins[k] < cursor || ends[k] <= begins[k] || ends[k] > text.length()
                    || !whiteSpace(text, cursor, begins[k])) {
                return false;
            }
            images[k] = text.substring(begins[k], ends[k]);
            cursor = ends[k];
        }
        if (!whiteSpace(text, cursor, text.length())) {
            return false;
        }
        byte[] kinds = new byte[count];
        java.util.Arrays.fill(kinds, TOKEN);
        SpliceTokenProof proof = new SpliceTokenProof(text, begins, ends, kinds, images, count);
        for (Splice.Edit edit : splice.edits()) {
            if (!proof.editHolds(edit)) {
                return false;
            }
        }
        return true;
    }

    /** The spans of the parser's token chain, or null when they do not account for the whole text. */
    private static SpliceTokenProof read(String text, Token firstToken) {
        int capacity = 64;
        int[] begins = new int[capacity];
        int[] ends = new int[capacity];
        byte[] kinds = new byte[capacity];
        String[] images = new String[capacity];
        int count = 0;
        int cursor = 0;
        for (Token token = firstToken.next; ; token = token.next) {
            if (token == null) {
                return null; // the parse ended before the lexer reached the end of the text
            }
            Token special = token.specialToken;
            while (special != null && special.specialToken != null) {
                special = special.specialToken;
            }
            for (Token t = special; ; t = t.next) {
                boolean regular = t == null || t == token;
                Token span = regular ? token : t;
                if (regular && token.kind == CCJSqlParserConstants.EOF) {
                    return whiteSpace(text, cursor, text.length())
                            ? new SpliceTokenProof(text, begins, ends, kinds, images, count) : null;
                }
                // the lexer skips only white space between spans, so each begins at the first
                // character after it (the tokens' own offsets are not kept for comments)
                int begin = cursor;
                while (begin < text.length() && isWhiteSpace(text.charAt(begin))) {
                    begin++;
                }
                String image = span.image;
                if (image == null || image.isEmpty() || !text.startsWith(image, begin)) {
                    return null; // not the text's next characters: an image the lexer rewrote
                }
                if (count == capacity) {
                    capacity *= 2;
                    begins = java.util.Arrays.copyOf(begins, capacity);
                    ends = java.util.Arrays.copyOf(ends, capacity);
                    kinds = java.util.Arrays.copyOf(kinds, capacity);
                    images = java.util.Arrays.copyOf(images, capacity);
                }
                begins[count] = begin;
                ends[count] = begin + image.length();
                kinds[count] = regular ? TOKEN : span.kind == CCJSqlParserConstants.LINE_COMMENT ? LINE_COMMENT
                        : BLOCK_COMMENT;
                images[count] = image;
                cursor = ends[count];
                count++;
                if (regular) {
                    break;
                }
            }
        }
    }

    /** JSqlParser's {@code WHITESPACE}, the only text it skips. */
    private static boolean isWhiteSpace(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n';
    }

    private static boolean whiteSpace(String text, int from, int to) {
        for (int i = from; i < to; i++) {
            if (!isWhiteSpace(text.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private boolean editHolds(Splice.Edit edit) {
        String inserted = edit.text();
        if (inserted.isEmpty() || !boundary(edit.start()) || !boundary(edit.end()) || !insertionHolds(inserted)) {
            return false;
        }
        int before = lastTokenEndingBy(edit.start());
        if (before >= 0 && takesParenthesis(images[before])) {
            return false;
        }
        boolean leftHolds = edit.start() == 0 || edgeHolds(text.charAt(edit.start() - 1), inserted.charAt(0));
        boolean rightHolds = edit.end() == text.length()
                || edgeHolds(text.charAt(edit.end()), inserted.charAt(inserted.length() - 1));
        return leftHolds && rightHolds && !isWhiteSpace(inserted.charAt(inserted.length() - 1));
    }

    /** Not inside a token or comment, nor at the end of a line comment (which would run on). */
    private boolean boundary(int offset) {
        int low = 0;
        int high = count - 1;
        while (low <= high) {
            int middle = (low + high) >>> 1;
            if (ends[middle] < offset) {
                low = middle + 1;
            } else if (begins[middle] >= offset) {
                high = middle - 1;
            } else {
                // begins[middle] < offset <= ends[middle]
                return offset == ends[middle] && kinds[middle] != LINE_COMMENT;
            }
        }
        return true;
    }

    private int lastTokenEndingBy(int offset) {
        for (int i = count - 1; i >= 0; i--) {
            if (kinds[i] == TOKEN && ends[i] <= offset) {
                return i;
            }
        }
        return -1;
    }

    private static boolean takesParenthesis(String image) {
        String word = image.toUpperCase(Locale.ROOT);
        return DATE_TIME_WORDS.contains(word) || word.startsWith("CURRENT");
    }

    /** One side of the edge is the original's character, the other the insertion's. */
    private static boolean edgeHolds(char original, char inserted) {
        if (isSeparator(inserted) || isWhiteSpace(inserted)) {
            return true;
        }
        return isWordPart(inserted) && (isSeparator(original) || isWhiteSpace(original));
    }

    private static boolean isSeparator(char c) {
        return c == '(' || c == ')' || c == ',';
    }

    private static boolean isWordPart(char c) {
        return c == Splice.FENCE || c == '_' || (c < 0x80 && Character.isLetterOrDigit(c));
    }

    /**
     * Fixed SQL that JSqlParser reads as its own tokens: plain words (none that joins a multi-word
     * token), digits, white space, {@code ( ) , . * < > =}; a fence beside nothing that could
     * join it; a point only between a word and a word or {@code *}.
     */
    private static boolean insertionHolds(String inserted) {
        int length = inserted.length();
        for (int i = 0; i < length; ) {
            char c = inserted.charAt(i);
            if (c == Splice.FENCE) {
                if ((i > 0 && !isFenceNeighbour(inserted.charAt(i - 1)))
                        || (i + 1 < length && !isFenceNeighbour(inserted.charAt(i + 1)))) {
                    return false;
                }
                i++;
            } else if (c == '_' || (c < 0x80 && Character.isLetterOrDigit(c))) {
                int end = i;
                while (end < length && (inserted.charAt(end) == '_'
                        || (inserted.charAt(end) < 0x80 && Character.isLetterOrDigit(inserted.charAt(end))))) {
                    end++;
                }
                String word = inserted.substring(i, end).toUpperCase(Locale.ROOT);
                boolean number = Character.isDigit(c);
                if (number ? !word.chars().allMatch(Character::isDigit)
                        : MULTI_WORD_FIRSTS.contains(word) || MULTI_WORD_CONTINUATIONS.contains(word)) {
                    return false;
                }
                if (end < length && inserted.charAt(end) == Splice.FENCE) {
                    return false;
                }
                i = end;
            } else if (c == '.') {
                boolean afterWord = i > 0 && (Character.isLetter(inserted.charAt(i - 1)) || inserted.charAt(i - 1) == '_'
                        || (Character.isDigit(inserted.charAt(i - 1)) && !startsWithDigit(inserted, i)));
                char next = i + 1 < length ? inserted.charAt(i + 1) : ' ';
                if (!afterWord || !(next == '*' || next == '_' || (next < 0x80 && Character.isLetter(next)))) {
                    return false;
                }
                i++;
            } else if (isWhiteSpace(c) || isSeparator(c) || c == '*' || c == '<' || c == '>' || c == '=') {
                i++;
            } else {
                return false;
            }
        }
        return true;
    }

    private static boolean isFenceNeighbour(char c) {
        return c == ' ' || isSeparator(c);
    }

    /** Whether the word that ends just before {@code end} starts with a digit (a number, not a name). */
    private static boolean startsWithDigit(String text, int end) {
        int start = end;
        while (start > 0 && (text.charAt(start - 1) == '_' || Character.isLetterOrDigit(text.charAt(start - 1)))) {
            start--;
        }
        return Character.isDigit(text.charAt(start));
    }
}
