package dev.fencing.internal.sql;

/**
 * How a fence placeholder is written into the database's text of a spliced write: the plain
 * parameter ({@code ?}, or the {@code long} rendered as a literal), or, when the PostgreSQL database
 * guard is required, an expression that also hands the fence to the guard's trigger inside the
 * statement itself.
 *
 * <p>The carrying form is an uncorrelated scalar subquery that calls
 * {@code set_config('fencing.fence', .., true)} and {@code set_config('fencing.migration', '', true)}:
 * PostgreSQL evaluates it (an InitPlan) before the first row reaches a BEFORE ROW trigger, whether
 * it sits in an UPDATE's or DELETE's WHERE, a SET list, a VALUES row, an INSERT .. SELECT or an
 * ON CONFLICT .. DO UPDATE (PostgresCarriedFenceTest proves the order on the server). Both settings
 * are transaction-local, so they end with the statement's transaction whatever happens to it, and a
 * migration mark that a raw script left in the session does not cover the statement. The value is
 * the fence itself, so the spliced comparison and the column assignment read what they read before.
 */
public enum FenceSlot {
    /** {@code ?}: the fence reaches the database as the spliced check's value only. */
    PLAIN("?", "", ""),
    /** PostgreSQL with the database guard: the spliced check's value also sets the guard's settings. */
    POSTGRES_CARRIED("(SELECT " + PostgresGuardSettings.FENCE_FUNCTION + "('" + PostgresGuardSettings.FENCE
            + "', CAST(? AS text), true) || " + PostgresGuardSettings.FENCE_FUNCTION + "('"
            + PostgresGuardSettings.MIGRATION + "', '', true))::bigint",
            "(SELECT " + PostgresGuardSettings.FENCE_FUNCTION + "('" + PostgresGuardSettings.FENCE + "', '",
            "', true) || " + PostgresGuardSettings.FENCE_FUNCTION + "('" + PostgresGuardSettings.MIGRATION
                    + "', '', true))::bigint");

    private final String prepared;
    private final String literalBefore;
    private final String literalAfter;

    FenceSlot(String prepared, String literalBefore, String literalAfter) {
        this.prepared = prepared;
        this.literalBefore = literalBefore;
        this.literalAfter = literalAfter;
    }

    /** The slot of a statement that the database guard of {@code dialect} checks, or not. */
    public static FenceSlot of(Dialect dialect, boolean guardRequired) {
        return guardRequired && dialect.statementCarriesTheFenceToTheGuard() ? POSTGRES_CARRIED : PLAIN;
    }

    /**
     * The slot for the spliced write {@code tokens}: {@code slot}, unless the statement may run code
     * before the server evaluates the carrying subquery. PostgreSQL evaluates that subquery when its
     * value is first needed: a function the statement calls in its FROM list, in a condition the
     * planner tests first, or in a VALUES column before the fence column, would run earlier, with
     * no fence of the statement's own (its writes refused) or, on a session a raw script left a
     * session-level value on, with that one. Such a statement gets {@link #PLAIN}, and the driver
     * sets the fence in its transaction before sending it. Allowed: keywords that take a bracket,
     * built-in functions that write nothing, type modifiers, and the built-in operators; any other
     * word before a bracket, and any other operator (which may call a function), is code.
     */
    static FenceSlot forStatement(FenceSlot slot, SqlTokens tokens) {
        return slot == PLAIN || runsCode(tokens) ? PLAIN : slot;
    }

    /**
     * True when {@code sql} may run code of its own (a function other than the built-ins above, an
     * operator other than the built-in ones, a procedure call), by the rule above; a text that cannot
     * be read counts as code. For statements sent without a fence: the guard hands them the empty
     * values first, so that a migration mark another client left on the session cannot cover them.
     */
    public static boolean mayRunCode(String sql, Dialect dialect) {
        try {
            return runsCode(SqlTokens.lex(sql, dialect));
        } catch (SqlTokens.UnreadableSqlException | RuntimeException unreadable) {
            return true;
        }
    }

    private static boolean runsCode(SqlTokens tokens) {
        for (int i = 0; i < tokens.size(); i++) {
            byte kind = tokens.kind(i);
            if (kind == SqlTokens.OPERATOR && !SAFE_OPERATORS.contains(tokens.text(i))) {
                return true;
            }
            if (castsToAnotherType(tokens, i)) {
                // a cast to a domain runs its CHECK, to a user type its input function
                return true;
            }
            boolean head = i == 0 || tokens.kind(i - 1) == SqlTokens.SEMICOLON;
            if (head && (tokens.isWord(i, "CALL") || tokens.isWord(i, "DO") || tokens.isWord(i, "EXECUTE"))) {
                return true;
            }
            if (kind == SqlTokens.QUOTED_IDENTIFIER && i + 1 < tokens.size() && tokens.kind(i + 1) == SqlTokens.OPEN
                    && !followsInto(tokens, i)) {
                return true;
            }
            if (kind == SqlTokens.WORD && i + 1 < tokens.size() && tokens.kind(i + 1) == SqlTokens.OPEN
                    && !followsInto(tokens, i) && (!BRACKETED_WORDS.contains(tokens.text(i).toLowerCase(java.util.Locale.ROOT))
                    || i >= 2 && tokens.kind(i - 1) == SqlTokens.DOT && !tokens.isWord(i - 2, "pg_catalog"))) {
                // a name qualified with another schema than pg_catalog is the application's, whatever it is called
                return true;
            }
        }
        return false;
    }

