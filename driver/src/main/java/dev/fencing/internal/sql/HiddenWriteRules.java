package dev.fencing.internal.sql;

import dev.fencing.FencingConfig;
import dev.fencing.internal.config.TableName;

import java.util.Locale;
import java.util.Set;

/**
 * Writes no reading of the statement can see: PostgreSQL's {@code TRUNCATE .. CASCADE} into fenced
 * tables, names spelled with Unicode escapes, H2's data-change delta tables, large-object writes,
 * executable comments, SQL-level {@code EXECUTE}. Each rule answers
 * {@link Decision#PASS} or a {@link Decision.Refuse}.
 */
final class HiddenWriteRules {

    /**
     * PostgreSQL's server-side functions that change or remove an existing large object, and the
     * catalog tables that hold large objects.
     */
    private static final Set<String> LARGE_OBJECT_WRITES = Set.of("lo_put", "lowrite", "lo_truncate", "lo_truncate64",
            "lo_unlink", "pg_largeobject", "pg_largeobject_metadata");

    /** The words before {@code TABLE (write)} that make an H2 data-change delta table. */
    private static final String[] DELTA_TABLES = {"FINAL", "NEW", "OLD"};

    private HiddenWriteRules() {
    }

    /** The first of the rules below that refuses the statement, else {@link Decision#PASS}. */
    static Decision decide(AnalysisContext context, StatementView statement) {
        Decision truncate = truncateCascade(context, statement);
        if (truncate.refuses()) {
            return truncate;
        }
        Decision unicodeName = unicodeEscapedName(statement);
        if (unicodeName.refuses()) {
            return unicodeName;
        }
        Decision deltaTable = deltaTable(context, statement);
        if (deltaTable.refuses()) {
            return deltaTable;
        }
        Decision largeObject = largeObjectWrite(context, statement);
        if (largeObject.refuses()) {
            return largeObject;
        }
        SqlTokens tokens = statement.tokens();
        for (int i = statement.from(); i < statement.to(); i++) {
            if (tokens.kind(i) == SqlTokens.EXECUTABLE_COMMENT && (statement.names() || context.rejectsProcedureCalls())) {
                return Decision.refuse("an executable comment (/*! .. */) in a statement that mentions a fenced table (or with "
                        + FencingConfig.PROCEDURE_CALLS + "=reject) cannot be analysed");
            }
        }
        return sqlLevelExecute(context, statement);
    }

    /**
     * PostgreSQL's {@code TRUNCATE .. CASCADE} also empties every table that references the
     * ones it names, at any depth: refused when a fenced table is among them.
     */
    private static Decision truncateCascade(AnalysisContext context, StatementView statement) {
        int from = statement.from();
        if (!context.dialect().truncateMayCascade() || !statement.isWord(from, "TRUNCATE")) {
            return Decision.PASS;
        }
        boolean cascade = false;
        for (int i = from; i < statement.to(); i++) {
            cascade |= statement.isWord(i, "CASCADE");
        }
        if (!cascade) {
            return Decision.PASS;
        }
        SqlTokens tokens = statement.tokens();
        for (int i = from + 1; i < statement.to(); i++) {
            if (tokens.isIdentifier(i) && context.facts().referencedByFencedTable(TableName.of(null, tokens.identifier(i)))) {
                return new Decision.Refuse(context.firstConfiguredTable(), "TRUNCATE .. CASCADE of " + tokens.identifier(i)
                        + " also empties the fenced tables that reference it; delete the fenced rows with fenced"
                        + " statements instead");
            }
        }
        return Decision.PASS;
    }

    /**
     * A Unicode-escaped name ({@code U&".."}, PostgreSQL and H2) can spell any name: a fenced
     * table's, one whose writes cascade into a fenced table, a large-object function's. The
     * analysis compares names as written and does not decode them, so such a name is refused in
     * every statement it reads (the name filter sends every text holding one to the analysis).
     */
    private static Decision unicodeEscapedName(StatementView statement) {
        SqlTokens tokens = statement.tokens();
        for (int i = statement.from(); i < statement.to(); i++) {
            if (tokens.isUnicodeEscapedName(i)) {
                return Decision.refuse("the Unicode-escaped name " + AnalysisContext.abbreviate(tokens.text(i))
                        + " can spell any name (a fenced table's, a large-object function's), and fencing-jdbc compares"
                        + " names as written; write the name without Unicode escapes (plain or in ordinary double quotes)");
            }
        }
        return Decision.PASS;
    }

