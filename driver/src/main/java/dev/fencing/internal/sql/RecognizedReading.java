package dev.fencing.internal.sql;

import dev.fencing.internal.config.TableName;
import dev.fencing.internal.sql.recognize.CommonShapes;

import java.util.Locale;

/**
 * The reading of a statement that the recognizer of common shapes ({@link CommonShapes}) takes,
 * in place of JSqlParser's ({@link ParserReading#of}): the one write JSqlParser would list for it,
 * and the spans of the tokens JSqlParser's lexer would read, from which {@link SpliceTokenProof}
 * proves the splice as it would from the parse's tokens. Everything before (the text rules, the
 * hidden-write rules, the statement's head) and after it (the write sites, the write rules, the
 * catalog's facts, the splice, the zero-row queries) is the full analysis's own, so the plan is the
 * one the full analysis makes.
 *
 * <p>Only asked about a text that is one statement, whole, in row mode without the database guard
 * (epoch-mode tables and the guard's forms take the full analysis, as every statement the
 * recognizer does not take does).
 */
final class RecognizedReading {

    private final ParserReading reading;
    private final int[] spans;

    private RecognizedReading(ParserReading reading, int[] spans) {
        this.reading = reading;
        this.spans = spans;
    }

    /** The reading of JSqlParser, as the full analysis would get it. */
    ParserReading reading() {
        return reading;
    }

    /** Begin and end offsets, in pairs, of the tokens JSqlParser's lexer reads in the text. */
    int[] spans() {
        return spans;
    }

    /** The recognizer's reading of {@code statement}, or null when it is not one of its shapes. */
    static RecognizedReading of(AnalysisContext context, StatementView statement) {
        SqlTokens tokens = statement.tokens();
        if (context.guard() || context.epochTables() || statement.from() != 0 || statement.to() != tokens.size()
                || statement.rawFrom() != 0 || statement.rawTo() != statement.sql().length()) {
            return null;
        }
        CommonShapes.Recognized recognized = CommonShapes.recognize(statement.sql(), new Lexed(tokens),
                ParserWords::isPlainIdentifier);
        if (recognized == null) {
            return null;
        }
        ParsedWrites.Kind kind = switch (recognized.kind()) {
            case UPDATE -> ParsedWrites.Kind.UPDATE;
            case DELETE -> ParsedWrites.Kind.DELETE;
            case INSERT -> ParsedWrites.Kind.INSERT;
        };
        String fenceColumn = context.config().column().toLowerCase(Locale.ROOT);
        boolean setsColumn = false;
        for (String column : recognized.columns()) {
            setsColumn |= ParsedWrites.isFenceColumn(column, fenceColumn);
        }
        ParsedWrites.ParsedWrite write = new ParsedWrites.ParsedWrite(kind, TableName.of(null, recognized.table()),
                kind.name(), setsColumn, false, false);
        return new RecognizedReading(new ParserReading(ParsedWrites.single(write), null, null), recognized.spans());
    }

    /** The analyzer's tokens as the recognizer reads them. */
    private record Lexed(SqlTokens tokens) implements CommonShapes.Lexed {

        @Override
        public int size() {
            return tokens.size();
        }

        @Override
        public CommonShapes.Piece piece(int i) {
            int length = tokens.end(i) - tokens.start(i);
            char first = tokens.sql.charAt(tokens.start(i));
            return switch (tokens.kind(i)) {
                case SqlTokens.WORD -> CommonShapes.Piece.WORD;
                case SqlTokens.QUOTED_IDENTIFIER -> CommonShapes.Piece.QUOTED_NAME;
                case SqlTokens.STRING -> CommonShapes.Piece.STRING;
                case SqlTokens.NUMBER -> CommonShapes.Piece.NUMBER;
                case SqlTokens.PARAMETER -> length == 1 ? CommonShapes.Piece.PARAMETER : CommonShapes.Piece.OTHER;
                case SqlTokens.OPEN -> first == '(' ? CommonShapes.Piece.OPEN : CommonShapes.Piece.OTHER;
                case SqlTokens.CLOSE -> first == ')' ? CommonShapes.Piece.CLOSE : CommonShapes.Piece.OTHER;
                case SqlTokens.COMMA -> CommonShapes.Piece.COMMA;
                case SqlTokens.OPERATOR -> length == 1 ? CommonShapes.Piece.OPERATOR : CommonShapes.Piece.OTHER;
                default -> CommonShapes.Piece.OTHER;
            };
        }

        @Override
        public int start(int i) {
            return tokens.start(i);
        }

        @Override
        public int end(int i) {
            return tokens.end(i);
        }
    }
}