    /** True when token {@code i} is {@code ::} or a CAST's {@code AS} followed by a type not built in. */
    private static boolean castsToAnotherType(SqlTokens tokens, int i) {
        boolean cast = tokens.kind(i) == SqlTokens.OPERATOR && "::".equals(tokens.text(i))
                || tokens.isWord(i, "AS") && i + 2 < tokens.size() && tokens.kind(i + 2) == SqlTokens.CLOSE;
        if (!cast || i + 1 >= tokens.size()) {
            return false;
        }
        if (tokens.kind(i + 1) != SqlTokens.WORD) {
            return true;
        }
        return i + 2 < tokens.size() && tokens.kind(i + 2) == SqlTokens.DOT
                || !BUILT_IN_TYPES.contains(tokens.text(i + 1).toLowerCase(java.util.Locale.ROOT));
    }

    /** PostgreSQL's own types a cast may name without running the application's code. */
    private static final java.util.Set<String> BUILT_IN_TYPES = java.util.Set.of("int", "integer", "bigint",
            "smallint", "int2", "int4", "int8", "text", "varchar", "char", "character", "numeric", "decimal", "real",
            "double", "float", "float4", "float8", "boolean", "bool", "date", "time", "timestamp", "timestamptz",
            "interval", "uuid", "json", "jsonb", "bytea", "regclass", "name", "oid");

    /** True when token {@code i} ends the table name of {@code INSERT INTO [schema.]table (columns)}. */
    private static boolean followsInto(SqlTokens tokens, int i) {
        int j = i - 1;
        while (j >= 1 && tokens.kind(j) == SqlTokens.DOT && tokens.isIdentifier(j - 1)) {
            j -= 2;
        }
        return tokens.isWord(j, "INTO");
    }

    /** Operators of PostgreSQL's own types that call no user code. */
    private static final java.util.Set<String> SAFE_OPERATORS = java.util.Set.of("=", "<", ">", "<=", ">=", "<>", "!=",
            "+", "-", "*", "/", "%", "||", "::");

    /** Keywords that take a bracket, built-in functions that write nothing, and types with modifiers. */
    private static final java.util.Set<String> BRACKETED_WORDS = java.util.Set.of(
            "values", "in", "exists", "any", "all", "some", "and", "or", "not", "where", "set", "on", "conflict",
            "using", "from", "join", "as", "select", "returning", "by", "when", "then", "else", "case", "between",
            "like", "ilike", "is", "row", "array", "update", "with", "do", "lateral", "filter", "over", "partition",
            "cast", "coalesce", "nullif", "greatest", "least", "lower", "upper", "length", "abs", "round", "trunc",
            "floor", "ceil", "substring", "substr", "trim", "btrim", "ltrim", "rtrim", "concat", "replace", "now",
            "count", "sum", "min", "max", "avg", "extract", "date_trunc", "to_char", "to_timestamp", "to_date",
            "numeric", "decimal", "varchar", "char", "character", "timestamp", "timestamptz", "time", "interval",
            "bit", "varbit");

    /** True when the slot hands the fence to the guard's trigger by itself. */
    public boolean carriesTheFence() {
        return this != PLAIN;
    }

    /** The slot in a text to prepare: one {@code ?} the fence is bound to. */
    String prepared() {
        return prepared;
    }

    /** Appends the slot with {@code fence} rendered as a literal (digits of a {@code long}, never application text). */
    void appendLiteral(StringBuilder text, String fence) {
        text.append(literalBefore).append(fence).append(literalAfter);
    }

    /** How many characters the literal form adds around the fence's digits. */
    int literalOverhead() {
        return literalBefore.length() + literalAfter.length();
    }

    /** The PostgreSQL settings the guard's triggers read: one owner for their names. */
    public static final class PostgresGuardSettings {
        public static final String FENCE = "fencing.fence";
        public static final String LOCK = "fencing.lock";
        public static final String MIGRATION = "fencing.migration";
        static final String FENCE_FUNCTION = "set_config";

        private PostgresGuardSettings() {
        }
    }
}