    /**
     * H2's data-change delta tables, {@code FINAL TABLE (UPDATE ..)}, {@code NEW TABLE (INSERT ..)},
     * {@code OLD TABLE (DELETE ..)}: a write inside a query's FROM clause, which neither reading of
     * the writes follows (JSqlParser cannot parse it), so no splice into it can be proved. Refused
     * in a statement that mentions a fenced table or a table whose writes cascade into one.
     */
    private static Decision deltaTable(AnalysisContext context, StatementView statement) {
        if (!context.dialect().dataChangeDeltaTables() || !statement.names()) {
            return Decision.PASS;
        }
        SqlTokens tokens = statement.tokens();
        for (int i = statement.from(); i + 2 < statement.to(); i++) {
            if (statement.isAnyWord(i, DELTA_TABLES) && statement.isWord(i + 1, "TABLE")
                    && tokens.kind(i + 2) == SqlTokens.OPEN) {
                String construct = tokens.text(i).toUpperCase(Locale.ROOT) + " TABLE (..)";
                return Decision.refuse("H2's data-change delta table " + construct + " runs the write inside it, where"
                        + " the fence check cannot be proved; run the write as a statement of its own, then read the"
                        + " rows with a SELECT");
            }
        }
        return Decision.PASS;
    }

    /**
     * PostgreSQL's ways to change an existing large object: the functions of
     * {@link #LARGE_OBJECT_WRITES}, named anywhere (called, or wrapped in an operator or a cast),
     * and the catalog tables that hold large objects (a superuser may write them). A large
     * object lives outside every fenced table: the row that refers to it keeps its fence, and no
     * trigger sees the change, so the database guard cannot check it either ({@code U&".."}
     * names, which can spell them, are refused before: {@link #unicodeEscapedName}). Refused when the statement mentions a
     * fenced table, under {@code procedure-calls=reject} and when the guard is required (which
     * promises that every write is checked); else sent with a warning, as a procedure call is.
     * Creating a new large object (lo_from_bytea, lo_create, lo_import) is not a write to
     * anything a row refers to yet.
     */
    private static Decision largeObjectWrite(AnalysisContext context, StatementView statement) {
        if (!context.dialect().writesLargeObjectsByFunction() || !PreFilter.mayWriteLargeObject(statement.sql())) {
            return Decision.PASS;
        }
        SqlTokens tokens = statement.tokens();
        for (int i = statement.from(); i < statement.to(); i++) {
            if (!tokens.isIdentifier(i) || !LARGE_OBJECT_WRITES.contains(tokens.identifier(i))) {
                continue;
            }
            String name = tokens.text(i);
            if (statement.names() || context.guard() || context.rejectsProcedureCalls()) {
                return Decision.refuse("the large-object function or catalog " + name + " changes large objects outside"
                        + " every table, where neither the fence check nor the database guard sees it (refused in a"
                        + " statement that mentions a fenced table, with " + FencingConfig.DATABASE_GUARD
                        + "=required and with " + FencingConfig.PROCEDURE_CALLS + "=reject); write a new large"
                        + " object instead and store its oid with a fenced UPDATE of the row");
            }
            AnalysisContext.LOG.log(System.Logger.Level.WARNING, "fencing-jdbc cannot check this large-object write"
                    + " ({0}); it is sent unchecked ({1}=allow): {2}", name, FencingConfig.PROCEDURE_CALLS,
                    AnalysisContext.abbreviate(statement.sql()));
            return Decision.PASS;
        }
        return Decision.PASS;
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
    static Decision sqlLevelExecute(AnalysisContext context, StatementView statement) {
        if (context.guard()) {
            // the server-side statement runs under the session's fence, and the triggers check it
            return Decision.PASS;
        }
        SqlTokens tokens = statement.tokens();
        int from = statement.from();
        for (int i = from; i < statement.to(); i++) {
            if (tokens.kind(i) == SqlTokens.EXECUTABLE_COMMENT
                    && tokens.text(i).toLowerCase(Locale.ROOT).contains("execute")) {
                return Decision.refuse("an executable comment (/*! .. */) that holds EXECUTE cannot be analysed");
            }
            if (!tokens.isWord(i, "EXECUTE") || executeThatRunsNothingNow(context, statement, i)) {
                continue;
            }
            return Decision.refuse("SQL-level EXECUTE of a server-side prepared statement (also under EXPLAIN or in"
                    + " CREATE TABLE .. AS) may run the driver's own fenced statements with fence values of the caller's"
                    + " choice; it is refused on connections with fenced tables under both "
                    + FencingConfig.PROCEDURE_CALLS + " values; prepare the statement through JDBC instead, or require the"
                    + " database guard (fencing.database-guard=required) so that the database checks what it runs");
        }
        return Decision.PASS;
    }

    /** EXECUTE IMMEDIATE (MariaDB, H2), GRANT/REVOKE EXECUTE, a trigger's EXECUTE FUNCTION|PROCEDURE. */
    private static boolean executeThatRunsNothingNow(AnalysisContext context, StatementView statement, int i) {
        int from = statement.from();
        if (context.dialect().executeImmediateRunsAString() && statement.isWord(i + 1, "IMMEDIATE")) {
            return true;
        }
        if (statement.isWord(from, "GRANT") || statement.isWord(from, "REVOKE")
                || (statement.isWord(from, "ALTER") && statement.isWord(from + 1, "DEFAULT"))) {
            return true;
        }
        return statement.isWord(from, "CREATE") && i > from && !statement.isWord(i - 1, "AS")
                && (statement.isWord(i + 1, "FUNCTION") || statement.isWord(i + 1, "PROCEDURE"));
    }
}
