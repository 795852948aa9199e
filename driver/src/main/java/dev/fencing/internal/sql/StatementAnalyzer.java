package dev.fencing.internal.sql;

import dev.fencing.internal.config.FencedTableSet;
import dev.fencing.FencingConfig;
import dev.fencing.internal.config.TableName;
import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.CCJSqlParserConstants;
import net.sf.jsqlparser.parser.StringProvider;
import net.sf.jsqlparser.parser.Token;
import net.sf.jsqlparser.statement.Statement;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Set;

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

    private static final String[] ROUTINE_KINDS = {"FUNCTION", "PROCEDURE", "TRIGGER", "RULE", "VIEW", "EVENT",
            "ALIAS", "PACKAGE", "AGGREGATE"};
    /** Words that start a MariaDB compound statement (outside a stored program). */
    private static final String[] COMPOUND_HEADS = {"IF", "CASE", "LOOP", "WHILE", "REPEAT", "FOR", "DECLARE"};
    private static final String[] BEGIN = {"BEGIN"};
    /** Statements after which the metadata's facts (keys, cascades) are read again. */
    private static final String[] SCHEMA_HEADS = {"CREATE", "ALTER", "DROP", "RENAME"};
    private static final String[] TEMPORARY = {"TEMP", "TEMPORARY"};
    private static final String[] TRANSACTION_CONTROL = {"ROLLBACK", "COMMIT", "END", "ABORT", "SAVEPOINT", "RELEASE"};
    private static final String[] DYNAMIC_HEADS = {"CALL", "EXEC", "EXECUTE", "DO", "PREPARE", "RUNSCRIPT"};
    /**
     * PostgreSQL's server-side functions that change or remove an existing large object, and the
     * catalog tables that hold large objects.
     */
    private static final Set<String> LARGE_OBJECT_WRITES = Set.of("lo_put", "lowrite", "lo_truncate", "lo_truncate64",
            "lo_unlink", "pg_largeobject", "pg_largeobject_metadata");
    /**
     * The statement kinds that cannot end the transaction they run in. With epoch tables, any
     * other text (transaction control, DDL that MariaDB and H2 commit implicitly, {@code SET
     * autocommit}, {@code LOCK TABLES}, procedure calls ..) is reported as ending it, so that the
     * connection checks the guard again instead of trusting a check the database has let go of.
     */
    private static final String[] CANNOT_END_TRANSACTION = {"SELECT", "INSERT", "UPDATE", "DELETE", "MERGE", "WITH",
            "VALUES", "TABLE", "SHOW", "EXPLAIN"};

    private final FencingConfig config;
    private final FencedTableSet fencedTables;
    private final Dialect dialect;
    private final FencedNameFilter filter;
    private final PlanCache cache;
    /** Plans by shape: texts that differ only in their literals share one analysis. */
    private final ShapeCache shapes;
    private final SqlParser parser;
    private final boolean epochTables;
    /** fencing.database-guard=required: forms the triggers check are sent as written. */
    private final boolean guard;
    /** How the fence placeholders of spliced writes are written (the PostgreSQL guard's carry the fence). */
    private final FenceSlot fenceSlot;

    /** The rewrite (off only in tests of the database guard) and the splice proof's cross-check (tests). */
    private final AnalyzerOptions options;
    /** How many texts were analysed (cache misses): for the plan cache's hit ratio in events. */
    private final java.util.concurrent.atomic.AtomicLong analyses = new java.util.concurrent.atomic.AtomicLong();
    /**
     * Spliced single statements whose fences {@link SpliceTokenProof} proved from the parse's
     * tokens, and spliced texts that JSqlParser's lexer read again (the proof did not hold, or the
     * text has a {@code ;}): how often the cheap proof serves, for the tests and the benchmarks.
     */
    private final java.util.concurrent.atomic.LongAdder spliceProofsFromParse = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder spliceRereads = new java.util.concurrent.atomic.LongAdder();
    /** What the metadata says about the fenced tables; {@link SchemaFacts#NONE} until learned. */
    private volatile SchemaFacts facts = SchemaFacts.NONE;
    /** The pre-filter for tables whose writes cascade into fenced ones; null when there are none. */
    private volatile FencedNameFilter cascadeParentFilter;
    private volatile boolean schemaKnown;
    /** The connection that planned the last schema change: its own reading of the metadata sees it. */
    private volatile java.lang.ref.WeakReference<Connection> schemaChangedOn;
    private volatile long lastLearnedNanos;

    public StatementAnalyzer(FencingConfig config, Dialect dialect) {
        this(config, dialect, AnalyzerOptions.CHECKED);
    }

    /** An analyzer with {@code options} other than {@link AnalyzerOptions#CHECKED}: for tests only. */
    public StatementAnalyzer(FencingConfig config, Dialect dialect, AnalyzerOptions options) {
        this.options = java.util.Objects.requireNonNull(options, "options");
        this.config = config;
        this.fencedTables = FencedTableSet.of(config);
        this.dialect = dialect;
        this.filter = new FencedNameFilter(fencedTables.names());
        this.cache = new PlanCache(config.planCacheSize());
        this.shapes = new ShapeCache(config.planCacheSize());
        this.parser = new SqlParser(dialect, config.parseTimeoutMillis());
        this.epochTables = config.hasEpochTables();
        this.guard = config.guardRequired();
        this.fenceSlot = FenceSlot.of(dialect, guard);
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
        if (!options.rewrite() && sql != null) {
            return analyze(sql);
        }
        if (sql == null) {
            return FencePlan.passThrough(null);
        }
        // Only texts the checks below sent to the analysis are ever cached (and the cache is
        // cleared whenever the schema facts they read change), so a hit answers them as they would.
        FencePlan cached = cache.cached(sql);
        if (cached != null) {
            return cached;
        }
        int head = headMask(sql);
        if (!mentionsWatchedTable(sql) && !mayRunDynamicSql(sql, head) && (head & HEAD_TRUNCATE) == 0
                && !(epochTables && (head & HEAD_CANNOT_END_TRANSACTION) == 0)
                && !(dialect == Dialect.POSTGRESQL && mayWriteLargeObject(sql))) {
            return (head & HEAD_SCHEMA) != 0 && !isTemporaryTableChange(sql)
                    ? FencePlan.passThrough(sql).withSchemaChange() : FencePlan.passThrough(sql);
        }
        return cache.get(sql, this::analyze);
    }

    /**
     * The plan of a text about to run on {@code connection}. The first plan, and the first after a
     * schema change, reads the fenced tables' keys and foreign-key cascades from the metadata of
     * the connection (transaction control excepted, so that a failed transaction can still end).
     *
     * @throws SQLException when the metadata cannot be read: no plan is made without it
     */
    public FencePlan plan(String sql, Connection connection) throws SQLException {
        learnSchemaIfChanged(sql, connection);
        FencePlan plan = plan(sql);
        if (plan.changesSchema()) {
            schemaChangedOn = new java.lang.ref.WeakReference<>(connection);
            schemaKnown = false;
        }
        return plan;
    }

    private void learnSchemaIfChanged(String sql, Connection connection) throws SQLException {
        if (schemaKnown || sql == null || startsWithAny(sql, TRANSACTION_CONTROL)) {
            return;
        }
        java.lang.ref.WeakReference<Connection> changedOn = schemaChangedOn;
        boolean ownChange = changedOn == null || changedOn.get() == connection || changedOn.get() == null;
        if (!ownChange && System.nanoTime() - lastLearnedNanos < 1_000_000_000L) {
            return; // another connection's schema change: read again at most once a second until it is seen
        }
        learnSchema(connection, ownChange);
    }

    /**
     * Reads the fenced tables' keys and foreign-key cascades through {@code connection}'s metadata,
     * and drops every cached plan when they changed.
     */
    public synchronized void learnSchema(Connection connection) throws SQLException {
        learnSchema(connection, true);
    }

    private synchronized void learnSchema(Connection connection, boolean settles) throws SQLException {
        SchemaFacts learned = SchemaFacts.learn(connection, config);
        lastLearnedNanos = System.nanoTime();
        if (!learned.equals(facts)) {
            Set<TableName> parents = new java.util.HashSet<>();
            for (String name : learned.cascadeParentNames()) {
                parents.add(TableName.of(null, name));
            }
            cascadeParentFilter = parents.isEmpty() ? null : new FencedNameFilter(parents);
            facts = learned;
            shapes.clear();
            cache.clear();
        }
        if (settles) {
            schemaChangedOn = null;
            schemaKnown = true;
        }
    }

    /** What the metadata says about the fenced tables (none until learned). */
    SchemaFacts facts() {
        return facts;
    }

    /** True when the text may name a fenced table or a table whose writes cascade into one. */
    private boolean mentionsWatchedTable(String sql) {
        FencedNameFilter parents = cascadeParentFilter;
        return filter.mayNameFencedTable(sql) || (parents != null && parents.mayNameFencedTable(sql));
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
    private static boolean mayRunDynamicSql(String sql, int head) {
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
                    || (c == '/' && j + 1 < n && (sql.charAt(j + 1) == '*' || sql.charAt(j + 1) == '/'))
                    // SQL-level EXECUTE hides in wrappers (EXPLAIN ANALYZE EXECUTE, CREATE TABLE .. AS EXECUTE)
                    || ((c | 0x20) == 'e' && j + 6 < n && (sql.charAt(j + 1) | 0x20) == 'x'
                    && sql.regionMatches(true, j, "execute", 0, 7))) {
                return true;
            }
        }
        return (head & HEAD_DYNAMIC) != 0;
    }

    private static final int HEAD_DYNAMIC = 1;
    private static final int HEAD_TRUNCATE = 2;
    private static final int HEAD_SCHEMA = 4;
    private static final int HEAD_CANNOT_END_TRANSACTION = 8;
    private static final String[] HEAD_WORDS;
    private static final int[] HEAD_MASKS;

    static {
        java.util.Map<String, Integer> masks = new java.util.LinkedHashMap<>();
        for (String[] words : new String[][] {DYNAMIC_HEADS, COMPOUND_HEADS, BEGIN}) {
            for (String word : words) {
                masks.merge(word, HEAD_DYNAMIC, (a, b) -> a | b);
            }
        }
        masks.merge("TRUNCATE", HEAD_TRUNCATE, (a, b) -> a | b);
        for (String word : SCHEMA_HEADS) {
            masks.merge(word, HEAD_SCHEMA, (a, b) -> a | b);
        }
        for (String word : CANNOT_END_TRANSACTION) {
            masks.merge(word, HEAD_CANNOT_END_TRANSACTION, (a, b) -> a | b);
        }
        HEAD_WORDS = masks.keySet().toArray(new String[0]);
        HEAD_MASKS = masks.values().stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * What the text's first word (after ASCII white space) is, as {@code HEAD_*} bits: one pass over
     * the word and a length-and-letter match against the few words the pre-filter cares about.
     */
    private static int headMask(String sql) {
        int n = sql.length();
        int i = 0;
        while (i < n && (sql.charAt(i) == ' ' || sql.charAt(i) == '\t' || sql.charAt(i) == '\n')) {
            i++;
        }
        int end = i;
        while (end < n && (Character.isLetterOrDigit(sql.charAt(end)) || sql.charAt(end) == '_')) {
            end++;
        }
        int length = end - i;
        if (length == 0) {
            return 0;
        }
        char first = Character.toUpperCase(sql.charAt(i));
        int mask = 0;
        for (int k = 0; k < HEAD_WORDS.length; k++) {
            String word = HEAD_WORDS[k];
            if (word.length() == length && word.charAt(0) == first && sql.regionMatches(true, i, word, 0, length)) {
                mask |= HEAD_MASKS[k];
            }
        }
        return mask;
    }

    /**
     * {@code CREATE [GLOBAL|LOCAL] TEMP[ORARY] ..} and {@code DROP TEMPORARY ..}: a temporary table
     * can be referenced by no permanent table, so its DDL changes no fact about the fenced tables
     * (and applications that make one per request do not pay a metadata read each time).
     */
    private static boolean isTemporaryTableChange(String sql) {
        String[] words = sql.strip().split("\\s+", 4);
        if (words.length < 3) {
            return false;
        }
        String second = words[1].toUpperCase(Locale.ROOT);
        if (second.equals("GLOBAL") || second.equals("LOCAL")) {
            second = words[2].toUpperCase(Locale.ROOT);
        }
        return (words[0].equalsIgnoreCase("CREATE") || words[0].equalsIgnoreCase("DROP"))
                && (second.equals("TEMP") || second.equals("TEMPORARY"));
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

    /** How many spliced texts had their fences proved from the first parse's tokens so far. */
    public long spliceProofsFromParse() {
        return spliceProofsFromParse.sum();
    }

    /** How many spliced texts JSqlParser's lexer read again so far (no cheap proof, or several statements). */
    public long spliceRereads() {
        return spliceRereads.sum();
    }

    /**
     * A text-cache miss: the plan by the text's shape when the shape rule admits the text (only the
     * first text of a shape is analysed), else the full analysis.
     */
    private FencePlan analyze(String sql) {
        SqlTokens tokens;
        try {
            tokens = SqlTokens.lex(sql, dialect);
        } catch (SqlTokens.UnreadableSqlException | RuntimeException e) {
            return analyzeFully(sql, null);
        }
        // the test switch changes every template: no shape is made or used under it
        FencePlan byShape = !options.rewrite() ? null : planByShape(sql, tokens);
        return byShape != null ? byShape : analyzeFully(sql, tokens);
    }

    private FencePlan planByShape(String sql, SqlTokens tokens) {
        ShapeCache.Shape shape = ShapeCache.shapeOf(sql, tokens, this::mentionsWatchedTable);
        return shape == null ? null : shapes.plan(sql, shape, key -> analyzeFully(key, null));
    }

    /**
     * The plan the shape path gives {@code sql}, or null when the shape rule sends it to the full
     * analysis. Not cached by text; for the proof that both paths agree.
     */
    public FencePlan shapePlan(String sql) {
        try {
            return planByShape(sql, SqlTokens.lex(sql, dialect));
        } catch (SqlTokens.UnreadableSqlException e) {
            return null;
        }
    }

    /** The full analysis of {@code sql}, cached nowhere; for the proof that both paths agree. */
    public FencePlan fullAnalysis(String sql) {
        return analyzeFully(sql, null);
    }

    /** How many shapes have a template now. */
    public int cachedShapes() {
        return shapes.size();
    }

    private FencePlan analyzeFully(String sql, SqlTokens lexed) {
        analyses.incrementAndGet();
        try {
            Analysis analysis = new Analysis(sql, lexed);
            FencePlan plan = guardScopeChecked(sql, analysis.run(), analysis.tokens, analysis.facts);
            boolean changesSchema = analysis.changesSchema || ((headMask(sql) & HEAD_SCHEMA) != 0 && !isTemporaryTableChange(sql));
            return changesSchema ? plan.withSchemaChange() : plan;
        } catch (RuntimeException | StackOverflowError e) {
            LOG.log(System.Logger.Level.ERROR, "fencing-jdbc failed to analyse a statement; it is refused", e);
            return FencePlan.refused(sql, firstConfiguredTable(), "the statement could not be analysed ("
                    + e + "); it is refused so that nothing unchecked reaches a fenced table; nothing was sent");
        }
    }

    /**
     * Issue 27: a form admitted only because the guard checks it is refused when it names a
     * schema-qualified table that matches an unqualified fenced name outside the schemas the guard
     * covers ({@link GuardScopeCheck}): no trigger is there to check it.
     */
    private FencePlan guardScopeChecked(String sql, FencePlan plan, SqlTokens tokens, SchemaFacts known) {
        if (!guard || !plan.checkedByGuard() || plan.kind() == FencePlan.Kind.REFUSED) {
            return plan;
        }
        if (tokens == null) {
            try {
                tokens = SqlTokens.lex(sql, dialect);
            } catch (SqlTokens.UnreadableSqlException e) {
                return FencePlan.refused(sql, firstConfiguredTable(), "the statement could not be read to see"
                        + " which schemas it names; nothing was sent");
            }
        }
        Set<String> covered = new java.util.HashSet<>(known.guardScope());
        covered.addAll(config.guardSchemas());
        for (TableName name : fencedTables.names()) {
            if (name.schema() != null) {
                covered.add(name.schema());
            }
        }
        String outside = GuardScopeCheck.uncoveredName(tokens, fencedTables.names(), covered);
        if (outside == null) {
            return plan;
        }
        return FencePlan.refused(sql, outside, "the statement names " + outside + ", a table of a fenced name"
                + " outside the schemas the database guard covers here " + new java.util.TreeSet<>(covered)
                + ": no trigger there checks what this form writes, so it is refused; nothing was sent (list the schema"
                + " in fencing.database-guard.schemas, or the table schema-qualified in fencing.tables, to guard it)");
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
        WriteSite onlySite;
        Splice splice;
        int epochWrites;
        boolean controlsTransaction;
        boolean changesSchema;
        final SchemaFacts facts = StatementAnalyzer.this.facts;
        /** The text as JSqlParser is given it, when something had to be blanked; else null. */
        char[] parserView;
        /** A form the front door lets through only because the database guard checks it. */
        boolean guardChecked;
        /** JSqlParser's parse of the whole text, when the text is one statement; else null. */
        SqlParser.Parsed wholeTextParse;
        /** False when no token can name a large-object write: not PostgreSQL, or {@link #mayWriteLargeObject} says no. */
        final boolean mayCallLargeObjectWrite;

        private boolean hasSemicolon() {
            for (int i = 0; i < tokens.size(); i++) {
                if (tokens.kind(i) == SqlTokens.SEMICOLON) {
                    return true;
                }
            }
            return false;
        }

        private boolean isAnyWord(int token, String[] words) {
            for (String word : words) {
                if (tokens.isWord(token, word)) {
                    return true;
                }
            }
            return false;
        }

        Analysis(String sql, SqlTokens lexed) {
            this.sql = sql;
            this.tokens = lexed;
            this.mayCallLargeObjectWrite = dialect == Dialect.POSTGRESQL && mayWriteLargeObject(sql);
        }

        /**
         * The plan of the text, in steps: read the text (lex it; refuse what no lexer reads for
         * certain; MariaDB compound statements are judged as a whole), analyse each statement
         * (which finds, checks and splices its writes), then decide the plan from what the
         * statements wrote; a text whose fenced writes were spliced is proven last.
         */
        FencePlan run() {
            FencePlan unread = readText();
            if (unread != null) {
                return unread;
            }
            int parameters = numberParameters();
            String refusal = analyzeStatements();
            if (refusal != null) {
                return FencePlan.refused(sql, fencedTable == null ? firstConfiguredTable() : fencedTable,
                        refusal + "; nothing was sent");
            }
            FencePlan unspliced = planWithoutSplice(parameters);
            return unspliced != null ? unspliced : splicedPlan(parameters);
        }

        /**
         * Lexes the text; the plan when the text is decided as a whole before its statements are
         * read (refused as unreadable or ambiguous, or a MariaDB compound statement), else null.
         */
        private FencePlan readText() {
            try {
                if (tokens == null) {
                    tokens = SqlTokens.lex(sql, dialect);
                }
            } catch (SqlTokens.UnreadableSqlException e) {
                return FencePlan.refused(sql, firstConfiguredTable(),
                        "the SQL cannot be read (" + e.getMessage() + "), and it may write a fenced table; nothing was sent");
            }
            String ambiguous = backslashStringRefusal();
            if (ambiguous != null) {
                return FencePlan.refused(sql, firstConfiguredTable(), ambiguous + "; nothing was sent");
            }
            if (dialect == Dialect.MARIADB && isMariaDbCompound()) {
                return compound();
            }
            return null;
        }

        /**
         * Blanks {@code #} comments for the parser (JSqlParser does not read them) and numbers the
         * application's parameters in text order; returns how many there are.
         */
        private int numberParameters() {
            int[] hashComments = tokens.hashComments();
            for (int k = 0; k < hashComments.length; k += 2) {
                blank(hashComments[k], hashComments[k + 1]);
            }
            parameterOrdinals = new int[tokens.size()];
            int parameters = 0;
            for (int i = 0; i < tokens.size(); i++) {
                if (tokens.kind(i) == SqlTokens.PARAMETER) {
                    parameterOrdinals[i] = ++parameters;
                }
            }
            return parameters;
        }

        /**
         * Analyses each statement of the text (split at top-level semicolons) in order, splicing
         * the check into its fenced writes; returns why the text is refused, or null.
         */
        private String analyzeStatements() {
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
                        return refusal;
                    }
                    rawStart = rawEnd + 1;
                    start = i + 1;
                }
            }
            return null;
        }

        /**
         * The plan of a text whose statements were all accepted and that is sent as written
         * (checked by the database guard, a read, a pass-through, or writes of epoch-mode tables
         * only); null when fenced writes were spliced.
         */
        private FencePlan planWithoutSplice(int parameters) {
            if (guardChecked || !options.rewrite() || guard && undiagnosable()) {
                return checkedByTheGuard(parameters);
            }
            if (fencedWrites == 0 && epochWrites == 0) {
                if (namesFencedTable) {
                    return FencePlan.read(sql, fencedTable == null ? firstConfiguredTable() : fencedTable, controlsTransaction);
                }
                return controlsTransaction ? FencePlan.transactionControl(sql) : FencePlan.passThrough(sql);
            }
            if (fencedWrites == 0) {
                return new FencePlan.Fenced(sql, fencedTable, FencePlan.DatabaseText.asWritten(sql, parameters), null,
                        false, true, controlsTransaction, false, false);
            }
            return null;
        }

        /**
         * The plan of a text with spliced fenced writes: the spliced text, refused unless the
         * check is proven to reach the database as the plan says.
         */
        private FencePlan splicedPlan(int parameters) {
            int[] parameterOffsets = new int[parameters];
            for (int i = 0, p = 0; i < tokens.size(); i++) {
                if (tokens.kind(i) == SqlTokens.PARAMETER) {
                    parameterOffsets[p++] = tokens.start(i);
                }
            }
            Splice.Result spliced = splice.apply(parameterOffsets);
            String unverified = splice.fusedEdge();
            boolean oneStatement = statements == 1 && !hasSemicolon();
            if (unverified == null && oneStatement && wholeTextParse != null
                    && SpliceTokenProof.holds(wholeTextParse, splice)) {
                spliceProofsFromParse.increment();
                if (options.crossCheckSpliceProof()) {
                    String reread = verifyWithParserTokens(parserView == null ? spliced
                            : splice.apply(parameterOffsets, new String(parserView)), false);
                    if (reread != null) {
                        throw new AssertionError("the token proof accepted a splice the re-read refuses (" + reread
                                + "): " + sql);
                    }
                }
            } else if (unverified == null) {
                spliceRereads.increment();
                unverified = verifyWithParserTokens(parserView == null ? spliced
                        : splice.apply(parameterOffsets, new String(parserView)), !oneStatement);
            }
            if (unverified != null) {
                return FencePlan.refused(sql, fencedTable, unverified + "; nothing was sent");
            }
            boolean countIsTheFencedWrite = fencedWrites == 1 && statements == 1 && onlySite.topLevel();
            ZeroRowCheck check = countIsTheFencedWrite ? zeroRowCheck(onlySite) : null;
            return new FencePlan.Fenced(sql, fencedTable, FencePlan.DatabaseText.spliced(spliced, FenceSlot.forStatement(fenceSlot, tokens)), check,
                    countIsTheFencedWrite, epochWrites > 0, controlsTransaction, false, false);
        }

        /**
         * True when the text holds a MariaDB compound statement ({@code BEGIN NOT ATOMIC .. END},
         * {@code IF}, {@code CASE}, {@code LOOP}, {@code WHILE}, {@code REPEAT}, {@code FOR}, a
         * labelled block) or a stored program's body: the server reads it as one statement whose
         * inner statements, split here at their semicolons, would be judged by their first word.
         */
        private boolean isMariaDbCompound() {
            for (int i = 0; i < tokens.size(); i++) {
                boolean head = i == 0 || (tokens.kind(i - 1) == SqlTokens.SEMICOLON && tokens.depth(i - 1) == 0);
                if (head && (isAnyWord(i, COMPOUND_HEADS) || (tokens.isIdentifier(i) && i + 1 < tokens.size()
                        && tokens.kind(i + 1) == SqlTokens.OPERATOR && tokens.text(i + 1).equals(":")))) {
                    return true;
                }
                boolean transactionBegin = head && (i + 1 == tokens.size() || tokens.kind(i + 1) == SqlTokens.SEMICOLON
                        || tokens.isWord(i + 1, "WORK"));
                if (tokens.isWord(i, "BEGIN") && !transactionBegin) {
                    return true;
                }
            }
            return false;
        }

        /**
         * A MariaDB compound statement runs whatever its body says, {@code EXECUTE IMMEDIATE} of a
         * built string included: it is a procedure call. Refused when it mentions a fenced table
         * (anywhere in the text) or holds SQL-level {@code EXECUTE}, and under
         * {@code procedure-calls=reject}; else sent unchecked with a warning. A stored program's
         * definition ({@code CREATE .. BEGIN .. END}) runs nothing now, and its calls follow the same rules.
         */
        private FencePlan compound() {
            String table = firstConfiguredTable();
            if (mentionsWatchedTable(sql)) {
                return FencePlan.refused(sql, table, "a MariaDB compound statement (BEGIN NOT ATOMIC, IF, CASE, LOOP, "
                        + "WHILE, REPEAT, FOR, a labelled block, or a stored program's body) that mentions a fenced table "
                        + "(even inside a string) cannot be analysed; nothing was sent");
            }
            boolean definition = tokens.isWord(0, "CREATE");
            String execute = definition ? null : sqlLevelExecute(0, tokens.size());
            if (execute != null) {
                return FencePlan.refused(sql, table, execute + "; nothing was sent");
            }
            if (!definition && config.procedureCalls() == FencingConfig.ProcedureCalls.REJECT) {
                return FencePlan.refused(sql, table, "a MariaDB compound statement may write fenced tables unseen "
                        + "(EXECUTE IMMEDIATE of a built string, for one), and " + FencingConfig.PROCEDURE_CALLS
                        + "=reject; nothing was sent");
            }
            if (!definition) {
                LOG.log(System.Logger.Level.WARNING, "fencing-jdbc cannot see what this compound statement writes; it "
                        + "is sent unchecked ({0}=allow): {1}", FencingConfig.PROCEDURE_CALLS, abbreviate(sql));
            }
            return epochTables ? FencePlan.transactionControl(sql) : FencePlan.passThrough(sql);
        }

        /**
         * Where a quoted string with a backslash ends depends on the session (PostgreSQL's
         * {@code standard_conforming_strings}, set by {@code SET}, {@code set_config}, the URL's
         * {@code options} or the server; MariaDB's {@code NO_BACKSLASH_ESCAPES}), and the setting
         * can change inside the same text. Such a string may hide or reveal a neighbouring
         * statement, so it is refused anywhere in a text that may hold several statements (any
         * {@code ;}) or names a fenced table. Dollar-quoted strings read the same in every session.
         */
        private String backslashStringRefusal() {
            if (dialect == Dialect.H2 || (sql.indexOf(';') < 0 && !filter.mayNameFencedTable(sql))) {
                return null;
            }
            for (int i = 0; i < tokens.size(); i++) {
                if (tokens.kind(i) == SqlTokens.STRING && tokens.hasBackslash(i) && sql.charAt(tokens.start(i)) != '$') {
                    return "a string literal with a backslash in a text that names a fenced table or may hold several "
                            + "statements: where it ends depends on session settings (standard_conforming_strings, "
                            + "NO_BACKSLASH_ESCAPES) that the text itself can change; bind the value as a parameter, "
                            + "or send the statements one at a time";
                }
            }
            return null;
        }

        /**
         * Analyses the statement in tokens {@code [from, to)}, which the text {@code [rawFrom, rawTo)}
         * holds with the comments around it; returns why it is refused, or null. First what the
         * statement is (what it does to the transaction and the schema; forms judged by their head:
         * SET STATEMENT, EXPLAIN, procedure calls); a statement that mentions a fenced table then
         * has its writes read twice and decided one by one ({@link #fencedStatement}).
         */
        String statement(int from, int to, int rawFrom, int rawTo) {
            String raw = sql.substring(rawFrom, rawTo);
            if (epochTables && !(tokens.kind(from) == SqlTokens.OPEN || isAnyWord(from, CANNOT_END_TRANSACTION))) {
                controlsTransaction = true;
            }
            // Decided on the raw text, comments and strings included: where this lexer and the
            // database's disagree about what is a comment, the statement is parsed, not passed.
            boolean names = mentionsWatchedTable(raw);
            changesSchema |= isAnyWord(from, SCHEMA_HEADS) && !(isAnyWord(from + 1, TEMPORARY)
                    || ((tokens.isWord(from + 1, "GLOBAL") || tokens.isWord(from + 1, "LOCAL")) && isAnyWord(from + 2, TEMPORARY)));
            String hidden = hiddenWriteRefusal(from, to, names);
            if (hidden != null) {
                return hidden;
            }
            if (isSetStatementFor(from)) {
                int inner = setStatementBody(from, to);
                if (inner < 0) {
                    return names ? "SET STATEMENT .. FOR without a statement after FOR" : null;
                }
                blank(tokens.start(from), tokens.end(inner - 1));
                return statement(inner, to, tokens.start(inner), rawTo);
            }
            if (isExplain(from)) {
                return explain(from, to, rawFrom, rawTo, names);
            }
            if (isDynamic(from)) {
                return dynamicStatement(names);
            }
            return names ? fencedStatement(from, to, rawFrom, rawTo, raw) : null;
        }

        /**
         * Writes no reading of the statement can see: PostgreSQL's TRUNCATE .. CASCADE into fenced
         * tables, executable comments, SQL-level EXECUTE. Why the statement is refused, or null.
         */
        private String hiddenWriteRefusal(int from, int to, boolean names) {
            String truncate = truncateCascade(from, to);
            if (truncate != null) {
                return truncate;
            }
            String largeObject = largeObjectWrite(from, to, names);
            if (largeObject != null) {
                return largeObject;
            }
            for (int i = from; i < to; i++) {
                if (tokens.kind(i) == SqlTokens.EXECUTABLE_COMMENT
                        && (names || config.procedureCalls() == FencingConfig.ProcedureCalls.REJECT)) {
                    return "an executable comment (/*! .. */) in a statement that mentions a fenced table (or with "
                            + FencingConfig.PROCEDURE_CALLS + "=reject) cannot be analysed";
                }
            }
            return sqlLevelExecute(from, to);
        }

        /**
         * PostgreSQL's ways to change an existing large object: the functions of
         * {@link #LARGE_OBJECT_WRITES}, named anywhere (called, or wrapped in an operator or a cast),
         * and the catalog tables that hold large objects (a superuser may write them). A large
         * object lives outside every fenced table: the row that refers to it keeps its fence, and no
         * trigger sees the change, so the database guard cannot check it either. A {@code U&".."}
         * name can spell any of them, so it counts as one. Refused when the statement mentions a
         * fenced table, under {@code procedure-calls=reject} and when the guard is required (which
         * promises that every write is checked); else sent with a warning, as a procedure call is.
         * Creating a new large object (lo_from_bytea, lo_create, lo_import) is not a write to
         * anything a row refers to yet.
         */
        private String largeObjectWrite(int from, int to, boolean names) {
            if (!mayCallLargeObjectWrite) {
                return null;
            }
            for (int i = from; i < to; i++) {
                if (!tokens.isIdentifier(i) || !(tokens.text(i).regionMatches(true, 0, "u&\"", 0, 3)
                        || LARGE_OBJECT_WRITES.contains(tokens.identifier(i)))) {
                    continue;
                }
                String name = tokens.text(i);
                if (names || guard || config.procedureCalls() == FencingConfig.ProcedureCalls.REJECT) {
                    return "the large-object function or catalog " + name + " changes large objects outside every"
                            + " table, where neither the fence check nor the database guard sees it (refused in a"
                            + " statement that mentions a fenced table, with " + FencingConfig.DATABASE_GUARD
                            + "=required and with " + FencingConfig.PROCEDURE_CALLS + "=reject); write a new large"
                            + " object instead and store its oid with a fenced UPDATE of the row";
                }
                LOG.log(System.Logger.Level.WARNING, "fencing-jdbc cannot check this large-object write ({0}); it is"
                        + " sent unchecked ({1}=allow): {2}", name, FencingConfig.PROCEDURE_CALLS, abbreviate(sql));
                return null;
            }
            return null;
        }

        /**
         * A procedure call or dynamic SQL: checked by the database guard when it is required;
         * else refused when it mentions a fenced table or under {@code procedure-calls=reject},
         * and sent unchecked with a warning otherwise.
         */
        private String dynamicStatement(boolean names) {
            if (guard) {
                // runs under the caller's fence; the triggers check whatever it writes
                guardChecked = true;
                return null;
            }
            if (names) {
                return "a procedure call or dynamic SQL that mentions a fenced table (even inside a string) cannot be analysed";
            }
            if (config.procedureCalls() == FencingConfig.ProcedureCalls.REJECT) {
                return "procedure calls and dynamic SQL (CALL, EXECUTE IMMEDIATE, DO, PREPARE, {call ..}) may write fenced "
                        + "tables unseen, and " + FencingConfig.PROCEDURE_CALLS + "=reject";
            }
            LOG.log(System.Logger.Level.WARNING, "fencing-jdbc cannot see what this procedure call or dynamic SQL "
                    + "writes; it is sent unchecked ({0}=allow): {1}", FencingConfig.PROCEDURE_CALLS, abbreviate(sql));
            return null;
        }

        /**
         * A statement that mentions a fenced table: its writes are found in the text
         * ({@link WriteSites}) and by JSqlParser; the two readings must agree, and each write is
         * then decided ({@link #decideWrite}). Why the statement is refused, or null.
         */
        private String fencedStatement(int from, int to, int rawFrom, int rawTo, String raw) {
            namesFencedTable = true;
            if (guard && isCopyFrom(from, to)) {
                // COPY FROM fires row triggers (PostgreSQL)
                guardChecked = true;
                fencedTable = fencedTable == null ? firstConfiguredTable() : fencedTable;
                return null;
            }
            String unreadable = sessionDependentTextRefusal(from, to);
            if (unreadable != null) {
                return unreadable;
            }
            // the text's own reading of the writes first: it also marks what JSqlParser cannot read
            // but the database does (PostgreSQL's "orders *", NOT MATERIALIZED), blanked for the parser
            List<WriteSite> sites = WriteSites.find(tokens, dialect, from, to, this::blankToken);
            ParserReading reading = readWrites(from, to, rawFrom, rawTo, raw);
            if (reading.writes() == null) {
                return reading.refusal();
            }
            ParsedWrites writes = reading.writes();
            String disagreement = readingsDisagree(writes, sites, from, to);
            if (disagreement != null) {
                return disagreement;
            }
            for (int k = 0; k < sites.size(); k++) {
                String refusal = decideWrite(writes.writes.get(k), sites.get(k), raw);
                if (refusal != null) {
                    return refusal;
                }
            }
            return null;
        }

        /**
         * Text whose reading depends on the session or the JDBC driver: on MariaDB a backslash in any
         * string of the text; JDBC escapes. Why the statement is refused, or null.
         */
        private String sessionDependentTextRefusal(int from, int to) {
            if (dialect == Dialect.MARIADB && backslashStringIn(0, tokens.size())) {
                // NO_BACKSLASH_ESCAPES and ANSI_QUOTES move where a string ends, and with it where
                // every later statement of the text starts: a neighbour's string counts too
                return "a string literal with a backslash in a text that writes or reads a fenced table: where it "
                        + "ends, and so where the next statement starts, depends on the session's sql_mode "
                        + "(NO_BACKSLASH_ESCAPES, ANSI_QUOTES); bind the value as a parameter instead";
            }
            for (int i = from; i < to; i++) {
                if (tokens.kind(i) == SqlTokens.JDBC_ESCAPE_OPEN) {
                    return "JDBC escape syntax ({fn ..}, {d ..}, {oj ..}) in a statement on a fenced table cannot be "
                            + "analysed; write the native SQL instead";
                }
            }
            return null;
        }

        /**
         * JSqlParser's reading of the statement: its writes, or no writes with either a refusal or
         * none (the statement is let through: the fenced name was only part of another name, a
         * string or a comment).
         */
        private record ParserReading(ParsedWrites writes, String refusal) {
        }

        private static final ParserReading LET_THROUGH = new ParserReading(null, null);

        private ParserReading readWrites(int from, int to, int rawFrom, int rawTo, String raw) {
            Statement parsed;
            try {
                SqlParser.Parsed parse = parser.parseKeepingTokens(parserText(rawFrom, rawTo));
                parsed = parse.statement();
                wholeTextParse = rawFrom == 0 && rawTo == sql.length() ? parse : null;
            } catch (SqlParser.UnparseableSqlException e) {
                if (tokens.isWord(from, "SELECT") && WriteSites.countStatementHeads(tokens, from, to) == 0
                        && !mentionsWriteKeyword(raw)) {
                    return LET_THROUGH;
                }
                if (!isRoutineDefinition(from, to) && !namesFencedIdentifier(from, to, raw)) {
                    return LET_THROUGH; // the fenced name is only part of another name, a string or a comment
                }
                return new ParserReading(null, "the SQL parser cannot read a statement that names a fenced table ("
                        + e.getMessage() + "); rewrite it in a form the parser reads, or run it through an unfenced connection");
            }
            ParsedWrites writes = ParsedWrites.of(parsed, config.column());
            if (!writes.understood) {
                if (!isRoutineDefinition(from, to) && !namesFencedIdentifier(from, to, raw)) {
                    return LET_THROUGH; // e.g. CREATE TABLE orders_archive, COMMENT .. IS 'copied from orders'
                }
                String kind = parsed.getClass().getSimpleName().replace("Statement", "").toUpperCase(Locale.ROOT);
                return new ParserReading(null, kind + " statements that name a fenced table are refused (schema "
                        + "changes, LOCK, views and routines over it, and the like); run them through an unfenced connection");
            }
            return new ParserReading(writes, null);
        }

        /**
         * Why the parser's and the text's readings of the writes cannot be trusted together (a
         * SELECT .. INTO a fenced table, or a different number of writes), or null.
         */
        private String readingsDisagree(ParsedWrites writes, List<WriteSite> sites, int from, int to) {
            for (TableName into : writes.selectIntoTargets) {
                TableName fenced = fencedTables.fencedTableFor(into);
                if (fenced != null) {
                    fencedTable = fenced.toString();
                    return "SELECT .. INTO fenced table " + fenced + " cannot carry the check";
                }
            }
            int heads = WriteSites.countStatementHeads(tokens, from, to);
            if (sites.size() != writes.writes.size() || heads != sites.size()) {
                return "the statement's writes could not be located with certainty (parser found "
                        + writes.writes.size() + ", text shows " + heads + ")";
            }
            return null;
        }

        /**
         * Decides one write, as the parser and the text read it: passed (not fenced), checked by the
         * guard, counted as an epoch-mode write, refused, or spliced with the check. Why the
         * statement is refused, or null.
         */
        private String decideWrite(ParsedWrites.ParsedWrite write, WriteSite site, String raw) {
            TableName fenced = fencedTables.fencedTableFor(write.target());
            String cascade = cascadeRefusal(write, site, fenced);
            if (cascade != null) {
                return cascade;
            }
            // MERGE, REPLACE and TRUNCATE are never spliced, so only their kind must agree
            boolean agree = site.kind() == write.kind()
                    && (site.kind() == ParsedWrites.Kind.OTHER || write.target().equals(site.targetName(tokens)));
            if ((write.multiTable() || site.multiTable()) && guard) {
                // MariaDB fires the row triggers of each table it writes
                guardChecked = true;
                return null;
            }
            if (write.multiTable() || site.multiTable()) {
                // MariaDB writes any of the tables it names, whichever comes first
                return multiTableWrite(write, raw);
            }
            if (fenced == null && agree) {
                return null;
            }
            if (fenced != null) {
                fencedTable = fenced.toString();
            }
            if (!agree) {
                if (site.unsupported() != null && fenced != null) {
                    return write.description() + " on fenced table " + fencedTable + " is refused: " + site.unsupported();
                }
                return "the statement's writes could not be located with certainty (" + write.description()
                        + " of " + write.target() + ")";
            }
            if (fencedTables.modeOf(fenced) == FencingConfig.Mode.EPOCH) {
                String refusal = epochWrite(write);
                if (refusal == null) {
                    epochWrites++;
                }
                return refusal;
            }
            return rowModeWrite(write, site);
        }

        /**
         * Why a write of a table that is not fenced is refused because a foreign-key action carries
         * it into a fenced one, or null (with the guard required, the triggers check cascaded
         * writes, MariaDB's on the parents).
         */
        private String cascadeRefusal(ParsedWrites.ParsedWrite write, WriteSite site, TableName fenced) {
            String cascade = fenced == null && !guard
                    ? facts.cascadeInto(write.target(), cascadingEvents(write, site)) : null;
            if (cascade == null) {
                return null;
            }
            fencedTable = firstConfiguredTable();
            return write.description() + " of " + write.target() + " reaches a fenced table through a foreign-key "
                    + "action (" + cascade + "), where the database writes the fenced rows itself and no fence "
                    + "check can be carried; write the fenced rows first with fenced statements, or require the "
                    + "database guard (fencing.database-guard=required) so that the database checks cascaded writes";
        }

        /**
         * A write of a row-mode fenced table whose two readings agree: checked by the guard (forms
         * whose row triggers fire), refused (forms that cannot carry the check), or spliced.
         */
        private String rowModeWrite(ParsedWrites.ParsedWrite write, WriteSite site) {
            if (guard && (write.mysqlUpsert() || write.kind() == ParsedWrites.Kind.OTHER
                    && !write.description().equals("TRUNCATE")) && !write.setsColumn()) {
                // MERGE, REPLACE and ON DUPLICATE KEY UPDATE fire the row triggers of what they change
                guardChecked = true;
                return null;
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
            if (site.unsupported() != null) {
                return write.description() + " on fenced table " + fencedTable + " is refused: " + site.unsupported();
            }
            rewrite(site);
            fencedWrites++;
            onlySite = site;
            return null;
        }

        /**
         * SQL-level {@code EXECUTE} runs a server-side prepared statement by name: after pgjdbc's
         * prepare threshold, the driver's own fenced writes live on the server as named statements
         * whose fence is an ordinary parameter, so {@code EXECUTE} (bare, under {@code EXPLAIN
         * ANALYZE}, in {@code CREATE TABLE .. AS}) would run them with fence values of the caller's
         * choice. Refused wherever it stands, under both {@code procedure-calls} values. What
         * remains allowed: privileges ({@code GRANT EXECUTE}), a trigger's {@code EXECUTE
         * FUNCTION|PROCEDURE} (it defines, runs nothing), and MariaDB's and H2's {@code EXECUTE
         * IMMEDIATE}, which is dynamic SQL under {@code procedure-calls}.
         */
        private String sqlLevelExecute(int from, int to) {
            if (guard) {
                // the server-side statement runs under the session's fence, and the triggers check it
                return null;
            }
            for (int i = from; i < to; i++) {
                if (tokens.kind(i) == SqlTokens.EXECUTABLE_COMMENT
                        && tokens.text(i).toLowerCase(Locale.ROOT).contains("execute")) {
                    return "an executable comment (/*! .. */) that holds EXECUTE cannot be analysed";
                }
                if (!tokens.isWord(i, "EXECUTE")) {
                    continue;
                }
                if (dialect != Dialect.POSTGRESQL && tokens.isWord(i + 1, "IMMEDIATE")) {
                    continue;
                }
                if (tokens.isWord(from, "GRANT") || tokens.isWord(from, "REVOKE")
                        || (tokens.isWord(from, "ALTER") && tokens.isWord(from + 1, "DEFAULT"))) {
                    continue;
                }
                if (tokens.isWord(from, "CREATE") && i > from && !tokens.isWord(i - 1, "AS")
                        && (tokens.isWord(i + 1, "FUNCTION") || tokens.isWord(i + 1, "PROCEDURE"))) {
                    continue;
                }
                return "SQL-level EXECUTE of a server-side prepared statement (also under EXPLAIN or in CREATE TABLE .. "
                        + "AS) may run the driver's own fenced statements with fence values of the caller's choice; it is "
                        + "refused on connections with fenced tables under both " + FencingConfig.PROCEDURE_CALLS
                        + " values; prepare the statement through JDBC instead, or require the database guard "
                        + "(fencing.database-guard=required) so that the database checks what it runs";
            }
            return null;
        }

        /** The events a write makes on existing rows of its target ({@link SchemaFacts#DELETE}, {@link SchemaFacts#UPDATE}). */
        private int cascadingEvents(ParsedWrites.ParsedWrite write, WriteSite site) {
            if (write.multiTable() || site.multiTable() || write.kind() == ParsedWrites.Kind.OTHER) {
                return SchemaFacts.DELETE | SchemaFacts.UPDATE; // MERGE, REPLACE (a delete), TRUNCATE ..
            }
            return switch (write.kind()) {
                case DELETE -> SchemaFacts.DELETE;
                case UPDATE -> SchemaFacts.UPDATE;
                default -> write.mysqlUpsert() || site.hasConflictUpdate() ? SchemaFacts.UPDATE : 0;
            };
        }

        /**
         * PostgreSQL's {@code TRUNCATE .. CASCADE} also empties every table that references the
         * ones it names, at any depth: refused when a fenced table is among them.
         */
        private String truncateCascade(int from, int to) {
            if (dialect != Dialect.POSTGRESQL || !tokens.isWord(from, "TRUNCATE")) {
                return null;
            }
            boolean cascade = false;
            for (int i = from; i < to; i++) {
                cascade |= tokens.isWord(i, "CASCADE");
            }
            if (!cascade) {
                return null;
            }
            for (int i = from + 1; i < to; i++) {
                if (tokens.isIdentifier(i) && facts.referencedByFencedTable(TableName.of(null, tokens.identifier(i)))) {
                    fencedTable = firstConfiguredTable();
                    return "TRUNCATE .. CASCADE of " + tokens.identifier(i) + " also empties the fenced tables that "
                            + "reference it; delete the fenced rows with fenced statements instead";
                }
            }
            return null;
        }

        /** MariaDB's {@code SET STATEMENT var = value [, ..] FOR statement}. */
        private boolean isSetStatementFor(int head) {
            return dialect == Dialect.MARIADB && tokens.isWord(head, "SET") && tokens.isWord(head + 1, "STATEMENT");
        }

        /** The first token of the statement after {@code SET STATEMENT .. FOR}, or -1. */
        private int setStatementBody(int head, int to) {
            for (int i = head + 2; i < to; i++) {
                if (tokens.depth(i) == tokens.depth(head) && tokens.isWord(i, "FOR")) {
                    return i + 1 < to ? i + 1 : -1;
                }
            }
            return -1;
        }

        private static final String[] EXPLAINED_HEADS = {"SELECT", "WITH", "VALUES", "TABLE", "INSERT", "UPDATE",
                "DELETE", "MERGE", "REPLACE", "UPSERT", "EXECUTE", "CREATE", "DECLARE"};

        private boolean isExplain(int head) {
            return tokens.isWord(head, "EXPLAIN") || tokens.isWord(head, "ANALYZE") || tokens.isWord(head, "ANALYSE")
                    || (dialect == Dialect.MARIADB && (tokens.isWord(head, "DESCRIBE") || tokens.isWord(head, "DESC")));
        }

        /**
         * {@code EXPLAIN} (and MariaDB's {@code ANALYZE stmt}, {@code DESCRIBE}) is classified by what
         * it explains: a read is a read; a write is a read too when it is only planned, but refused
         * when the wrapper runs it ({@code ANALYZE}), since the check cannot be carried there. A bare
         * {@code ANALYZE table} only gathers statistics.
         */
        private String explain(int head, int to, int rawFrom, int rawTo, boolean names) {
            int inner = head + 1;
            boolean maintenance = (tokens.isWord(head, "ANALYZE") || tokens.isWord(head, "ANALYSE"))
                    && (tokens.isWord(inner, "TABLE") || tokens.isWord(inner, "LOCAL") || tokens.isWord(inner, "NO_WRITE_TO_BINLOG"));
            while (!maintenance && inner < to && !isAnyWord(inner, EXPLAINED_HEADS)) {
                if (tokens.kind(inner) == SqlTokens.OPEN && isAnyWord(inner + 1, EXPLAINED_HEADS)) {
                    break;
                }
                inner = tokens.kind(inner) == SqlTokens.OPEN ? closeOf(inner) + 1 : inner + 1;
            }
            namesFencedTable |= names;
            if (maintenance || inner >= to || !names) {
                return null; // statistics, DESCRIBE of a table, or nothing fenced in sight
            }
            boolean runs = !tokens.isWord(head, "EXPLAIN") && !tokens.isWord(head, "DESCRIBE") && !tokens.isWord(head, "DESC")
                    || sql.substring(rawFrom, tokens.start(inner)).toLowerCase(Locale.ROOT).contains("analy");
            if (!runs) {
                return null; // only planned: nothing is executed
            }
            String refusal = "EXPLAIN ANALYZE runs the statement it explains, and the fence check cannot be carried "
                    + "there; EXPLAIN it without ANALYZE, or run it through an unfenced connection";
            Statement parsed;
            try {
                parsed = parser.parse(parserText(tokens.start(inner), rawTo));
            } catch (SqlParser.UnparseableSqlException e) {
                return refusal + " (the explained statement cannot be read: " + e.getMessage() + ")";
            }
            ParsedWrites writes = ParsedWrites.of(parsed, config.column());
            if (!writes.understood || !writes.selectIntoTargets.isEmpty()
                    || WriteSites.countStatementHeads(tokens, inner, to) > 0) {
                return refusal;
            }
            for (ParsedWrites.ParsedWrite write : writes.writes) {
                if (fencedTables.fencedTableFor(write.target()) != null
                        || facts.cascadeInto(write.target(), SchemaFacts.DELETE | SchemaFacts.UPDATE) != null) {
                    return refusal;
                }
            }
            return writes.writes.isEmpty() ? null : refusal;
        }

        /**
         * A statement that defines code or a view ({@code CREATE [OR REPLACE] FUNCTION, PROCEDURE,
         * TRIGGER, RULE, VIEW, EVENT, ALIAS ..}): its body, often a string, runs later, so any
         * mention of a fenced table counts, not only an identifier.
         */
        private boolean isRoutineDefinition(int from, int to) {
            if (!tokens.isWord(from, "CREATE") && !tokens.isWord(from, "ALTER")) {
                return false;
            }
            for (int i = from + 1; i < Math.min(to, from + 8); i++) {
                if (isAnyWord(i, ROUTINE_KINDS)) {
                    return true;
                }
            }
            return false;
        }

        /**
         * True when a fenced table's name stands as an identifier (not as part of a longer name, in a
         * string or a comment) in the statement, as this lexer or JSqlParser's tokenizer reads it;
         * {@code U&".."} identifiers can spell any name, so they count too.
         */
        private boolean namesFencedIdentifier(int from, int to, String raw) {
            for (int i = from; i < to; i++) {
                if (tokens.isIdentifier(i) && (isFencedName(tokens.identifier(i))
                        || tokens.text(i).regionMatches(true, 0, "u&\"", 0, 3))) {
                    return true;
                }
            }
            try {
                CCJSqlParser second = parser(raw);
                for (Token token = second.getNextToken(); token.kind != CCJSqlParserConstants.EOF; token = second.getNextToken()) {
                    if (token.image != null && isFencedName(dev.fencing.internal.config.Identifiers.unquote(token.image)
                            .toLowerCase(Locale.ROOT))) {
                        return true;
                    }
                }
            } catch (RuntimeException | Error e) {
                return true;
            }
            return false;
        }

        private boolean isFencedName(String identifier) {
            for (TableName table : fencedTables.names()) {
                if (table.table().equals(identifier)) {
                    return true;
                }
            }
            return false;
        }

        /** The text JSqlParser reads: the original, with what it cannot read but the database does blanked. */
        private String parserText(int rawFrom, int rawTo) {
            return parserView == null ? sql.substring(rawFrom, rawTo) : new String(parserView, rawFrom, rawTo - rawFrom);
        }

        private void blankToken(int token) {
            blank(tokens.start(token), tokens.end(token));
        }

        private void blank(int start, int end) {
            if (parserView == null) {
                parserView = sql.toCharArray();
            }
            java.util.Arrays.fill(parserView, start, end, ' ');
        }

        private int closeOf(int open) {
            int depth = tokens.depth(open);
            for (int i = open + 1; i < tokens.size(); i++) {
                if (tokens.kind(i) == SqlTokens.CLOSE && tokens.depth(i) == depth) {
                    return i;
                }
            }
            return tokens.size() - 1;
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
            for (TableName table : fencedTables.names()) {
                if (new FencedNameFilter(java.util.Set.of(table)).mayNameFencedTable(raw)) {
                    if (named == null || fencedTables.modeOf(table) == FencingConfig.Mode.ROW) {
                        named = table;
                    }
                    epochOnly &= fencedTables.modeOf(table) == FencingConfig.Mode.EPOCH;
                }
            }
            FencedNameFilter parents = cascadeParentFilter;
            if (named == null && !guard && parents != null && parents.mayNameFencedTable(raw)) {
                fencedTable = firstConfiguredTable();
                return "a " + write.description() + " of several tables that names a table whose writes cascade into a "
                        + "fenced table cannot carry the check; write each table in its own statement, or require the "
                        + "database guard (fencing.database-guard=required)";
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

        private boolean backslashStringIn(int from, int to) {
            for (int i = from; i < to; i++) {
                if (tokens.kind(i) == SqlTokens.STRING && tokens.hasBackslash(i)) {
                    return true;
                }
            }
            return false;
        }

        /**
         * The plan of a text sent as written because the database guard checks it: a write needs a
         * fence in scope (a procedure call need not: it may write nothing fenced).
         */
        private FencePlan checkedByTheGuard(int parameters) {
            if (!options.rewrite() || fencedWrites == 0 && epochWrites == 0 && !namesFencedTable) {
                return new FencePlan.PassThrough(sql, controlsTransaction, false, true);
            }
            return new FencePlan.Fenced(sql, fencedTable == null ? firstConfiguredTable() : fencedTable,
                    FencePlan.DatabaseText.asWritten(sql, parameters), null, false, epochWrites > 0, controlsTransaction,
                    false, true);
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
            return isDynamicHead(tokens, head);
        }

        /**
         * Checks the spliced text with JSqlParser's own tokenizer, a second lexer: every fence must
         * stand as a token of its own (not inside what that lexer takes for a comment or a string).
         * With {@code reparse} (a text with a {@code ;}) the spliced text must also still parse.
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
        private String verifyWithParserTokens(Splice.Result spliced, boolean reparse) {
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
            if (!reparse) {
                return null;
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

        private void rewrite(WriteSite site) {
            new SiteSplicer(tokens, splice, config, dialect).rewrite(site);
        }

        private ZeroRowCheck zeroRowCheck(WriteSite site) {
            return new ZeroRowQueries(sql, tokens, parameterOrdinals, facts, config.column(), dialect).of(site);
        }
    }

    /** True when token {@code head}, the first of a statement, makes it a procedure call or dynamic SQL. */
    static boolean isDynamicHead(SqlTokens tokens, int head) {
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
        return fencedTables.names().iterator().next().toString();
    }

    private static String abbreviate(String sql) {
        return sql.length() <= 200 ? sql : sql.substring(0, 200) + "...";
    }

    /**
     * False when no token of {@code sql} can name a large-object write: it never spells "lo_",
     * "lowrite", "largeobject" or {@code U&"} (any case). One pass, as it runs on texts the
     * pre-filter would otherwise pass.
     */
    private static boolean mayWriteLargeObject(String sql) {
        for (int i = 0, last = sql.length() - 3; i <= last; i++) {
            char c = (char) (sql.charAt(i) | 0x20);
            if ((c == 'l' && (sql.charAt(i + 1) | 0x20) == 'o'
                    && (sql.charAt(i + 2) == '_' || sql.regionMatches(true, i + 2, "write", 0, 5)))
                    || (c == 'l' && sql.regionMatches(true, i, "largeobject", 0, 11))
                    || (c == 'u' && sql.charAt(i + 1) == '&' && sql.charAt(i + 2) == '"')) {
                return true;
            }
        }
        return false;
    }
}
