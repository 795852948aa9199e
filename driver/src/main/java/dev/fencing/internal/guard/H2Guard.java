package dev.fencing.internal.guard;

import dev.fencing.FencingConfig;
import dev.fencing.internal.sql.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The guard on H2: one BEFORE INSERT, UPDATE, DELETE row trigger per table, run by
 * {@link H2GuardTrigger}, whose settings (mode, fence column, comparison, epoch table) are the
 * trigger's remarks. H2 runs the class in the database's JVM: with an H2 server, fencing-driver
 * must be on the server's class path.
 */
final class H2Guard implements DialectGuard {

    @Override
    public SessionFence sessionFence(java.sql.Connection database) {
        return new SessionFence.SessionVariables(database,
                "SELECT SET(@FENCING_FENCE, ?), SET(@FENCING_LOCK, ?), SET(@FENCING_MIGRATION, NULL)",
                "SELECT SET(@FENCING_FENCE, NULL), SET(@FENCING_LOCK, NULL), SET(@FENCING_MIGRATION, NULL)");
    }

    static final String PREFIX = "FENCING_GUARD_";

    private static final String TABLES = "SELECT TABLE_SCHEMA, TABLE_NAME"
            + " FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_TYPE = 'BASE TABLE' AND LOWER(TABLE_NAME) = ?"
            + " AND (? OR LOWER(TABLE_SCHEMA) = ?) AND TABLE_SCHEMA <> 'INFORMATION_SCHEMA' ORDER BY 1, 2";

    @Override
    public List<GuardTarget> targets(Connection connection, FencingConfig config) throws SQLException {
        return DialectGuard.configuredTables(connection, config, scope(connection, config), TABLES,
                AlsoGuarded.NOTHING, null);
    }

    @Override
    public List<String> uncovered(Connection connection, FencingConfig config, List<GuardTarget> targets)
            throws SQLException {
        Set<String> scope = scope(connection, config);
        Set<GuardTarget> outside = new LinkedHashSet<>();
        DialectGuard.configuredTables(connection, config, scope, TABLES, AlsoGuarded.NOTHING, outside);
        return outside.stream().map(target -> DialectGuard.notCovered(target, scope)).toList();
    }

    /**
     * The connection's current schema. H2 does not expose {@code SCHEMA_SEARCH_PATH} to SQL, so
     * schemas on it are listed in {@code fencing.database-guard.schemas}.
     */
    @Override
    public List<String> connectionSchemas(Connection connection) throws SQLException {
        String schema = connection.getSchema();
        return schema == null ? List.of() : List.of(schema);
    }

    static String remarks(GuardTarget target, FencingConfig config) {
        return target.mode() == FencingConfig.Mode.EPOCH
                ? GuardVersion.MARKER + " mode=epoch epoch-table=" + config.epochTable()
                : GuardVersion.MARKER + " mode=row column=" + config.column() + " comparison=" + config.comparison();
    }

    private static String trigger(GuardTarget target) {
        return ident(target.schema()) + "." + ident(PREFIX + target.table());
    }

    @Override
    public List<String> install(Connection connection, List<GuardTarget> targets, FencingConfig config) {
        List<String> ddl = new ArrayList<>();
        for (GuardTarget target : targets) {
            String trigger = trigger(target);
            ddl.add("DROP TRIGGER IF EXISTS " + trigger);
            ddl.add("CREATE TRIGGER " + trigger + " BEFORE INSERT, UPDATE, DELETE ON " + ident(target.schema()) + "."
                    + ident(target.table()) + " FOR EACH ROW CALL '" + H2GuardTrigger.class.getName() + "'");
            ddl.add("COMMENT ON TRIGGER " + trigger + " IS " + Dialect.H2.quoteLiteral(remarks(target, config)));
        }
        return ddl;
    }

    @Override
    public List<String> remove(Connection connection, List<GuardTarget> targets, FencingConfig config) {
        List<String> ddl = new ArrayList<>();
        for (GuardTarget target : targets) {
            ddl.add("DROP TRIGGER IF EXISTS " + trigger(target));
        }
        return ddl;
    }

    @Override
    public List<String> problems(Connection connection, List<GuardTarget> targets, FencingConfig config)
            throws SQLException {
        List<String> problems = new ArrayList<>();
        String sql = "SELECT JAVA_CLASS, REMARKS, EVENT_OBJECT_TABLE, EVENT_MANIPULATION, ACTION_TIMING"
                + " FROM INFORMATION_SCHEMA.TRIGGERS WHERE TRIGGER_SCHEMA = ? AND TRIGGER_NAME = ?";
        for (GuardTarget target : targets) {
            if (target.mode() == FencingConfig.Mode.ROW) {
                checkColumn(connection, target, config, problems);
            }
            String where = "table " + target.qualified() + ": trigger " + PREFIX + target.table();
            try (PreparedStatement query = connection.prepareStatement(sql)) {
                query.setString(1, target.schema());
                query.setString(2, PREFIX + target.table());
                try (ResultSet rows = query.executeQuery()) {
                    Set<String> events = new LinkedHashSet<>();
                    boolean current = true;
                    while (rows.next()) {
                        events.add(rows.getString(4));
                        current &= H2GuardTrigger.class.getName().equals(rows.getString(1))
                                && remarks(target, config).equals(rows.getString(2))
                                && target.table().equals(rows.getString(3)) && "BEFORE".equals(rows.getString(5));
                    }
                    if (events.isEmpty()) {
                        problems.add(where + " is missing");
                    } else if (!current || !events.equals(Set.of("INSERT", "UPDATE", "DELETE"))) {
                        problems.add(where + " is outdated (not the " + GuardVersion.MARKER
                                + " trigger for this configuration)");
                    }
                }
            }
        }
        return problems;
    }

    /** The trigger reads the fence column as a number and writes a long into it: it must be BIGINT. */
    private static void checkColumn(Connection connection, GuardTarget target, FencingConfig config, List<String> problems)
            throws SQLException {
        try (PreparedStatement query = connection.prepareStatement("SELECT DATA_TYPE FROM INFORMATION_SCHEMA.COLUMNS"
                + " WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND UPPER(COLUMN_NAME) = UPPER(?)")) {
            query.setString(1, target.schema());
            query.setString(2, target.table());
            query.setString(3, config.column());
            try (ResultSet rows = query.executeQuery()) {
                String where = "table " + target.qualified() + ": fence column " + config.column();
                if (!rows.next()) {
                    problems.add(where + " is missing");
                } else if (!"BIGINT".equalsIgnoreCase(rows.getString(1))) {
                    problems.add(where + " is " + rows.getString(1) + ", not BIGINT");
                }
            }
        }
    }

    static String ident(String name) {
        return Dialect.H2.quoteIdentifier(name);
    }
}
