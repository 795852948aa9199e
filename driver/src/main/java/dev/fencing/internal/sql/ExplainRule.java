package dev.fencing.internal.sql;

import net.sf.jsqlparser.statement.Statement;

import java.util.Locale;

/**
 * {@code EXPLAIN} (and MariaDB's {@code ANALYZE stmt}, {@code DESCRIBE}) is classified by what
 * it explains: a read is a read; a write is a read too when it is only planned, but refused
 * when the wrapper runs it ({@code ANALYZE}), since the check cannot be carried there. A bare
 * {@code ANALYZE table} only gathers statistics.
 */
final class ExplainRule {

    private static final String[] EXPLAINED_HEADS = {"SELECT", "WITH", "VALUES", "TABLE", "INSERT", "UPDATE",
            "DELETE", "MERGE", "REPLACE", "UPSERT", "EXECUTE", "CREATE", "DECLARE"};

    private ExplainRule() {
    }

    static boolean isExplain(Dialect dialect, SqlTokens tokens, int head) {
        return tokens.isWord(head, "EXPLAIN") || tokens.isWord(head, "ANALYZE") || tokens.isWord(head, "ANALYSE")
                || (dialect.describeExplains() && (tokens.isWord(head, "DESCRIBE") || tokens.isWord(head, "DESC")));
    }

    /**
     * {@link Decision#PASS} (statistics, DESCRIBE of a table, a plan only, nothing fenced in sight,
     * or a run of a statement that writes nothing fenced) or a {@link Decision.Refuse}.
     *
     * @param parserText the text JSqlParser reads for {@code [from, to)} of the whole text
     */
    static Decision decide(AnalysisContext context, StatementView statement, ParserText parserText) {
        int head = statement.from();
        int to = statement.to();
        int inner = explained(statement);
        if (inner < 0 || inner >= to || !statement.names()) {
            return Decision.PASS; // statistics, DESCRIBE of a table, or nothing fenced in sight
        }
        boolean runs = !statement.isWord(head, "EXPLAIN") && !statement.isWord(head, "DESCRIBE")
                && !statement.isWord(head, "DESC") || statement.sql().substring(statement.rawFrom(),
                statement.tokens().start(inner)).toLowerCase(Locale.ROOT).contains("analy");
        if (!runs) {
            return Decision.PASS; // only planned: nothing is executed
        }
        String refusal = "EXPLAIN ANALYZE runs the statement it explains, and the fence check cannot be carried "
                + "there; EXPLAIN it without ANALYZE, or run it through an unfenced connection";
        Statement parsed;
        try {
            parsed = context.parser().parse(parserText.of(statement.tokens().start(inner), statement.rawTo()),
                    context.budget());
        } catch (SqlParser.UnparseableSqlException e) {
            return Decision.refuse(refusal + " (the explained statement cannot be read: " + e.getMessage() + ")");
        }
        ParsedWrites writes = ParsedWrites.of(parsed, context.config().column());
        if (!writes.understood || !writes.selectIntoTargets.isEmpty()
                || WriteSites.countStatementHeads(statement.tokens(), inner, to) > 0) {
            return Decision.refuse(refusal);
        }
        for (ParsedWrites.ParsedWrite write : writes.writes) {
            if (context.fencedTables().fencedTableFor(write.target()) != null
                    || context.facts().cascadeInto(write.target(), SchemaFacts.DELETE | SchemaFacts.UPDATE) != null
                    || context.facts().sharesRows(write.target()) != null) {
                return Decision.refuse(refusal);
            }
        }
        return writes.writes.isEmpty() ? Decision.PASS : Decision.refuse(refusal);
    }

    /** The first token of the explained statement; -1 for {@code ANALYZE TABLE ..} (statistics). */
    private static int explained(StatementView statement) {
        int head = statement.from();
        int inner = head + 1;
        if ((statement.isWord(head, "ANALYZE") || statement.isWord(head, "ANALYSE")) && (statement.isWord(inner, "TABLE")
                || statement.isWord(inner, "LOCAL") || statement.isWord(inner, "NO_WRITE_TO_BINLOG"))) {
            return -1;
        }
        SqlTokens tokens = statement.tokens();
        while (inner < statement.to() && !statement.isAnyWord(inner, EXPLAINED_HEADS)) {
            if (tokens.kind(inner) == SqlTokens.OPEN && statement.isAnyWord(inner + 1, EXPLAINED_HEADS)) {
                break;
            }
            inner = tokens.kind(inner) == SqlTokens.OPEN ? statement.closeOf(inner) + 1 : inner + 1;
        }
        return inner;
    }
}
