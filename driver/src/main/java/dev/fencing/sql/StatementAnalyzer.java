package dev.fencing.sql;

import dev.fencing.FencingConfig;
import dev.fencing.guard.GuardTexts;
import dev.fencing.config.TableName;
import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.CCJSqlParserConstants;
import net.sf.jsqlparser.parser.StringProvider;
import net.sf.jsqlparser.parser.Token;
import net.sf.jsqlparser.statement.Statement;

import java.util.List;
import java.util.Locale;

/**
 * Turns SQL text into {@link FencePlan}s for one configuration and dialect. Thread-safe.
 *
 * <p>Text that names no fenced table (the {@link FencedNameFilter pre-filter} decides without
 * parsing) and starts no procedure call passes without analysis. Everything else is analysed
 * once per text and cached: the text is lexed, split into statements, each statement that names
 * a fenced table is parsed by JSqlParser and its writes located in the text by
 * {@link WriteSites}; the two readings must agree on every write and its target, or the
 * statement is refused. Fenced writes get the check spliced into the original text.
 */
public final class StatementAnalyzer {

    private static final System.Logger LOG = System.getLogger(StatementAnalyzer.class.getName());

    private static final String[] DYNAMIC_HEADS = {"CALL", "EXEC", "EXECUTE", "DO", "PREPARE", "RUNSCRIPT"};
    /**
     * The statement kinds that cannot end the transaction they run in. With epoch tables, any
     * other text (transaction control, DDL that MariaDB and H2 commit implicitly, {@code SET
     * autocommit}, {@code LOCK TABLES}, procedure calls ..) is reported as ending it, so that the
     * connection checks the guard again instead of trusting a check the database has let go of.
     */
    private static final String[] CANNOT_END_TRANSACTION = {"SELECT", "INSERT", "UPDATE", "DELETE", "MERGE", "WITH",
            "VALUES", "TABLE", "SHOW", "EXPLAIN"};

    private final FencingConfig config;
    private final Dialect dialect;
    private final FencedNameFilter filter;
    private final PlanCache cache;
    private final SqlParser parser;
    private final boolean epochTables;
    /** fencing.database-guard=required: forms the triggers check are sent as written. */
    private final boolean guard;

    /**
     * Test-only switch (no configuration, property or environment reaches it; set by a test class in
     * this package): every write is sent as written, with no rewrite and no front-door fence check,
     * so that a test can show the database guard's triggers alone hold.
     */
    static boolean rewriteOffForTests;
    /** How many texts were analysed (cache misses): for the plan cache's hit ratio in events. */
    private final java.util.concurrent.atomic.AtomicLong analyses = new java.util.concurrent.atomic.AtomicLong();

    public StatementAnalyzer(FencingConfig config, Dialect dialect) {
        this.config = config;
        this.dialect = dialect;
        this.filter = new FencedNameFilter(config.tables());
        this.cache = new PlanCache(config.planCacheSize());
        this.parser = new SqlParser(dialect, config.parseTimeoutMillis());
        this.epochTables = config.hasEpochTables();
        this.guard = config.guardRequired();
    }

    public FencingConfig config() {
        return config;
    }

    public Dialect dialect() {
        return dialect;
    }

    /** The plan of a statement text; never throws for bad SQL (refusals are plans). */
    public FencePlan plan(String sql) {
        if (guard && sql != null && GuardTexts.touchesGuard(sql, dialect)) {
            return FencePlan.refused(sql, firstConfiguredTable(), "the text names the database guard's session"
                    + " variables, triggers or session_replication_role; the driver keeps the session fence itself"
                    + " (migrations: DatabaseGuard.migrate); nothing was sent");
        }
        if (rewriteOffForTests && sql != null) {
            return analyze(sql);
        }
        if (sql == null || (!filter.mayNameFencedTable(sql) && !mayRunDynamicSql(sql)
                && !(epochTables && !startsWithAny(sql, CANNOT_END_TRANSACTION)))) {
            return FencePlan.passThrough(sql);
        }
        return cache.get(sql, this::analyze);
    }

