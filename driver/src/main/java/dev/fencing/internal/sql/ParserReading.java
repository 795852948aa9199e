package dev.fencing.internal.sql;

import dev.fencing.internal.config.TableName;
import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.CCJSqlParserConstants;
import net.sf.jsqlparser.parser.StringProvider;
import net.sf.jsqlparser.parser.Token;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.UnsupportedStatement;

import java.util.List;
import java.util.Locale;

/**
 * JSqlParser's reading of a statement that names a fenced table: its writes, or no writes with
 * either a refusal or none (the statement is let through: the fenced name was only part of
 * another name, a string or a comment).
 *
 * @param parse the parse, kept for the splice proof; null when there is none
 */
record ParserReading(ParsedWrites writes, Decision refusal, SqlParser.Parsed parse) {

    private static final String[] ROUTINE_KINDS = {"FUNCTION", "PROCEDURE", "TRIGGER", "RULE", "VIEW", "EVENT",
            "ALIAS", "PACKAGE", "AGGREGATE"};
    private static final ParserReading LET_THROUGH = new ParserReading(null, null, null);

    /** True when the statement is let through unread. */
    boolean letThrough() {
        return writes == null && refusal == null;
    }

    static ParserReading of(AnalysisContext context, StatementView statement, ParserText parserText) {
        Statement parsed;
        SqlParser.Parsed parse;
        try {
            parse = context.parser().parseKeepingTokens(parserText.of(statement.rawFrom(), statement.rawTo()),
                    context.budget());
            parsed = parse.statement();
        } catch (SqlParser.UnparseableSqlException e) {
            if (statement.isWord(statement.from(), "SELECT")
                    && WriteSites.countStatementHeads(statement.tokens(), statement.from(), statement.to()) == 0
                    && !mentionsWriteKeyword(statement.raw())) {
                return LET_THROUGH;
            }
            if (!isRoutineDefinition(statement) && !namesFencedIdentifier(context, statement)) {
                return LET_THROUGH; // the fenced name is only part of another name, a string or a comment
            }
            return new ParserReading(null, Decision.refuse("the SQL parser cannot read a statement that names a fenced"
                    + " table (" + e.getMessage() + "); rewrite it in a form the parser reads, or run it through an"
                    + " unfenced connection"), null);
        }
        ParsedWrites writes = ParsedWrites.of(parsed, context.config().column());
        if (!writes.understood) {
            if (!isRoutineDefinition(statement) && !namesFencedIdentifier(context, statement)) {
                return LET_THROUGH; // e.g. CREATE TABLE orders_archive, COMMENT .. IS 'copied from orders'
            }
            return new ParserReading(null, Decision.refuse(kindInWords(parsed, statement) + " statements that name a fenced table are refused"
                    + " (schema changes, LOCK, views and routines over it, and the like); run them through an unfenced"
                    + " connection"), parse);
        }
        return new ParserReading(writes, null, parse);
    }

    /**
     * The statement's kind in SQL words, from JSqlParser's class ({@code CreateTable} is
     * {@code CREATE TABLE}); the statement's first word for a statement JSqlParser only skipped.
     */
    private static String kindInWords(Statement parsed, StatementView statement) {
        if (parsed instanceof UnsupportedStatement) {
            return statement.tokens().text(statement.from()).toUpperCase(Locale.ROOT);
        }
        String name = parsed.getClass().getSimpleName().replace("Statement", "");
        StringBuilder words = new StringBuilder(name.length() + 4);
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (i > 0 && Character.isUpperCase(c)) {
                words.append(' ');
            }
            words.append(Character.toUpperCase(c));
        }
        return words.toString();
    }

    /**
     * A refusal when the parser's and the text's readings of the writes cannot be trusted together
     * (a SELECT .. INTO a fenced table, or a different number of writes), else {@link Decision#PASS}.
     */
    Decision disagreement(AnalysisContext context, StatementView statement, List<WriteSite> sites) {
        for (TableName into : writes.selectIntoTargets) {
            TableName fenced = context.fencedTables().fencedTableFor(into);
            if (fenced != null) {
                return new Decision.Refuse(fenced.toString(), "SELECT .. INTO fenced table " + fenced
                        + " cannot carry the check");
            }
        }
        int heads = WriteSites.countStatementHeads(statement.tokens(), statement.from(), statement.to());
        if (sites.size() != writes.writes.size() || heads != sites.size()) {
            return Decision.refuse("the statement's writes could not be located with certainty (parser found "
                    + writes.writes.size() + ", text shows " + heads + ")");
        }
        return Decision.PASS;
    }

    /**
     * A statement that defines code or a view ({@code CREATE [OR REPLACE] FUNCTION, PROCEDURE,
     * TRIGGER, RULE, VIEW, EVENT, ALIAS ..}): its body, often a string, runs later, so any
     * mention of a fenced table counts, not only an identifier.
     */
    private static boolean isRoutineDefinition(StatementView statement) {
        int from = statement.from();
        if (!statement.isWord(from, "CREATE") && !statement.isWord(from, "ALTER")) {
            return false;
        }
        for (int i = from + 1; i < Math.min(statement.to(), from + 8); i++) {
            if (statement.isAnyWord(i, ROUTINE_KINDS)) {
                return true;
            }
        }
        return false;
    }

    /**
     * True when a fenced table's name stands as an identifier (not as part of a longer name, in a
     * string or a comment) in the statement, as this lexer or JSqlParser's tokenizer reads it
     * ({@code U&".."} names, which can spell any name, were refused before: HiddenWriteRules).
     */
    private static boolean namesFencedIdentifier(AnalysisContext context, StatementView statement) {
        SqlTokens tokens = statement.tokens();
        for (int i = statement.from(); i < statement.to(); i++) {
            if (tokens.isIdentifier(i) && context.isFencedName(tokens.identifier(i))) {
                return true;
            }
        }
        try {
            CCJSqlParser second = jsqlParser(statement.raw(), context.dialect());
            for (Token token = second.getNextToken(); token.kind != CCJSqlParserConstants.EOF; token = second.getNextToken()) {
                context.budget().spend(1);
                if (token.image != null && context.isFencedName(dev.fencing.internal.config.Identifiers.unquote(token.image)
                        .toLowerCase(Locale.ROOT))) {
                    return true;
                }
            }
        } catch (AnalysisBudget.ExhaustedException e) {
            throw e;
        } catch (RuntimeException | Error e) {
            return true;
        }
        return false;
    }

    /** True when a write keyword appears anywhere in the text (a parse failure hides where). */
    private static boolean mentionsWriteKeyword(String raw) {
        String upper = raw.toUpperCase(Locale.ROOT);
        for (String keyword : new String[] {"INSERT", "UPDATE", "DELETE", "MERGE", "TRUNCATE", "REPLACE", "UPSERT", "COPY", "CALL"}) {
            if (upper.contains(keyword)) {
                return true;
            }
        }
        return false;
    }

    static CCJSqlParser jsqlParser(String text, Dialect dialect) {
        return SqlParser.configure(new CCJSqlParser(new StringProvider(text)), dialect);
    }
}
