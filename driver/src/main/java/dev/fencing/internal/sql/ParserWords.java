package dev.fencing.internal.sql;

import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.CCJSqlParserConstants;
import net.sf.jsqlparser.parser.StringProvider;
import net.sf.jsqlparser.parser.Token;

import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which unquoted words JSqlParser's lexer reads as plain identifiers: asked of the lexer on the
 * class path itself (its keywords, the words its patterns take in, such as {@code DATE},
 * {@code BIGINT} or {@code SEL}, are not), and never a word that starts or continues one of its
 * multi-word tokens ({@link SpliceTokenProof#MULTI_WORD_FIRSTS}). The answer depends only on the
 * word and the JSqlParser on the class path, so it is remembered (a bounded memo, emptied when full).
 */
final class ParserWords {

    private static final int REMEMBERED = 4096;
    private static final ConcurrentHashMap<String, Boolean> PLAIN = new ConcurrentHashMap<>();

    private ParserWords() {
    }

    /** True when JSqlParser's lexer reads {@code word} (ASCII letters, digits, {@code _}) alone as a plain identifier. */
    static boolean isPlainIdentifier(String word) {
        String upper = word.toUpperCase(Locale.ROOT);
        Boolean known = PLAIN.get(upper);
        if (known != null) {
            return known;
        }
        boolean plain = !SpliceTokenProof.MULTI_WORD_FIRSTS.contains(upper)
                && !SpliceTokenProof.MULTI_WORD_CONTINUATIONS.contains(upper) && readAlone(word)
                && readAlone(upper);
        if (PLAIN.size() >= REMEMBERED) {
            PLAIN.clear();
        }
        PLAIN.put(upper, plain);
        return plain;
    }

    private static boolean readAlone(String word) {
        try {
            CCJSqlParser lexer = new CCJSqlParser(new StringProvider(word));
            Token token = lexer.getNextToken();
            return token.kind == CCJSqlParserConstants.S_IDENTIFIER && word.equals(token.image)
                    && lexer.getNextToken().kind == CCJSqlParserConstants.EOF;
        } catch (RuntimeException | Error e) {
            return false;
        }
    }
}