    /**
     * The plan of a text given to {@code Connection.prepareCall}. The same rules apply: a
     * procedure call follows {@link FencingConfig#procedureCalls()}, a plain write is fenced.
     */
    public FencePlan planCall(String sql) {
        return plan(sql);
    }

    /** How many analysed texts are cached now. */
    public int cachedPlans() {
        return cache.size();
    }

    /**
     * Cheap test for a text that needs a closer look although it names no fenced table: it may
     * start a procedure call or dynamic SQL, or holds several statements. Only a text that starts
     * with a plain ASCII word other than a procedure keyword, and has no comment, semicolon or
     * JDBC escape anywhere, is cleared here; everything else is lexed with the dialect's rules.
     */
    private static boolean mayRunDynamicSql(String sql) {
        int n = sql.length();
        int i = 0;
        while (i < n && (sql.charAt(i) == ' ' || sql.charAt(i) == '\t' || sql.charAt(i) == '\n')) {
            i++;
        }
        if (i == n) {
            return false;
        }
        char first = sql.charAt(i);
        if (!((first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z') || first == '(')) {
            return true;
        }
        for (int j = i; j < n; j++) {
            char c = sql.charAt(j);
            if (c == ';' || c == '{' || c == '#' || (c == '-' && j + 1 < n && sql.charAt(j + 1) == '-')
                    || (c == '/' && j + 1 < n && (sql.charAt(j + 1) == '*' || sql.charAt(j + 1) == '/'))) {
                return true;
            }
        }
        return startsWithAny(sql, DYNAMIC_HEADS);
    }

    /** True when the first word (after ASCII white space) is one of {@code words}. */
    private static boolean startsWithAny(String sql, String[] words) {
        int n = sql.length();
        int i = 0;
        while (i < n && (sql.charAt(i) == ' ' || sql.charAt(i) == '\t' || sql.charAt(i) == '\n')) {
            i++;
        }
        for (String word : words) {
            int end = i + word.length();
            if (sql.regionMatches(true, i, word, 0, word.length())
                    && (end == n || !Character.isLetterOrDigit(sql.charAt(end)) && sql.charAt(end) != '_')) {
                return true;
            }
        }
        return false;
    }

    /** How many texts this analyzer has analysed (each a plan-cache miss) so far. */
    public long analyses() {
        return analyses.get();
    }

    private FencePlan analyze(String sql) {
        analyses.incrementAndGet();
        try {
            return new Analysis(sql).run();
        } catch (RuntimeException | StackOverflowError e) {
            LOG.log(System.Logger.Level.ERROR, "fencing-jdbc failed to analyse a statement; it is refused", e);
            return FencePlan.refused(sql, firstConfiguredTable(), "the statement could not be analysed ("
                    + e + "); it is refused so that nothing unchecked reaches a fenced table; nothing was sent");
        }
    }

    /** The analysis of one text; not shared. */
    private final class Analysis {
        final String sql;
        SqlTokens tokens;
        int[] parameterOrdinals;
        String fencedTable;
        boolean namesFencedTable;
        int fencedWrites;
        int statements;
        WriteSites.Site onlySite;
        Splice splice;
        int epochWrites;
        boolean controlsTransaction;
        /** A form the front door lets through only because the database guard checks it. */
        boolean guardChecked;

        private boolean isAnyWord(int token, String[] words) {
            for (String word : words) {
                if (tokens.isWord(token, word)) {
                    return true;
                }
            }
            return false;
        }

        Analysis(String sql) {
            this.sql = sql;
        }

        FencePlan run() {
            try {
                tokens = SqlTokens.lex(sql, dialect);
            } catch (SqlTokens.UnreadableSqlException e) {
                return FencePlan.refused(sql, firstConfiguredTable(),
                        "the SQL cannot be read (" + e.getMessage() + "), and it may write a fenced table; nothing was sent");
            }
            parameterOrdinals = new int[tokens.size()];
            int parameters = 0;
            for (int i = 0; i < tokens.size(); i++) {
                if (tokens.kind(i) == SqlTokens.PARAMETER) {
                    parameterOrdinals[i] = ++parameters;
                }
            }
            splice = new Splice(sql);
            int start = 0;
            int rawStart = 0;
            for (int i = 0; i <= tokens.size(); i++) {
                if (i == tokens.size() || (tokens.kind(i) == SqlTokens.SEMICOLON && tokens.depth(i) == 0)) {
                    int rawEnd = i == tokens.size() ? sql.length() : tokens.start(i);
                    String refusal = null;
                    if (i > start) {
                        statements++;
                        refusal = statement(start, i, rawStart, rawEnd);
                    } else if (filter.mayNameFencedTable(sql.substring(rawStart, rawEnd))) {
                        refusal = "a fenced table is named where the analysis sees only a comment";
                    }
                    if (refusal != null) {
                        return FencePlan.refused(sql, fencedTable == null ? firstConfiguredTable() : fencedTable,
                                refusal + "; nothing was sent");
                    }
                    rawStart = rawEnd + 1;
                    start = i + 1;
                }
            }
            if (guardChecked || rewriteOffForTests || guard && undiagnosable()) {
                return checkedByTheGuard(parameters);
            }
            if (fencedWrites == 0 && epochWrites == 0) {
                if (namesFencedTable) {
                    return FencePlan.read(sql, fencedTable == null ? firstConfiguredTable() : fencedTable, controlsTransaction);
                }
                return controlsTransaction ? FencePlan.transactionControl(sql) : FencePlan.passThrough(sql);
            }
            if (fencedWrites == 0) {
                int[] unchanged = new int[parameters];
                for (int p = 0; p < parameters; p++) {
                    unchanged[p] = p + 1;
                }
                return FencePlan.fenced(sql, fencedTable, new String[] {sql}, unchanged, new int[0], null, false, true,
                        controlsTransaction);
            }
            int[] parameterOffsets = new int[parameters];
            for (int i = 0, p = 0; i < tokens.size(); i++) {
                if (tokens.kind(i) == SqlTokens.PARAMETER) {
                    parameterOffsets[p++] = tokens.start(i);
                }
            }
            Splice.Result spliced = splice.apply(parameterOffsets);
            String unverified = verifyWithParserTokens(spliced);
            if (unverified != null) {
                return FencePlan.refused(sql, fencedTable, unverified + "; nothing was sent");
            }
            boolean countIsTheFencedWrite = fencedWrites == 1 && statements == 1 && onlySite.topLevel;
            ZeroRowCheck check = countIsTheFencedWrite ? zeroRowCheck(onlySite) : null;
            return FencePlan.fenced(sql, fencedTable, spliced.pieces(), spliced.databaseIndexes(),
                    spliced.fenceIndexes(), check, countIsTheFencedWrite, epochWrites > 0, controlsTransaction);
        }

        /**
         * Analyses the statement in tokens {@code [from, to)}, which the text {@code [rawFrom, rawTo)}
         * holds with the comments around it; returns why it is refused, or null.
         */
        String statement(int from, int to, int rawFrom, int rawTo) {
            String raw = sql.substring(rawFrom, rawTo);
            if (epochTables && !(tokens.kind(from) == SqlTokens.OPEN || isAnyWord(from, CANNOT_END_TRANSACTION))) {
                controlsTransaction = true;
            }
            // Decided on the raw text, comments and strings included: where this lexer and the
            // database's disagree about what is a comment, the statement is parsed, not passed.
            boolean names = filter.mayNameFencedTable(raw);
            for (int i = from; i < to; i++) {
                if (tokens.kind(i) == SqlTokens.EXECUTABLE_COMMENT
                        && (names || config.procedureCalls() == FencingConfig.ProcedureCalls.REJECT)) {
                    return "an executable comment (/*! .. */) in a statement that mentions a fenced table (or with "
                            + FencingConfig.PROCEDURE_CALLS + "=reject) cannot be analysed";
                }
            }
            if (isDynamic(from)) {
                if (guard) {
                    // runs under the caller's fence; the triggers check whatever it writes
                    guardChecked = true;
                    return null;
                }
                if (names) {
                    return "a procedure call or dynamic SQL that mentions a fenced table (even inside a string) cannot be analysed";
                }
                if (config.procedureCalls() == FencingConfig.ProcedureCalls.REJECT) {
                    return "procedure calls and dynamic SQL (CALL, EXECUTE, DO, PREPARE, {call ..}) may write fenced "
                            + "tables unseen, and " + FencingConfig.PROCEDURE_CALLS + "=reject";
                }
                LOG.log(System.Logger.Level.WARNING, "fencing-jdbc cannot see what this procedure call or dynamic SQL "
                        + "writes; it is sent unchecked ({0}=allow): {1}", FencingConfig.PROCEDURE_CALLS, abbreviate(sql));
                return null;
            }
            if (!names) {
                return null;
            }
            namesFencedTable = true;
            if (guard && isCopyFrom(from, to)) {
                // COPY FROM fires row triggers (PostgreSQL)
                guardChecked = true;
                fencedTable = fencedTable == null ? firstConfiguredTable() : fencedTable;
                return null;
            }
            for (int i = from; i < to; i++) {
                if (tokens.kind(i) == SqlTokens.JDBC_ESCAPE_OPEN) {
                    return "JDBC escape syntax ({fn ..}, {d ..}, {oj ..}) in a statement on a fenced table cannot be "
                            + "analysed; write the native SQL instead";
                }
                if (tokens.kind(i) == SqlTokens.STRING && tokens.hasBackslash(i) && dialect != Dialect.H2) {
                    return "a string literal with a backslash in a statement on a fenced table: where it ends depends "
                            + "on session settings (standard_conforming_strings, NO_BACKSLASH_ESCAPES); bind the value "
                            + "as a parameter instead";
                }
            }
            String text = raw;
            Statement parsed;
            try {
                parsed = parser.parse(text);
            } catch (SqlParser.UnparseableSqlException e) {
                if (tokens.isWord(from, "SELECT") && WriteSites.countStatementHeads(tokens, from, to) == 0
                        && !mentionsWriteKeyword(raw)) {
                    return null;
                }
                return "the SQL parser cannot read a statement that names a fenced table (" + e.getMessage()
                        + "); rewrite it in a form the parser reads, or run it through an unfenced connection";
            }
            ParsedWrites writes = ParsedWrites.of(parsed, config.column());
            if (!writes.understood) {
                String kind = parsed.getClass().getSimpleName().replace("Statement", "").toUpperCase(Locale.ROOT);
                return kind + " statements that name a fenced table are refused (schema changes, EXPLAIN, LOCK and "
                        + "the like); run them through an unfenced connection";
            }
            for (TableName into : writes.selectIntoTargets) {
                TableName fenced = config.fencedTableFor(into);
                if (fenced != null) {
                    fencedTable = fenced.toString();
                    return "SELECT .. INTO fenced table " + fenced + " cannot carry the check";
                }
            }
            List<WriteSites.Site> sites = WriteSites.find(tokens, dialect, from, to);
            int heads = WriteSites.countStatementHeads(tokens, from, to);
            if (sites.size() != writes.writes.size() || heads != sites.size()) {
                return "the statement's writes could not be located with certainty (parser found "
                        + writes.writes.size() + ", text shows " + heads + ")";
            }
            for (int k = 0; k < sites.size(); k++) {
                ParsedWrites.ParsedWrite write = writes.writes.get(k);
                WriteSites.Site site = sites.get(k);
                TableName fenced = config.fencedTableFor(write.target());
                // MERGE, REPLACE and TRUNCATE are never spliced, so only their kind must agree
                boolean agree = site.kind == write.kind()
                        && (site.kind == ParsedWrites.Kind.OTHER || write.target().equals(site.target(tokens)));
                if ((write.multiTable() || site.multiTable) && guard) {
                    // MariaDB fires the row triggers of each table it writes
                    guardChecked = true;
                    continue;
                }
                if (write.multiTable() || site.multiTable) {
                    // MariaDB writes any of the tables it names, whichever comes first
                    String refusal = multiTableWrite(write, raw);
                    if (refusal != null) {
                        return refusal;
                    }
                    continue;
                }
                if (fenced == null && agree) {
                    continue;
                }
                if (fenced != null) {
                    fencedTable = fenced.toString();
                }
                if (!agree) {
                    if (site.unsupported != null && fenced != null) {
                        return write.description() + " on fenced table " + fencedTable + " is refused: " + site.unsupported;
                    }
                    return "the statement's writes could not be located with certainty (" + write.description()
                            + " of " + write.target() + ")";
                }
                if (config.modeOf(fenced) == FencingConfig.Mode.EPOCH) {
                    String refusal = epochWrite(write);
                    if (refusal != null) {
                        return refusal;
                    }
                    epochWrites++;
                    continue;
                }
                if (guard && (write.mysqlUpsert() || write.kind() == ParsedWrites.Kind.OTHER
                        && !write.description().equals("TRUNCATE")) && !write.setsColumn()) {
                    // MERGE, REPLACE and ON DUPLICATE KEY UPDATE fire the row triggers of what they change
                    guardChecked = true;
                    continue;
                }
                if (write.kind() == ParsedWrites.Kind.OTHER) {
                    return write.description() + " on fenced table " + fencedTable + " cannot carry the fence check"
                            + (write.description().equals("MERGE") ? "; write it as INSERT .. ON CONFLICT or UPDATE" : "");
                }
                if (write.mysqlUpsert()) {
                    return "INSERT .. ON DUPLICATE KEY UPDATE on fenced table " + fencedTable
                            + " cannot carry the check; use a fenced UPDATE and INSERT";
                }
                if (write.setsColumn()) {
                    return "the statement sets the fence column " + config.column() + " of " + fencedTable
                            + " itself; fencing-jdbc owns that column, remove it from the statement";
                }
                if (site.unsupported != null) {
                    return write.description() + " on fenced table " + fencedTable + " is refused: " + site.unsupported;
                }
                rewrite(site);
                fencedWrites++;
                onlySite = site;
            }
            return null;
        }

        /**
         * A write to an epoch-mode table needs no rewrite: the guard row, checked in the same
         * transaction, protects INSERT, UPDATE, DELETE, MERGE and upserts alike. Only what bypasses
         * row-level writing altogether is refused.
         */
        private String epochWrite(ParsedWrites.ParsedWrite write) {
            if (write.description().equals("TRUNCATE")) {
                return "TRUNCATE on fenced table " + fencedTable + " is refused (it is not a row-level write; delete the rows "
                        + "instead)";
            }
            return null;
        }

        /**
         * A write of several tables (MariaDB) may change any table it names, not only the first:
         * refused when it names a row-mode fenced table, guarded when it names only epoch-mode ones.
         */
        private String multiTableWrite(ParsedWrites.ParsedWrite write, String raw) {
            boolean epochOnly = true;
            TableName named = null;
            for (TableName table : config.tables()) {
                if (new FencedNameFilter(java.util.Set.of(table)).mayNameFencedTable(raw)) {
                    if (named == null || config.modeOf(table) == FencingConfig.Mode.ROW) {
                        named = table;
                    }
                    epochOnly &= config.modeOf(table) == FencingConfig.Mode.EPOCH;
                }
            }
            if (named == null) {
                return null;
            }
            fencedTable = named.toString();
            if (!epochOnly) {
                return "a " + write.description() + " of several tables that names fenced table " + fencedTable
                        + " cannot carry the check (it may write any table it names); write each table in its own statement";
            }
            epochWrites++;
            return null;
        }

        /**
         * The plan of a text sent as written because the database guard checks it: a write needs a
         * fence in scope (a procedure call need not: it may write nothing fenced).
         */
        private FencePlan checkedByTheGuard(int parameters) {
            if (rewriteOffForTests || fencedWrites == 0 && epochWrites == 0 && !namesFencedTable) {
                return (controlsTransaction ? FencePlan.transactionControl(sql) : FencePlan.passThrough(sql)).markCheckedByGuard();
            }
            int[] unchanged = new int[parameters];
            for (int p = 0; p < parameters; p++) {
                unchanged[p] = p + 1;
            }
            return FencePlan.fenced(sql, fencedTable == null ? firstConfiguredTable() : fencedTable, new String[] {sql},
                    unchanged, new int[0], null, false, epochWrites > 0, controlsTransaction).markCheckedByGuard();
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
            if (fencedWrites > 1 || statements > 1 || !onlySite.topLevel || onlySite.withWrites) {
                return true;
            }
            return onlySite.kind == ParsedWrites.Kind.INSERT && onlySite.hasConflictUpdate()
                    && onlySite.conflictWhereKeyword >= 0;
        }

        /** {@code COPY <table> [(columns)] FROM ..}: a write (COPY .. TO reads). */
        private boolean isCopyFrom(int from, int to) {
            if (!tokens.isWord(from, "COPY")) {
                return false;
            }
            for (int i = from + 1; i < to; i++) {
                if (tokens.depth(i) == tokens.depth(from) && (tokens.isWord(i, "FROM") || tokens.isWord(i, "TO"))) {
                    return tokens.isWord(i, "FROM");
                }
            }
            return false;
        }

        private boolean isDynamic(int head) {
            if (tokens.kind(head) == SqlTokens.JDBC_ESCAPE_OPEN) {
                return true;
            }
            for (String word : DYNAMIC_HEADS) {
                if (tokens.isWord(head, word)) {
                    return true;
                }
            }
            return false;
        }

        /**
         * Checks the spliced text with JSqlParser's own tokenizer, a second lexer: every fence must
         * stand as a token of its own (not inside what that lexer takes for a comment or a string),
         * and the spliced text must still parse.
         */
        private String verifyWithParserTokens(Splice.Result spliced) {
            String marker = "9223372036854775" + (sql.contains("9223372036854775806") ? "795" : "806");
            String text = String.join(marker, spliced.pieces());
            CCJSqlParser parser = parser(text);
            int seen = 0;
            try {
                for (Token token = parser.getNextToken(); token.kind != CCJSqlParserConstants.EOF; token = parser.getNextToken()) {
                    if (marker.equals(token.image)) {
                        seen++;
                    }
                }
            } catch (RuntimeException | Error e) {
                return "the rewritten statement cannot be read back (" + e.getMessage() + ")";
            }
            if (seen != spliced.fenceIndexes().length) {
                return "the fence check would not reach the database intact (the text's comments or quotes are "
                        + "ambiguous)";
            }
            try {
                parser(text).Statements();
            } catch (Exception | Error e) {
                return "the rewritten statement does not parse (" + firstLine(e.getMessage()) + ")";
            }
            return null;
        }

        private CCJSqlParser parser(String text) {
            return SqlParser.configure(new CCJSqlParser(new StringProvider(text)), dialect);
        }

        private void rewrite(WriteSites.Site site) {
            String column = config.column();
            String qualifier = site.alias >= 0 ? tokens.text(site.alias) : tokens.text(site.targetLast);
            String check = "COALESCE(" + qualifier + "." + column + ", 0) " + config.comparison().operator() + " " + Splice.FENCE;
            String assignment = ", " + column + " = " + Splice.FENCE;
            switch (site.kind) {
                case UPDATE -> {
                    splice.insert(tokens.end(site.assignmentsLast), assignment);
                    where(site.whereKeyword, site.whereLast, site.bodyLast, check);
                }
                case DELETE -> where(site.whereKeyword, site.whereLast, site.bodyLast, check);
                case INSERT -> {
                    if (site.columnsClose >= 0) {
                        splice.insert(tokens.start(site.columnsClose), ", " + column);
                    }
                    for (int close : site.rowCloses) {
                        splice.insert(tokens.start(close), ", " + Splice.FENCE);
                    }
                    if (site.defaultValuesFirst >= 0) {
                        splice.replace(tokens.start(site.defaultValuesFirst), tokens.end(site.defaultValuesLast),
                                "(" + column + ") VALUES (" + Splice.FENCE + ")");
                    }
                    String fenceValue = "CAST(" + Splice.FENCE + (dialect == Dialect.MARIADB ? " AS SIGNED)" : " AS BIGINT)");
                    if (site.selectListLast >= 0) {
                        splice.insert(tokens.end(site.selectListLast), ", " + fenceValue);
                    } else if (site.queryFirst >= 0) {
                        splice.insert(tokens.start(site.queryFirst), "SELECT fencing_src.*, " + fenceValue + " FROM (");
                        splice.insert(tokens.end(site.queryLast), ") fencing_src");
                    }
                    if (site.hasConflictUpdate()) {
                        splice.insert(tokens.end(site.conflictAssignmentsLast), assignment);
                        where(site.conflictWhereKeyword, site.conflictWhereLast, site.conflictBodyLast, check);
                    }
                }
                default -> throw new IllegalStateException("not a fenceable write: " + site.kind);
            }
        }

        private void where(int keyword, int last, int bodyLast, String check) {
            if (keyword >= 0) {
                splice.insert(tokens.start(keyword + 1), "(");
                splice.insert(tokens.end(last), ") AND " + check);
            } else {
                splice.insert(tokens.end(bodyLast), " WHERE " + check);
            }
        }

        private ZeroRowCheck zeroRowCheck(WriteSites.Site site) {
            if (site.kind == ParsedWrites.Kind.INSERT) {
                if (site.hasConflictUpdate() && site.conflictWhereKeyword < 0 && !site.rowCloses.isEmpty()) {
                    return ZeroRowCheck.expectedRows(site.rowCloses.size());
                }
                return null;
            }
            if (site.withWrites) {
                return null; // the diagnosis would run the CTE's writes again
            }
            String qualifier = site.alias >= 0 ? tokens.text(site.alias) : tokens.text(site.targetLast);
            StringBuilder query = new StringBuilder();
            int[] parameters = new int[0];
            if (site.withFirst >= 0) {
                query.append(sql, tokens.start(site.withFirst), tokens.end(site.withLast)).append(' ');
                parameters = append(parameters, site.withFirst, site.withLast);
            }
            query.append("SELECT MAX(COALESCE(").append(qualifier).append('.')
                    .append(config.column()).append(", 0)) FROM ");
            boolean usingNamesTarget = dialect == Dialect.MARIADB && site.kind == ParsedWrites.Kind.DELETE
                    && site.fromKeyword >= 0;
            if (usingNamesTarget) {
                // MariaDB's DELETE .. USING lists the target among its tables: naming it again is an error
                query.append(sql, tokens.start(site.fromKeyword + 1), tokens.end(site.fromLast));
                parameters = append(parameters, site.fromKeyword + 1, site.fromLast);
                if (site.whereKeyword >= 0) {
                    query.append(" WHERE ").append(sql, tokens.start(site.whereKeyword + 1), tokens.end(site.whereLast));
                    parameters = append(parameters, site.whereKeyword + 1, site.whereLast);
                }
                return ZeroRowCheck.newestFenceQuery(query.toString(), parameters);
            }
            int targetEnd = site.alias >= 0 ? site.alias : site.targetLast;
            query.append(sql, tokens.start(site.targetFirst), tokens.end(targetEnd));
            if (site.fromKeyword >= 0) {
                query.append(", ").append(sql, tokens.start(site.fromKeyword + 1), tokens.end(site.fromLast));
                parameters = append(parameters, site.fromKeyword + 1, site.fromLast);
            }
            if (site.whereKeyword >= 0) {
                query.append(" WHERE ").append(sql, tokens.start(site.whereKeyword + 1), tokens.end(site.whereLast));
                parameters = append(parameters, site.whereKeyword + 1, site.whereLast);
            }
            return ZeroRowCheck.newestFenceQuery(query.toString(), parameters);
        }

        private int[] append(int[] parameters, int first, int last) {
            int count = 0;
            for (int i = first; i <= last; i++) {
                if (parameterOrdinals[i] > 0) {
                    count++;
                }
            }
            int[] all = java.util.Arrays.copyOf(parameters, parameters.length + count);
            int next = parameters.length;
            for (int i = first; i <= last; i++) {
                if (parameterOrdinals[i] > 0) {
                    all[next++] = parameterOrdinals[i];
                }
            }
            return all;
        }
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

    private static String firstLine(String message) {
        if (message == null) {
            return "no message";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    private String firstConfiguredTable() {
        return config.tables().iterator().next().toString();
    }

    private static String abbreviate(String sql) {
        return sql.length() <= 200 ? sql : sql.substring(0, 200) + "...";
    }
}
