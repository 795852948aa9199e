package dev.fencing.internal.sql;

import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.CCJSqlParserConstants;
import net.sf.jsqlparser.parser.Token;

/**
 * Checks a spliced text with JSqlParser's own tokenizer, a second lexer: every fence must stand
 * as a token of its own (not inside what that lexer takes for a comment or a string). With
 * {@code reparse} (a text with a {@code ;}) the spliced text must also still parse.
 *
 * <p>Why one statement is not parsed again: what is inserted is fixed, self-delimiting text
 * (parentheses, {@code AND}, a column, a fence placeholder) at boundaries of tokens this
 * lexer found, around writes whose places JSqlParser's parse of the original confirmed
 * (same writes, same targets); {@link Splice#fusedEdge} checks that no insertion joins a
 * neighbouring word or number, and the scan below that the fences stand alone for a second
 * lexer. A second parse would add only that the result is grammatical, and a single statement
 * that is not is rejected by the database as a whole, with nothing run. In a text with a
 * {@code ;} (several statements, or empty ones) the statements before it may run, so there
 * the parse stays.
 *
 * <p>Only reached when {@link SpliceTokenProof} could not prove the same from the tokens
 * JSqlParser read while parsing the original (a text with a {@code ;}, an edit beside a date
 * or time keyword, a quoted qualifier, a text the parse did not read whole): then re-reading
 * the spliced text is the only proof, and it stays.
 */
final class SpliceVerification {

    private SpliceVerification() {
    }

    /**
     * Why the spliced text cannot be trusted to carry its fences, or null when it can; the reading
     * is spent from {@code budget}.
     */
    static String refusal(String sql, Splice.Result spliced, boolean reparse, Dialect dialect, AnalysisBudget budget) {
        String marker = "9223372036854775" + (sql.contains("9223372036854775806") ? "795" : "806");
        String text = String.join(marker, spliced.pieces());
        CCJSqlParser parser = ParserReading.jsqlParser(text, dialect);
        int seen = 0;
        try {
            for (Token token = parser.getNextToken(); token.kind != CCJSqlParserConstants.EOF; token = parser.getNextToken()) {
                budget.spend(1);
                if (marker.equals(token.image)) {
                    seen++;
                }
            }
        } catch (AnalysisBudget.ExhaustedException e) {
            throw e;
        } catch (RuntimeException | Error e) {
            return "the rewritten statement cannot be read back (" + SqlParser.reason(e) + ")";
        }
        if (seen != spliced.fenceIndexes().length) {
            return "the fence check would not reach the database intact (the text's comments or quotes are "
                    + "ambiguous)";
        }
        if (!reparse) {
            return null;
        }
        try {
            SqlParser.run(ParserReading.jsqlParser(text, dialect), CCJSqlParser::Statements, budget.remainingNanos(), budget);
        } catch (SqlParser.ParserFailure e) {
            return "the rewritten statement does not parse (" + e.getMessage() + ")";
        } catch (Error e) {
            return "the rewritten statement does not parse (" + SqlParser.reason(e) + ")";
        }
        return null;
    }
}
