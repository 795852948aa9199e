package dev.fencing.internal.cli;

import dev.fencing.FencingConfig;
import dev.fencing.internal.guard.Guards;
import dev.fencing.internal.config.ConfigSources;
import dev.fencing.internal.jdbc.ConnectionContext;
import dev.fencing.jdbc.DatabaseGuard;

import javax.sql.DataSource;
import java.io.PrintStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Properties;

/**
 * {@code guard --jdbc URL [--config FILE] print|install|verify|remove}: the database guard from the
 * command line. {@code print} writes the DDL (one statement per block, each ended by a line with a
 * single {@code ;;}, since trigger bodies contain semicolons) for review or a migration tool;
 * {@code install} is idempotent; {@code verify} exits 1 naming what is missing or outdated, and
 * prints a {@code warning:} line (exit status unchanged) for each same-named table outside the
 * schemas the guard covers. The
 * configuration is {@code --config FILE}, else the usual sources ({@code fencing.config},
 * {@code FENCING_CONFIG}, {@code fencing.properties} on the class path).
 */
final class Guard {

    static final String USAGE = "usage: java -jar " + Main.JAR + " guard --jdbc URL [--config FILE]"
            + " print|install|verify|remove";
    private static final String ACTIONS = """
              print    the statements that install or update the guard, for review or a migration tool (';;' ends each)
              install  installs or updates the guard on every fenced table, then verifies it
              verify   exits 1 naming each fenced table whose guard is missing or outdated
              remove   drops the guard
            the configuration (fencing.tables ..) is --config FILE, else fencing.config, FENCING_CONFIG or
            fencing.properties on the class path""";

    private Guard() {
    }

    /** What the command line asks for; {@code problem} says what is wrong with it instead (null: nothing). */
    private record Request(boolean help, String jdbcUrl, Path file, String action, String problem) {

        static Request problem(String problem) {
            return new Request(false, null, null, null, problem);
        }
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        Request request = parse(args);
        if (request.help()) {
            out.println(USAGE);
            out.println(ACTIONS);
            return 0;
        }
        if (request.problem() != null) {
            return usage(err, request.problem());
        }
        FencingConfig config;
        try {
            config = request.file() != null ? FencingConfig.load(request.file())
                    : ConfigSources.standard().resolve(new Properties());
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return 2;
        }
        try {
            perform(request.action(), new DriverManagerDataSource(request.jdbcUrl()), config, out);
            return 0;
        } catch (SQLException e) {
            err.println(e.getMessage());
            return 1;
        }
    }

    private static Request parse(String[] args) {
        String jdbcUrl = null;
        Path file = null;
        String action = null;
        for (int i = 0; i < args.length; i++) {
            if (Main.isHelp(args[i])) {
                return new Request(true, null, null, null, null);
            }
            switch (args[i]) {
                case "--jdbc" -> {
                    if (i + 1 >= args.length) {
                        return Request.problem("--jdbc needs a JDBC URL");
                    }
                    jdbcUrl = args[++i];
                }
                case "--config" -> {
                    if (i + 1 >= args.length) {
                        return Request.problem("--config needs a properties file");
                    }
                    file = Path.of(args[++i]);
                }
                case "print", "install", "verify", "remove" -> {
                    if (action != null) {
                        return Request.problem("one action only, got " + action + " and " + args[i]);
                    }
                    action = args[i];
                }
                default -> {
                    return Request.problem("unknown argument '" + args[i] + "'");
                }
            }
        }
        if (jdbcUrl == null || action == null) {
            return Request.problem(jdbcUrl == null ? "--jdbc is required" : "an action is required");
        }
        return new Request(false, jdbcUrl, file, action, null);
    }

    private static void perform(String action, DataSource raw, FencingConfig config, PrintStream out)
            throws SQLException {
        switch (action) {
            case "print" -> {
                List<String> ddl = DatabaseGuard.ddl(raw, config);
                out.println("-- fencing-jdbc database guard for " + config.tables() + "; statements end at ';;' lines");
                for (String statement : ddl) {
                    out.println(statement);
                    out.println(";;");
                }
            }
            case "install" -> {
                DatabaseGuard.install(raw, config);
                DatabaseGuard.verify(raw, config);
                out.println("database guard installed and verified for " + config.tables());
                printUncovered(raw, config, out);
            }
            case "verify" -> {
                DatabaseGuard.verify(raw, config);
                out.println("database guard is current for " + config.tables());
                printUncovered(raw, config, out);
            }
            default -> {
                DatabaseGuard.remove(raw, config);
                out.println("database guard removed from " + config.tables());
            }
        }
    }

    /**
     * Same-named tables outside the guard's schemas (and MariaDB cascading parents there): not
     * covered, printed as warnings; they do not change the exit status.
     */
    private static void printUncovered(DataSource raw, FencingConfig config, PrintStream out) throws SQLException {
        try (Connection connection = raw.getConnection()) {
            for (String warning : Guards.uncovered(connection, ConnectionContext.dialectOf(connection), config)) {
                out.println("warning: " + warning);
            }
        }
    }

    private static int usage(PrintStream err, String problem) {
        err.println(problem);
        err.println(USAGE);
        return 2;
    }
}
