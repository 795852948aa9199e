package dev.fencing.internal.guard;

import dev.fencing.internal.config.FencedTableSet;
import dev.fencing.FencingConfig;
import dev.fencing.FencingException;
import dev.fencing.internal.config.TableName;
import dev.fencing.internal.sql.Dialect;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** The guard's operations on one raw connection, dispatched by dialect; behind {@link dev.fencing.jdbc.DatabaseGuard}. */
public final class Guards {

    private static final System.Logger LOG = System.getLogger(Guards.class.getName());

    private Guards() {
    }

    static DialectGuard of(Dialect dialect) throws FencingException {
        // the one mapping from a dialect to its guard: the dialect (internal.sql) cannot name the
        // guard classes, which depend on it; what the guard needs of the database it asks the dialect
        return switch (dialect) {
            case POSTGRESQL -> new PostgresGuard();
            case MARIADB -> new MariaDbGuard();
            case H2 -> new H2Guard();
            default -> throw new FencingException("the database guard supports PostgreSQL, MariaDB/MySQL and H2;"
                    + " this database is none of them, so no guard can be installed or verified");
        };
    }

    public static List<String> ddl(Connection raw, Dialect dialect, FencingConfig config) throws SQLException {
        DialectGuard guard = of(dialect);
        return guard.install(raw, guard.targets(raw, config), config);
    }

    /** Installs (or upgrades) the guard: what {@link #ddl} returns and the role may run, in one transaction. */
    public static void install(Connection raw, Dialect dialect, FencingConfig config) throws SQLException {
        DialectGuard guard = of(dialect);
        run(raw, guard.installable(raw, guard.install(raw, guard.targets(raw, config), config)));
    }

    public static List<String> removal(Connection raw, Dialect dialect, FencingConfig config) throws SQLException {
        DialectGuard guard = of(dialect);
        return guard.remove(raw, guard.targets(raw, config), config);
    }

    /** Runs {@code statements} in one transaction where the database allows (PostgreSQL: no moment without a trigger). */
    public static void run(Connection raw, List<String> statements) throws SQLException {
        boolean autoCommit = raw.getAutoCommit();
        raw.setAutoCommit(false);
        try (Statement statement = raw.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
            raw.commit();
        } catch (SQLException | RuntimeException | Error e) {
            try {
                raw.rollback();
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        } finally {
            raw.setAutoCommit(autoCommit);
        }
    }

    /** What is missing or outdated; empty when every fenced table carries the current guard. */
    public static List<String> problems(Connection raw, Dialect dialect, FencingConfig config) throws SQLException {
        DialectGuard guard = of(dialect);
        List<GuardTarget> targets = guard.targets(raw, config);
        List<String> problems = new ArrayList<>();
        for (TableName name : FencedTableSet.of(config).names()) {
            boolean found = false;
            for (GuardTarget target : targets) {
                found |= target.table().equalsIgnoreCase(name.table())
                        && (name.schema() == null || target.schema().equalsIgnoreCase(name.schema()));
            }
            if (!found) {
                problems.add("fenced table " + name + (name.schema() != null ? " does not exist in this database"
                        : " exists in none of the schemas the guard covers here " + guard.scope(raw, config))
                        + ", so it carries no guard");
            }
        }
        problems.addAll(guard.problems(raw, targets, config));
        return problems;
    }

    /** The guarded tables whose writes run code before their first row ({@link DialectGuard#runCodeBeforeTheirRows}). */
    public static Set<String> runCodeBeforeTheirRows(Connection raw, Dialect dialect, FencingConfig config)
            throws SQLException {
        DialectGuard guard = of(dialect);
        return guard.runCodeBeforeTheirRows(raw, guard.targets(raw, config));
    }

    /**
     * The schemas (MariaDB: databases, folded to lower case) where the guard looks for unqualified
     * fenced names on this connection: its own ({@code current_schemas(false)}, {@code DATABASE()},
     * H2's current schema) and {@code fencing.database-guard.schemas}.
     */
    public static Set<String> scope(Connection raw, Dialect dialect, FencingConfig config) throws SQLException {
        return of(dialect).scope(raw, config);
    }

    /**
     * Tables that match a configured name outside the guard's schemas, and on MariaDB cascading
     * parents there: not covered, one line each. A warning: {@link #verify} logs them and does not fail.
     */
    public static List<String> uncovered(Connection raw, Dialect dialect, FencingConfig config) throws SQLException {
        DialectGuard guard = of(dialect);
        return guard.uncovered(raw, config, guard.targets(raw, config));
    }

    /**
     * {@link #problems} and what refuses DDL past the guard (PostgreSQL's event triggers) as an
     * exception naming each, or nothing when the guard is current; what is {@link #uncovered} is
     * logged (WARNING) either way.
     */
    public static void verify(Connection raw, Dialect dialect, FencingConfig config) throws SQLException {
        for (String warning : uncovered(raw, dialect, config)) {
            LOG.log(System.Logger.Level.WARNING, "fencing-jdbc: database guard: {0}", warning);
        }
        List<String> problems = problems(raw, dialect, config);
        DialectGuard guard = of(dialect);
        problems.addAll(guard.ddlProblems(raw, guard.targets(raw, config), config));
        if (!problems.isEmpty()) {
            throw new FencingException("the database guard (" + GuardVersion.MARKER + ") is missing or outdated: "
                    + String.join("; ", problems) + ". Install it with DatabaseGuard.install(..) or"
                    + " `java -jar fencing-driver-cli.jar guard --jdbc URL --config FILE install`"
                    + " (or review `.. print` in a migration).");
        }
    }

    /** Logged once per migration so that writes without a fence always leave a trace. */
    static void logMigration(String reason) {
        LOG.log(System.Logger.Level.WARNING, "fencing-jdbc: database guard bypassed for a migration: {0}", reason);
    }
}
