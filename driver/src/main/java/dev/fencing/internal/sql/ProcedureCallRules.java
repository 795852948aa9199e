package dev.fencing.internal.sql;

import dev.fencing.FencingConfig;

/**
 * Procedure calls, dynamic SQL and MariaDB compound statements: code whose writes no reading of
 * the text can see. Checked by the database guard when it is required; else refused when they
 * mention a fenced table or under {@code procedure-calls=reject}, and sent with a warning otherwise.
 */
final class ProcedureCallRules {

    private ProcedureCallRules() {
    }

    /**
     * A procedure call or dynamic SQL: checked by the database guard when it is required;
     * else refused when it mentions a fenced table or under {@code procedure-calls=reject},
     * and sent unchecked with a warning otherwise.
     */
    static Decision dynamicStatement(AnalysisContext context, StatementView statement) {
        if (context.guard()) {
            // runs under the caller's fence; the triggers check whatever it writes
            return new Decision.GuardChecked(null);
        }
        if (statement.names()) {
            return Decision.refuse("a procedure call or dynamic SQL that mentions a fenced table (even inside a string)"
                    + " cannot be analysed");
        }
        if (context.rejectsProcedureCalls()) {
            return Decision.refuse("procedure calls and dynamic SQL (CALL, EXECUTE IMMEDIATE, DO, PREPARE, {call ..}) may"
                    + " write fenced tables unseen, and " + FencingConfig.PROCEDURE_CALLS + "=reject");
        }
        AnalysisContext.LOG.log(System.Logger.Level.WARNING, "fencing-jdbc cannot see what this procedure call or"
                + " dynamic SQL writes; it is sent unchecked ({0}=allow): {1}", FencingConfig.PROCEDURE_CALLS,
                AnalysisContext.abbreviate(statement.sql()));
        return Decision.PASS;
    }

    /**
     * True when the text holds a MariaDB compound statement ({@code BEGIN NOT ATOMIC .. END},
     * {@code IF}, {@code CASE}, {@code LOOP}, {@code WHILE}, {@code REPEAT}, {@code FOR}, a
     * labelled block) or a stored program's body: the server reads it as one statement whose
     * inner statements, split here at their semicolons, would be judged by their first word.
     */
    static boolean isMariaDbCompound(SqlTokens tokens) {
        for (int i = 0; i < tokens.size(); i++) {
            boolean head = i == 0 || (tokens.kind(i - 1) == SqlTokens.SEMICOLON && tokens.depth(i - 1) == 0);
            if (head && (StatementHead.isAnyWord(tokens, i, StatementHead.COMPOUND) || (tokens.isIdentifier(i)
                    && i + 1 < tokens.size() && tokens.kind(i + 1) == SqlTokens.OPERATOR && tokens.text(i + 1).equals(":")))) {
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
    static FencePlan compound(AnalysisContext context, String sql, SqlTokens tokens) {
        String table = context.firstConfiguredTable();
        if (context.mentionsWatchedTable(sql)) {
            return FencePlan.refused(sql, table, "a MariaDB compound statement (BEGIN NOT ATOMIC, IF, CASE, LOOP, "
                    + "WHILE, REPEAT, FOR, a labelled block, or a stored program's body) that mentions a fenced table "
                    + "(even inside a string) cannot be analysed; nothing was sent");
        }
        boolean definition = tokens.isWord(0, "CREATE");
        Decision execute = definition ? Decision.PASS : HiddenWriteRules.sqlLevelExecute(context,
                new StatementView(sql, tokens, 0, tokens.size(), 0, sql.length(), false));
        if (execute instanceof Decision.Refuse refuse) {
            return FencePlan.refused(sql, table, refuse.reason() + "; nothing was sent");
        }
        if (!definition && context.rejectsProcedureCalls()) {
            return FencePlan.refused(sql, table, "a MariaDB compound statement may write fenced tables unseen "
                    + "(EXECUTE IMMEDIATE of a built string, for one), and " + FencingConfig.PROCEDURE_CALLS
                    + "=reject; nothing was sent");
        }
        if (!definition) {
            AnalysisContext.LOG.log(System.Logger.Level.WARNING, "fencing-jdbc cannot see what this compound statement"
                    + " writes; it is sent unchecked ({0}=allow): {1}", FencingConfig.PROCEDURE_CALLS,
                    AnalysisContext.abbreviate(sql));
        }
        return context.epochTables() ? FencePlan.transactionControl(sql) : FencePlan.passThrough(sql);
    }
}
