package dev.fencing.internal.cli;

import dev.fencing.FencingConfig;
import dev.fencing.internal.config.ConfigKey;
import dev.fencing.internal.sql.Dialect;
import dev.fencing.internal.sql.FencePlan;
import dev.fencing.internal.sql.StatementAnalyzer;
import dev.fencing.internal.sql.ZeroRowCheck;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.Locale;

/** Prints what fencing-jdbc does to a SQL text: the statement the database receives and the parameter map. */
final class Explain {

    private Explain() {
    }

    static String explain(FencingConfig config, Dialect dialect, String sql) {
        FencePlan plan = new StatementAnalyzer(config, dialect).plan(sql);
        StringBuilder out = new StringBuilder();
        out.append("dialect:    ").append(dialect.name().toLowerCase(Locale.ROOT)).append('\n');
        out.append("input:      ").append(sql).append('\n');
        switch (plan.kind()) {
            case PASS_THROUGH -> out.append("outcome:    sent unchanged (names no fenced table); no fence needed\n");
            case READ -> out.append("outcome:    sent unchanged (reads fenced table ").append(plan.fencedTable())
                    .append(" but writes none); no fence needed\n");
            case REFUSED -> out.append("outcome:    REFUSED with UnfenceableStatementException, nothing sent\n")
                    .append("reason:     ").append(plan.refusalReason()).append('\n');
            case FENCED -> {
                out.append("outcome:    fenced write to ").append(plan.fencedTable())
                        .append("; without a fence in scope: MissingFenceException, nothing sent\n");
                if (plan.writesEpochTable()) {
                    out.append("epoch:      writes an epoch-mode table: the transaction first checks and locks the guard "
                            + "row of the fence's lock in ").append(config.epochTable()).append('\n');
                }
                out.append("database:   ").append(plan.preparedSql()).append('\n');
                out.append("parameters: ");
                if (plan.parameterCount() == 0) {
                    out.append("(none of the application's)");
                }
                for (int i = 1; i <= plan.parameterCount(); i++) {
                    out.append(i == 1 ? "" : ", ").append(i).append(" -> ").append(plan.databaseIndex(i));
                }
                out.append('\n');
                out.append("fence at:   ").append(Arrays.toString(plan.fenceIndexes())).append('\n');
                out.append("plain Statement with fence 42: ").append(plan.renderWithFence(42)).append('\n');
                ZeroRowCheck check = plan.zeroRowCheck();
                out.append("zero rows:  ").append(check != null && check.method() == ZeroRowCheck.Method.KEYS_AFTER_STATEMENT
                        ? (check.expectedRows() < 0 ? "after it ran" : "when fewer than " + check.expectedRows()
                        + " rows changed") + ", stale when a row its writes name by key holds a newer fence: "
                        + check.query() + (check.more() == null ? "" : " (and more queries)") + " (application parameters "
                        + Arrays.toString(check.queryParameters()) + ")"
                        : config.onZeroRows() == FencingConfig.ZeroRows.RAISE
                        ? "raise StaleFenceException"
                        : check == null ? "returned as the database reported (no diagnosis for this form)"
                        : check.method() == ZeroRowCheck.Method.EXPECTED_ROWS
                        ? "stale when fewer than " + check.expectedRows() + " rows changed"
                        : "diagnosed with: " + check.query() + " (application parameters "
                        + Arrays.toString(check.queryParameters()) + ")").append('\n');
            }
        }
        return out.toString();
    }

    /**
     * The configuration key a command-line flag sets: every key of {@link ConfigKey} is a flag, its
     * name without {@code fencing.} ({@code --tables}, {@code --table.orders.mode}); null when the
     * argument is no such flag.
     */
    static ConfigKey keyOfFlag(String argument) {
        return argument.startsWith("--") ? ConfigKey.find(ConfigKey.PREFIX + argument.substring(2)) : null;
    }

    static void printUsage(PrintStream out) {
        out.println("usage: java -jar " + Main.JAR + " explain [--dialect postgresql|h2|mariadb|generic] [OPTIONS] SQL");
        out.println("options (each a fencing.* configuration key without its prefix):");
        for (ConfigKey key : ConfigKey.values()) {
            String flag = "--" + key.key().substring(ConfigKey.PREFIX.length());
            out.println("  " + flag + " " + (key.kind() == ConfigKey.Kind.CHOICE ? String.join("|", key.choices())
                    : key.kind().name()) + (key.defaultValue() == null ? "" : "  (default " + key.defaultValue() + ")"));
        }
    }
}
