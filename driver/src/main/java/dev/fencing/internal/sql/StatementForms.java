package dev.fencing.internal.sql;

/**
 * What the analysis must know of a database's statement grammar: forms only some databases have,
 * and how they end or run. Each answer here is the standard one; {@link Dialect}'s constants
 * override what differs, so that each rule has one owner and the analysis never asks which
 * database it reads.
 */
public interface StatementForms {

    /**
     * True when functions change large objects, which live outside every table ({@code lo_put},
     * {@code lowrite} .. on PostgreSQL): no row's fence and no trigger sees such a change.
     */
    default boolean writesLargeObjectsByFunction() {
        return false;
    }

    /** True when {@code DESCRIBE} and {@code DESC} explain a statement as {@code EXPLAIN} does (MariaDB). */
    default boolean describeExplains() {
        return false;
    }

    /** True when {@code set_config(name, value, local)} sets any setting, the guard's too (PostgreSQL). */
    default boolean hasSetConfig() {
        return false;
    }

    /**
     * True when whether a backslash escapes in a string depends on session settings the text can
     * change (PostgreSQL's {@code standard_conforming_strings}, MariaDB's {@code NO_BACKSLASH_ESCAPES});
     * H2's strings never take backslash escapes.
     */
    default boolean backslashEscapingDependsOnSession() {
        return true;
    }

    /**
     * True when an UPDATE's assignments and an UPDATE's or DELETE's WHERE end only at {@code ORDER BY},
     * {@code LIMIT} (and DELETE's {@code RETURNING}): MariaDB's single-table forms have no
     * {@code FROM}, {@code OFFSET} or {@code FETCH} after them.
     */
    default boolean rowChangeTailIsOrderByLimit() {
        return false;
    }

    /** True when a DELETE may name the table it deletes from before {@code FROM} ({@code DELETE o FROM orders o}, MariaDB). */
    default boolean deleteMayNameItsTargetBeforeFrom() {
        return false;
    }

    /** True when {@code orders *} after UPDATE or DELETE names the table and its inheritance children (PostgreSQL). */
    default boolean starAfterTableNameMeansDescendants() {
        return false;
    }

    /** True when a write takes modifier words before its target ({@code LOW_PRIORITY}, {@code IGNORE} .., MariaDB). */
    default boolean writesTakeModifierWords() {
        return false;
    }

    /** True when {@code TRUNCATE .. CASCADE} also empties the tables that reference the ones named (PostgreSQL). */
    default boolean truncateMayCascade() {
        return false;
    }

    /** True when {@code FINAL TABLE (UPDATE ..)} and the like run a write inside a query (H2's data-change delta tables). */
    default boolean dataChangeDeltaTables() {
        return false;
    }

    /**
     * True when {@code EXECUTE IMMEDIATE} runs a string as SQL (MariaDB, H2), read as dynamic SQL;
     * PostgreSQL has no such statement.
     */
    default boolean executeImmediateRunsAString() {
        return true;
    }

    /**
     * True when a text may be one compound statement outside a stored program ({@code BEGIN NOT
     * ATOMIC .. END}, {@code IF}, {@code LOOP} .., MariaDB): its inner statements are not statements
     * of the text.
     */
    default boolean compoundStatementsInTexts() {
        return false;
    }

    /** True when the JDBC driver sends {@code ??} as the one character {@code ?} (pgjdbc's escape, PostgreSQL). */
    default boolean driverSendsDoubledQuestionMarkAsOne() {
        return false;
    }

    /** True when {@code SET STATEMENT .. FOR} runs the statement after {@code FOR} (MariaDB). */
    default boolean setStatementForRunsAStatement() {
        return false;
    }

    /**
     * True when a statement can hand its own fence to the database guard's trigger in a subquery
     * ({@code set_config(.., true)}, transaction-local, PostgreSQL), so nothing is set before it is sent.
     */
    default boolean statementCarriesTheFenceToTheGuard() {
        return false;
    }

    /** The type a fence value is cast to in SQL ({@code CAST(? AS ..)}): MariaDB has no {@code BIGINT} cast. */
    default String fenceCastType() {
        return "BIGINT";
    }
}
