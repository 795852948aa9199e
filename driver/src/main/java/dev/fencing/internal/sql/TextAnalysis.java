package dev.fencing.internal.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * The analysis of one text; not shared. The text is read (lexed; refused when no lexer reads it
 * for certain; MariaDB compound statements judged as a whole), each statement is classified by
 * its head and handed to the rules, whose {@link Decision}s are folded here, in order, into what
 * the text writes; the plan is decided from that, and a text whose fenced writes were spliced is
 * proven last. The fold ({@link #apply}) is the only place that changes what the analysis knows.
 */
final class TextAnalysis {

    /**
     * How the analyzer wants texts planned, and where it counts the splice proofs.
     *
     * @param rewriteOff test-only: every write is sent as written (the database guard alone checks it)
     * @param crossCheck test-only: every splice the cheap proof accepts is also re-read
     * @param recognizer the common shapes are read without JSqlParser ({@link RecognizedReading}); off
     *                   only in the tests that compare both readings
     * @param recognized counts the statements the recognizer read
     */
    record Options(boolean rewriteOff, boolean crossCheck, FenceSlot fenceSlot, LongAdder proofsFromParse,
                   LongAdder rereads, boolean recognizer, LongAdder recognized) {
    }

    private final AnalysisContext context;
    private final Options options;
    private final String sql;
    private final SqlTokens tokens;
    private final ParserText parserText;
    private final Splice splice;

    // what the decisions folded so far say about the text
    private String fencedTable;
    private boolean namesFencedTable;
    private boolean guardChecked;
    private int fencedWrites;
    private int epochWrites;
    private WriteSite onlySite;
    /** Every spliced write, in text order, and the fenced table each writes. */
    private final List<WriteSite> splicedSites = new ArrayList<>(1);
    private final List<String> splicedTables = new ArrayList<>(1);
    private int statements;
    private boolean controlsTransaction;
    private boolean changesSchema;
    /** JSqlParser's parse of the whole text, when the text is one statement; else null. */
    private SqlParser.Parsed wholeTextParse;
    /** The recognizer's reading of the whole text, when it read it instead of JSqlParser; else null. */
    private RecognizedReading recognizedText;

    private TextAnalysis(AnalysisContext context, Options options, String sql, SqlTokens tokens) {
        this.context = context;
        this.options = options;
        this.sql = sql;
        this.tokens = tokens;
        this.parserText = new ParserText(sql);
        this.splice = new Splice(sql);
    }

    /** The result of one text's analysis: its plan, and whether a statement of it changes the schema. */
    record Result(FencePlan plan, SqlTokens tokens, boolean changesSchema) {
    }

    /** The plan of {@code sql}; {@code lexed} is its tokens when they are already known, else null. */
    static Result analyze(AnalysisContext context, Options options, String sql, SqlTokens lexed) {
        SqlTokens tokens = lexed;
        try {
            if (tokens == null) {
                tokens = SqlTokens.lex(sql, context.dialect(), context.budget());
            }
        } catch (SqlTokens.UnreadableSqlException e) {
            return new Result(FencePlan.refused(sql, context.firstConfiguredTable(), "the SQL cannot be read ("
                    + e.getMessage() + "), and it may write a fenced table; nothing was sent"), null, false);
        }
        TextAnalysis analysis = new TextAnalysis(context, options, sql, tokens);
        FencePlan plan = analysis.run().withSeveralStatements(tokens.holdsSeveralStatements());
        return new Result(plan, tokens, analysis.changesSchema);
    }

    private FencePlan run() {
        if (TextRules.backslashString(context, sql, tokens) instanceof Decision.Refuse refuse) {
            return FencePlan.refused(sql, context.firstConfiguredTable(), refuse.reason() + "; nothing was sent");
        }
        if (TextRules.clientEncodingChange(context, sql, tokens) instanceof Decision.Refuse refuse) {
            return FencePlan.refused(sql, context.firstConfiguredTable(), refuse.reason() + "; nothing was sent");
        }
        if (context.dialect().compoundStatementsInTexts() && ProcedureCallRules.isMariaDbCompound(tokens)) {
            return ProcedureCallRules.compound(context, sql, tokens);
        }
        int[] parameterOrdinals = numberParameters();
        int parameters = parameterOrdinals.length == 0 ? 0 : max(parameterOrdinals);
        Decision.Refuse refusal = analyzeStatements();
        if (refusal != null) {
            return FencePlan.refused(sql, tableOrFirst(), refusal.reason() + "; nothing was sent");
        }
        FencePlan unspliced = planWithoutSplice(parameters);
        return unspliced != null ? unspliced : splicedPlan(parameters, parameterOrdinals);
    }

    private static int max(int[] values) {
        int max = 0;
        for (int value : values) {
            max = Math.max(max, value);
        }
        return max;
    }

    /**
     * Blanks {@code #} comments for the parser (JSqlParser does not read them), gives it each
     * PostgreSQL {@code ??} as the {@code ?} pgjdbc sends (the first character blanked, so that
     * {@code ??|} reads as {@code ?|}), and numbers the application's parameters in text order
     * (by token; 0 for tokens that are not parameters).
     */
    private int[] numberParameters() {
        int[] hashComments = tokens.hashComments();
        for (int k = 0; k < hashComments.length; k += 2) {
            parserText.blank(hashComments[k], hashComments[k + 1]);
        }
        boolean pgjdbc = context.dialect().driverSendsDoubledQuestionMarkAsOne();
        int[] ordinals = new int[tokens.size()];
        int parameters = 0;
        for (int i = 0; i < tokens.size(); i++) {
            if (tokens.kind(i) == SqlTokens.PARAMETER) {
                ordinals[i] = ++parameters;
            } else if (pgjdbc && tokens.isEscapedQuestionMark(i)) {
                parserText.blank(tokens.start(i), tokens.start(i) + 1);
            }
        }
        return ordinals;
    }

    /**
     * Analyses each statement of the text (split at top-level semicolons) in order; the first
     * refusal, or null.
     */
    private Decision.Refuse analyzeStatements() {
        int start = 0;
        int rawStart = 0;
        for (int i = 0; i <= tokens.size(); i++) {
            if (i == tokens.size() || (tokens.kind(i) == SqlTokens.SEMICOLON && tokens.depth(i) == 0)) {
                int rawEnd = i == tokens.size() ? sql.length() : tokens.start(i);
                Decision.Refuse refusal = null;
                context.budget().spend(i - start + 1);
                if (i > start) {
                    statements++;
                    refusal = fold(statement(start, i, rawStart, rawEnd));
                } else if (context.filter().mayNameFencedTable(sql.substring(rawStart, rawEnd))) {
                    refusal = Decision.refuse("a fenced table is named where the analysis sees only a comment");
                }
                if (refusal != null) {
                    return refusal;
                }
                rawStart = rawEnd + 1;
                start = i + 1;
            }
        }
        return null;
    }

    /** Applies {@code decisions} in order; the first refusal (applied too), or null. */
    private Decision.Refuse fold(List<Decision> decisions) {
        for (Decision decision : decisions) {
            apply(decision);
            if (decision instanceof Decision.Refuse refuse) {
                return refuse;
            }
        }
        return null;
    }

    private void apply(Decision decision) {
        if (decision instanceof Decision.Read) {
            namesFencedTable = true;
        } else if (decision instanceof Decision.Splice write) {
            fencedTable = write.table();
            new SiteSplicer(tokens, splice, context.config(), context.dialect()).rewrite(write.site());
            fencedWrites++;
            onlySite = write.site();
            splicedSites.add(write.site());
            splicedTables.add(write.table());
        } else if (decision instanceof Decision.EpochWrite write) {
            fencedTable = write.table();
            epochWrites++;
        } else if (decision instanceof Decision.GuardChecked checked) {
            fencedTable = checked.table() == null ? fencedTable : checked.table();
            guardChecked = true;
        } else if (decision instanceof Decision.Refuse refuse) {
            fencedTable = refuse.table() == null ? fencedTable : refuse.table();
        }
    }

    /**
     * The decisions about the statement in tokens {@code [from, to)}, which the text
     * {@code [rawFrom, rawTo)} holds with the comments around it. First what the statement is
     * (what it does to the transaction and the schema; forms judged by their head: SET STATEMENT,
     * EXPLAIN, procedure calls); a statement that mentions a fenced table then has its writes
     * read twice and decided one by one ({@link #fencedStatement}).
     */
    private List<Decision> statement(int from, int to, int rawFrom, int rawTo) {
        if (context.epochTables() && !(tokens.kind(from) == SqlTokens.OPEN || StatementHead.leavesTransactionAlone(tokens, from))) {
            controlsTransaction = true;
        }
        // Decided on the raw text, comments and strings included: where this lexer and the
        // database's disagree about what is a comment, the statement is parsed, not passed.
        StatementView statement = new StatementView(sql, tokens, from, to, rawFrom, rawTo,
                context.mentionsWatchedTable(sql.substring(rawFrom, rawTo)));
        changesSchema |= statement.isAnyWord(from, StatementHead.SCHEMA_CHANGES)
                && !(statement.isAnyWord(from + 1, StatementHead.TEMPORARY) || ((statement.isWord(from + 1, "GLOBAL")
                || statement.isWord(from + 1, "LOCAL")) && statement.isAnyWord(from + 2, StatementHead.TEMPORARY)))
                // dynamic SQL and compound statements may run DDL the text does not show
                // (DO $$ .. EXECUTE 'ALTER TABLE ..' $$, EXECUTE IMMEDIATE CONCAT(..)): read the facts again
                || statement.isAnyWord(from, StatementHead.DYNAMIC) || statement.isAnyWord(from, StatementHead.COMPOUND)
                || statement.isWord(from, "BEGIN") && statement.isWord(from + 1, "NOT");
        Decision hidden = HiddenWriteRules.decide(context, statement);
        if (hidden.refuses()) {
            return List.of(hidden);
        }
        if (context.dialect().setStatementForRunsAStatement() && statement.isWord(from, "SET")
                && statement.isWord(from + 1, "STATEMENT")) {
            int inner = setStatementBody(from, to);
            if (inner < 0) {
                return statement.names() ? List.of(Decision.refuse("SET STATEMENT .. FOR without a statement after FOR"))
                        : List.of();
            }
            parserText.blank(tokens.start(from), tokens.end(inner - 1));
            return statement(inner, to, tokens.start(inner), rawTo);
        }
        if (ExplainRule.isExplain(context.dialect(), tokens, from)) {
            Decision explained = ExplainRule.decide(context, statement, parserText);
            return statement.names() ? List.of(Decision.READ, explained) : List.of(explained);
        }
        if (StatementHead.isDynamic(tokens, from)) {
            return List.of(ProcedureCallRules.dynamicStatement(context, statement));
        }
        if (statement.isAnyWord(from, StatementHead.METADATA_READS)
                && WriteSites.countStatementHeads(tokens, from, to) == 0) {
            return statement.names() ? List.of(Decision.READ) : List.of();
        }
        return statement.names() ? fencedStatement(statement) : List.of();
    }

    /** The first token of the statement after MariaDB's {@code SET STATEMENT .. FOR}, or -1. */
    private int setStatementBody(int head, int to) {
        for (int i = head + 2; i < to; i++) {
            if (tokens.depth(i) == tokens.depth(head) && tokens.isWord(i, "FOR")) {
                return i + 1 < to ? i + 1 : -1;
            }
        }
        return -1;
    }

    /**
     * A statement that mentions a fenced table: its writes are found in the text
     * ({@link WriteSites}) and by JSqlParser; the two readings must agree, and each write is
     * then decided ({@link WriteRules}).
     */
    private List<Decision> fencedStatement(StatementView statement) {
        List<Decision> decisions = new ArrayList<>();
        decisions.add(Decision.READ);
        if (context.guard() && isCopyFrom(statement)) {
            // COPY FROM fires row triggers (PostgreSQL)
            decisions.add(new Decision.GuardChecked(null));
            return decisions;
        }
        Decision unreadable = TextRules.sessionDependentText(statement);
        if (unreadable.refuses()) {
            decisions.add(unreadable);
            return decisions;
        }
        // the text's own reading of the writes first: it also marks what JSqlParser cannot read
        // but the database does (PostgreSQL's "orders *", NOT MATERIALIZED), blanked for the parser
        List<WriteSite> sites = WriteSites.find(tokens, context.dialect(), statement.from(), statement.to(),
                token -> parserText.blank(tokens.start(token), tokens.end(token)));
        recognizedText = options.recognizer() ? RecognizedReading.of(context, statement) : null;
        ParserReading reading;
        if (recognizedText != null) {
            options.recognized().increment();
            reading = recognizedText.reading();
        } else {
            reading = ParserReading.of(context, statement, parserText);
        }
        if (statement.rawFrom() == 0 && statement.rawTo() == sql.length() && reading.parse() != null) {
            wholeTextParse = reading.parse();
        } else if (reading.parse() != null) {
            wholeTextParse = null;
        }
        if (reading.writes() == null) {
            if (!reading.letThrough()) {
                decisions.add(reading.refusal());
            }
            return decisions;
        }
        Decision disagreement = reading.disagreement(context, statement, sites);
        if (disagreement.refuses()) {
            decisions.add(disagreement);
            return decisions;
        }
        for (int k = 0; k < sites.size(); k++) {
            Decision write = WriteRules.decide(context, statement, reading.writes().writes.get(k), sites.get(k));
            decisions.add(write);
            if (write.refuses()) {
                return decisions;
            }
        }
        return decisions;
    }

    /** {@code COPY <table> [(columns)] FROM ..}: a write (COPY .. TO reads). */
    private boolean isCopyFrom(StatementView statement) {
        int from = statement.from();
        if (!statement.isWord(from, "COPY")) {
            return false;
        }
        for (int i = from + 1; i < statement.to(); i++) {
            if (tokens.depth(i) == tokens.depth(from) && (tokens.isWord(i, "FROM") || tokens.isWord(i, "TO"))) {
                return tokens.isWord(i, "FROM");
            }
        }
        return false;
    }

    private String tableOrFirst() {
        return fencedTable == null ? context.firstConfiguredTable() : fencedTable;
    }

    /**
     * The plan of a text whose statements were all accepted and that is sent as written
     * (checked by the database guard, a read, a pass-through, or writes of epoch-mode tables
     * only); null when fenced writes were spliced.
     */
    private FencePlan planWithoutSplice(int parameters) {
        if (guardChecked || options.rewriteOff() || context.guard() && undiagnosable()) {
            return checkedByTheGuard(parameters);
        }
        if (fencedWrites == 0 && epochWrites == 0) {
            if (namesFencedTable) {
                return FencePlan.read(sql, tableOrFirst(), controlsTransaction);
            }
            return controlsTransaction ? FencePlan.transactionControl(sql) : FencePlan.passThrough(sql);
        }
        if (fencedWrites == 0) {
            return new FencePlan.Fenced(sql, fencedTable, FencePlan.DatabaseText.asWritten(sql, parameters), null,
                    false, true, controlsTransaction, false, false, tokens.holdsSeveralStatements());
        }
        return null;
    }

    /**
     * The plan of a text sent as written because the database guard checks it: a write needs a
     * fence in scope (a procedure call need not: it may write nothing fenced).
     */
    private FencePlan checkedByTheGuard(int parameters) {
        if (options.rewriteOff() || fencedWrites == 0 && epochWrites == 0 && !namesFencedTable) {
            return new FencePlan.PassThrough(sql, controlsTransaction, false, true, tokens.holdsSeveralStatements());
        }
        return new FencePlan.Fenced(sql, tableOrFirst(), FencePlan.DatabaseText.asWritten(sql, parameters), null, false,
                epochWrites > 0, controlsTransaction, false, true, tokens.holdsSeveralStatements());
    }

    /**
     * True when a fenced write's zero rows could not be told apart (CTE writes, several statements,
     * upserts with a WHERE of their own): with the guard, the trigger decides instead, so a newer
     * fence fails the statement as a whole rather than being skipped quietly.
     */
    private boolean undiagnosable() {
        if (fencedWrites == 0) {
            return false;
        }
        if (fencedWrites > 1 || statements > 1 || !onlySite.topLevel()
                || onlySite.with() != null && onlySite.with().writes()) {
            return true;
        }
        return onlySite.kind() == ParsedWrites.Kind.INSERT && onlySite.hasConflictUpdate()
                && onlySite.insert().conflictUpdate().condition().where() != null;
    }

    /**
     * The plan of a text with spliced fenced writes: the spliced text, refused unless the
     * check is proven to reach the database as the plan says.
     */
    private FencePlan splicedPlan(int parameters, int[] parameterOrdinals) {
        int[] parameterOffsets = new int[parameters];
        for (int i = 0, p = 0; i < tokens.size(); i++) {
            if (tokens.kind(i) == SqlTokens.PARAMETER) {
                parameterOffsets[p++] = tokens.start(i);
            }
        }
        Splice.Result spliced = splice.apply(parameterOffsets);
        String unverified = spliceRefusal(spliced, parameterOffsets);
        if (unverified != null) {
            return FencePlan.refused(sql, fencedTable, unverified + "; nothing was sent");
        }
        boolean countIsTheFencedWrite = fencedWrites == 1 && statements == 1 && onlySite.topLevel();
        return new FencePlan.Fenced(sql, fencedTable, FencePlan.DatabaseText.spliced(spliced,
                FenceSlot.forStatement(options.fenceSlot(), tokens)), zeroRowCheck(countIsTheFencedWrite,
                parameterOrdinals), countIsTheFencedWrite, epochWrites > 0, controlsTransaction, false, false,
                tokens.holdsSeveralStatements());
    }

    /**
     * How the spliced text's zero rows are told: by its count and the write's own predicate when
     * the count is its one fenced write's ({@link ZeroRowQueries#of}); else (writes in CTEs,
     * several statements, an upsert with a WHERE of its own) by reading, after it ran, the rows its
     * writes name by key ({@link ZeroRowQueries#afterStatement}). Null when neither can tell.
     */
    private ZeroRowCheck zeroRowCheck(boolean countIsTheFencedWrite, int[] parameterOrdinals) {
        ZeroRowQueries queries = new ZeroRowQueries(sql, tokens, parameterOrdinals, context.facts(),
                context.config().column(), context.dialect());
        if (!countIsTheFencedWrite) {
            return queries.afterStatement(splicedSites, splicedTables, -1);
        }
        if (onlySite.kind() == ParsedWrites.Kind.INSERT && onlySite.hasConflictUpdate()
                && onlySite.insert().conflictUpdate().condition().where() != null && !onlySite.insert().rows().isEmpty()) {
            return queries.afterStatement(splicedSites, splicedTables, onlySite.insert().rows().size());
        }
        return queries.of(onlySite);
    }

    /** Why the spliced text cannot be trusted to carry its fences, or null: the token proof, else a re-read. */
    private String spliceRefusal(Splice.Result spliced, int[] parameterOffsets) {
        String unverified = splice.fusedEdge();
        boolean oneStatement = statements == 1 && !hasSemicolon();
        String blanked = parserText.blankedOrNull();
        if (unverified == null && oneStatement && provenByTokens()) {
            options.proofsFromParse().increment();
            if (options.crossCheck()) {
                String reread = SpliceVerification.refusal(sql, blanked == null ? spliced
                        : splice.apply(parameterOffsets, blanked), false, context.dialect(), context.budget());
                if (reread != null) {
                    throw new AssertionError("the token proof accepted a splice the re-read refuses (" + reread + "): " + sql);
                }
            }
        } else if (unverified == null) {
            options.rereads().increment();
            unverified = SpliceVerification.refusal(sql, blanked == null ? spliced
                    : splice.apply(parameterOffsets, blanked), !oneStatement, context.dialect(), context.budget());
        }
        return unverified;
    }

    /**
     * Whether {@link SpliceTokenProof} holds for the splice: from the spans the recognizer read
     * (those of JSqlParser's tokens), else from the tokens of JSqlParser's parse of the whole text.
     */
    private boolean provenByTokens() {
        if (recognizedText != null) {
            return SpliceTokenProof.holds(sql, recognizedText.spans(), splice);
        }
        return wholeTextParse != null && SpliceTokenProof.holds(wholeTextParse, splice);
    }

    private boolean hasSemicolon() {
        for (int i = 0; i < tokens.size(); i++) {
            if (tokens.kind(i) == SqlTokens.SEMICOLON) {
                return true;
            }
        }
        return false;
    }
}
