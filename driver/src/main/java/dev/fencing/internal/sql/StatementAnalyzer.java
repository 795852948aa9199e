package dev.fencing.internal.sql;

import dev.fencing.internal.config.FencedTableSet;
import dev.fencing.FencingConfig;
import dev.fencing.internal.config.TableName;

import java.sql.Connection;
import java.sql.SQLException;
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

    private final FencingConfig config;
    private final FencedTableSet fencedTables;
    private final Dialect dialect;
    private final FencedNameFilter filter;
    private final PreFilter preFilter;
    private final PlanCache cache;
    /** Plans by shape: texts that differ only in their literals share one analysis. */
    private final ShapeCache shapes;
    private final SqlParser parser;
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
     * tokens (or from the recognizer's spans of the same tokens), and spliced texts that JSqlParser's lexer read again (the proof did not hold, or the
     * text has a {@code ;}): how often the cheap proof serves, for the tests and the benchmarks.
     */
    private final java.util.concurrent.atomic.LongAdder spliceProofsFromParse = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder spliceRereads = new java.util.concurrent.atomic.LongAdder();
    /** Texts planned past the text cache and the pre-filter ({@link #misses}). */
    private final java.util.concurrent.atomic.LongAdder misses = new java.util.concurrent.atomic.LongAdder();
    /** {@link #mentionsWatchedTable}, made once (the shape rule asks it of every new text's strings). */
    private final java.util.function.Predicate<String> namesWatched = this::mentionsWatchedTable;
    /** Which texts were planned lately, so that only a text seen again takes a text-cache entry. */
    private final SeenTexts seenTexts = new SeenTexts();
    /** Statements the recognizer of common shapes read instead of JSqlParser ({@link RecognizedReading}). */
    private final java.util.concurrent.atomic.LongAdder recognizedStatements = new java.util.concurrent.atomic.LongAdder();
    /** What the metadata says about the fenced tables; {@link SchemaFacts#NONE} until learned. */
    private volatile SchemaFacts facts = SchemaFacts.NONE;
    /** The pre-filter for tables whose writes cascade into fenced ones; null when there are none. */
    private volatile FencedNameFilter cascadeParentFilter;
    private volatile boolean schemaKnown;
    /** The connection that planned the last schema change: its own reading of the metadata sees it. */
    private volatile java.lang.ref.WeakReference<Connection> schemaChangedOn;
    private volatile long lastLearnedNanos;
    /** The fence column of each row-mode table, checked on this database when a write first names it. */
    private final FenceColumnCheck fenceColumns;

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
        this.preFilter = new PreFilter(dialect, config.hasEpochTables());
        this.cache = new PlanCache(config.planCacheSize());
        this.shapes = new ShapeCache(config.planCacheSize());
        this.parser = new SqlParser(dialect);
        this.guard = config.guardRequired();
        this.fenceSlot = FenceSlot.of(dialect, guard);
        this.fenceColumns = new FenceColumnCheck(config);
    }

    /** The check of the fenced tables' fence column on this analyzer's database. */
    public FenceColumnCheck fenceColumns() {
        return fenceColumns;
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
        FencePlan unanalysed = preFilter.plan(sql, mentionsWatchedTable(sql));
        if (unanalysed != null) {
            return unanalysed;
        }
        misses.increment();
        return seenTexts.again(sql) ? cache.get(sql, this::analyze) : planFirstSeen(sql);
    }

    /**
     * A text not seen lately ({@link SeenTexts}): a text with literals that its shape plans takes no
     * text-cache entry (string-built SQL, whose literals differ at every execution, would only
     * insert and evict entries); any other text is cached by its text, as a text seen again is.
     */
    private FencePlan planFirstSeen(String sql) {
        AnalysisBudget budget = budget();
        try {
            SqlTokens tokens = SqlTokens.lex(sql, dialect, budget);
            ShapeCache.Shape shape = ShapeCache.shapeOf(sql, tokens, namesWatched);
            FencePlan byShape = shape == null || shape.literals().length == 0 ? null
                    : shapes.plan(sql, shape, key -> analyzeFully(key, null, budget));
            if (byShape != null) {
                return byShape;
            }
        } catch (AnalysisBudget.ExhaustedException | StackOverflowError e) {
            return unanalysable(sql, e);
        } catch (SqlTokens.UnreadableSqlException | RuntimeException e) {
            // the analysis reads it again, and decides
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
        if (schemaKnown || sql == null || StatementHead.startsWithAny(sql, StatementHead.TRANSACTION_CONTROL)) {
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
            for (String name : learned.watchedNames()) {
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

    /**
     * How many texts missed the text cache and were not passed by the pre-filter: each was planned
     * by its shape or analysed in full.
     */
    public long misses() {
        return misses.sum();
    }

    /** How many analysed texts are cached now. */
    public int cachedPlans() {
        return cache.size();
    }

    /** How many texts this analyzer has analysed (each a plan-cache miss) so far. */
    public long analyses() {
        return analyses.get();
    }

    /**
     * How many spliced texts had their fences proved by the token proof so far: from the first
     * parse's tokens, or from the recognizer's spans of the same tokens.
     */
    public long spliceProofsFromParse() {
        return spliceProofsFromParse.sum();
    }

    /** How many statements the recognizer of common shapes read instead of JSqlParser so far. */
    public long recognizedStatements() {
        return recognizedStatements.sum();
    }

    /** How many spliced texts JSqlParser's lexer read again so far (no cheap proof, or several statements). */
    public long spliceRereads() {
        return spliceRereads.sum();
    }

    /**
     * A text-cache miss: the plan by the text's shape when the shape rule admits the text (only the
     * first text of a shape is analysed), else the full analysis. All of it, the shape's templates
     * included, spends one {@link AnalysisBudget} of {@code fencing.parse-timeout-millis}: a text
     * that would take longer is refused.
     */
    private FencePlan analyze(String sql) {
        AnalysisBudget budget = budget();
        try {
            SqlTokens tokens;
            try {
                tokens = SqlTokens.lex(sql, dialect, budget);
            } catch (AnalysisBudget.ExhaustedException e) {
                throw e;
            } catch (SqlTokens.UnreadableSqlException | RuntimeException e) {
                return analyzeFully(sql, null, budget);
            }
            // the test switch changes every template: no shape is made or used under it
            FencePlan byShape = !options.rewrite() ? null : planByShape(sql, tokens, budget);
            if (byShape != null) {
                FencePlan plan = byShape.withSeveralStatements(tokens.holdsSeveralStatements());
                plan.preparedSql(); // kept by its text: its database text is derived now, once, not at each send
                return plan;
            }
            return analyzeFully(sql, tokens, budget);
        } catch (AnalysisBudget.ExhaustedException | StackOverflowError e) {
            return unanalysable(sql, e);
        }
    }

    /** A budget of {@code fencing.parse-timeout-millis} from now, for the analysis of one text. */
    private AnalysisBudget budget() {
        return new AnalysisBudget(config.parseTimeoutMillis(), options.clock());
    }

    private FencePlan planByShape(String sql, SqlTokens tokens, AnalysisBudget budget) {
        ShapeCache.Shape shape = ShapeCache.shapeOf(sql, tokens, namesWatched);
        return shape == null ? null : shapes.plan(sql, shape, key -> analyzeFully(key, null, budget));
    }

    /**
     * The plan the shape path gives {@code sql}, or null when the shape rule sends it to the full
     * analysis. Not cached by text; for the proof that both paths agree.
     */
    public FencePlan shapePlan(String sql) {
        AnalysisBudget budget = budget();
        try {
            return planByShape(sql, SqlTokens.lex(sql, dialect, budget), budget);
        } catch (SqlTokens.UnreadableSqlException e) {
            return null;
        } catch (AnalysisBudget.ExhaustedException | StackOverflowError e) {
            return unanalysable(sql, e);
        }
    }

    /** The full analysis of {@code sql}, cached nowhere; for the proof that both paths agree. */
    public FencePlan fullAnalysis(String sql) {
        try {
            return analyzeFully(sql, null, budget());
        } catch (AnalysisBudget.ExhaustedException | StackOverflowError e) {
            return unanalysable(sql, e);
        }
    }

    /** How many characters JSqlParser was given to parse so far, over every analysis of this analyzer. */
    public long parsedCharacters() {
        return parser.parsedCharacters();
    }

    /** The refusal of a text whose analysis ran out of its budget or of stack. */
    private FencePlan unanalysable(String sql, Throwable e) {
        String reason = e instanceof AnalysisBudget.ExhaustedException ? e.getMessage() : SqlParser.reason(e);
        return FencePlan.refused(sql, firstConfiguredTable(), reason + "; nothing was sent");
    }

    /** How many shapes have a template now. */
    public int cachedShapes() {
        return shapes.size();
    }

    /**
     * The full analysis of {@code sql} within {@code budget}; {@link AnalysisBudget.ExhaustedException}
     * (and a stack overflow) end the text's analysis as a whole, so they reach the caller.
     */
    private FencePlan analyzeFully(String sql, SqlTokens lexed, AnalysisBudget budget) {
        analyses.incrementAndGet();
        try {
            SchemaFacts known = facts;
            AnalysisContext context = new AnalysisContext(config, dialect, fencedTables, known, filter,
                    cascadeParentFilter, parser, budget);
            TextAnalysis.Result analysis = TextAnalysis.analyze(context, new TextAnalysis.Options(!options.rewrite(),
                    options.crossCheckSpliceProof(), fenceSlot, spliceProofsFromParse, spliceRereads,
                    options.recognizeCommonShapes(), recognizedStatements), sql, lexed);
            FencePlan plan = guardScopeChecked(sql, analysis.plan(), analysis.tokens(), known, budget);
            boolean changesSchema = analysis.changesSchema() || PreFilter.changesSchema(sql);
            return changesSchema ? plan.withSchemaChange() : plan;
        } catch (AnalysisBudget.ExhaustedException | StackOverflowError e) {
            throw e;
        } catch (RuntimeException e) {
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
    private FencePlan guardScopeChecked(String sql, FencePlan plan, SqlTokens tokens, SchemaFacts known,
                                        AnalysisBudget budget) {
        if (!guard || !plan.checkedByGuard() || plan.kind() == FencePlan.Kind.REFUSED) {
            return plan;
        }
        if (tokens == null) {
            try {
                tokens = SqlTokens.lex(sql, dialect, budget);
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

    private String firstConfiguredTable() {
        return fencedTables.names().iterator().next().toString();
    }
}
