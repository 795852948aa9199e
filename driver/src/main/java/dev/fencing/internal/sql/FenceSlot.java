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
        return guardRequired && dialect == Dialect.POSTGRESQL ? POSTGRES_CARRIED : PLAIN;
    }

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
