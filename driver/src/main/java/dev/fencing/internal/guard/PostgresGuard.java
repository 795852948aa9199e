package dev.fencing.internal.guard;

import dev.fencing.FencingConfig;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The guard on PostgreSQL: per schema one PL/pgSQL function per mode, per table a BEFORE
 * INSERT/UPDATE/DELETE row trigger and a BEFORE TRUNCATE statement trigger, both enabled
 * {@code ALWAYS} so that {@code session_replication_role = replica} does not switch them off.
 * PostgreSQL runs foreign-key actions as ordinary row operations, so cascades into a fenced table
 * meet its trigger; {@code COPY FROM} fires row triggers too.
 *
 * <p>The session holds the fence in the custom settings {@code fencing.fence} and
 * {@code fencing.lock} ({@code set_config(.., false)}); {@code fencing.migration} names a
 * sanctioned migration that may write without a fence.
 */
final class PostgresGuard implements DialectGuard {

    static final String ROW_FUNCTION = "fencing_guard_row";
    static final String EPOCH_FUNCTION = "fencing_guard_epoch";
    static final String TRUNCATE_FUNCTION = "fencing_guard_truncate";
    static final String ROW_TRIGGER = "fencing_guard";
    static final String TRUNCATE_TRIGGER = "fencing_guard_truncate";

    private static final String TABLES = "SELECT n.nspname, c.relname, c.relkind"
            + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            + " WHERE lower(c.relname) = ? AND (? OR lower(n.nspname) = ?) AND c.relkind IN ('r', 'p')"
            + " AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'"
            + " AND n.nspname NOT LIKE 'pg_temp%' ORDER BY 1, 2";
    private static final String CHILDREN = "SELECT n.nspname, c.relname, c.relkind, c.relispartition FROM pg_inherits i"
            + " JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_namespace n ON n.oid = c.relnamespace"
            + " WHERE i.inhparent = (quote_ident(?) || '.' || quote_ident(?))::regclass ORDER BY 1, 2";

    @Override
    public List<GuardTarget> targets(Connection connection, FencingConfig config) throws SQLException {
        return DialectGuard.configuredTables(connection, config, scope(connection, config), TABLES,
                (database, target, found) -> addChildren(database, CHILDREN, target, found), null);
    }

    @Override
    public List<String> uncovered(Connection connection, FencingConfig config, List<GuardTarget> targets)
            throws SQLException {
        Set<String> scope = scope(connection, config);
        Set<GuardTarget> outside = new LinkedHashSet<>();
        DialectGuard.configuredTables(connection, config, scope, TABLES,
                (database, target, found) -> addChildren(database, CHILDREN, target, found), outside);
        return outside.stream().map(target -> DialectGuard.notCovered(target, scope)).toList();
    }

    /** The schemas of the connection's {@code search_path} that exist (no implicit ones): {@code current_schemas(false)}. */
    @Override
    public List<String> connectionSchemas(Connection connection) throws SQLException {
        List<String> schemas = new ArrayList<>();
        try (PreparedStatement query = connection.prepareStatement("SELECT unnest(current_schemas(false))");
             ResultSet rows = query.executeQuery()) {
            while (rows.next()) {
                schemas.add(rows.getString(1));
            }
        }
        return schemas;
    }

    /** Partitions and inheritance children, any depth: they hold the table's rows too. */
    private static void addChildren(Connection connection, String sql, GuardTarget parent, Set<GuardTarget> found)
            throws SQLException {
        List<GuardTarget> direct = new ArrayList<>();
        try (PreparedStatement query = connection.prepareStatement(sql)) {
            query.setString(1, parent.schema());
            query.setString(2, parent.table());
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    direct.add(new GuardTarget(rows.getString(1), rows.getString(2), parent.mode(), rows.getBoolean(4)));
                }
            }
        }
        for (GuardTarget child : direct) {
            if (found.add(child)) {
                addChildren(connection, sql, child, found);
            }
        }
    }

    @Override
    public List<String> install(Connection connection, List<GuardTarget> targets, FencingConfig config) {
        List<String> ddl = new ArrayList<>();
        Set<String> schemas = new LinkedHashSet<>();
        for (GuardTarget target : targets) {
            if (schemas.add(target.schema())) {
                String schema = ident(target.schema());
                ddl.add(function(schema, ROW_FUNCTION, rowBody(config)));
                ddl.add(function(schema, EPOCH_FUNCTION, epochBody(config)));
                ddl.add(function(schema, TRUNCATE_FUNCTION, truncateBody()));
            }
        }
        for (GuardTarget target : targets) {
            String table = ident(target.schema()) + "." + ident(target.table());
            String schema = ident(target.schema());
            if (!target.rowTriggerInherited()) {
                String function = target.mode() == FencingConfig.Mode.EPOCH ? EPOCH_FUNCTION : ROW_FUNCTION;
                ddl.add("DROP TRIGGER IF EXISTS " + ROW_TRIGGER + " ON " + table);
                ddl.add("CREATE TRIGGER " + ROW_TRIGGER + " BEFORE INSERT OR UPDATE OR DELETE ON " + table
                        + " FOR EACH ROW EXECUTE FUNCTION " + schema + "." + function + "()");
                ddl.add("ALTER TABLE " + table + " ENABLE ALWAYS TRIGGER " + ROW_TRIGGER);
            }
            ddl.add("DROP TRIGGER IF EXISTS " + TRUNCATE_TRIGGER + " ON " + table);
            ddl.add("CREATE TRIGGER " + TRUNCATE_TRIGGER + " BEFORE TRUNCATE ON " + table
                    + " FOR EACH STATEMENT EXECUTE FUNCTION " + schema + "." + TRUNCATE_FUNCTION + "()");
            ddl.add("ALTER TABLE " + table + " ENABLE ALWAYS TRIGGER " + TRUNCATE_TRIGGER);
        }
        return ddl;
    }

    @Override
    public List<String> remove(Connection connection, List<GuardTarget> targets, FencingConfig config) {
        List<String> ddl = new ArrayList<>();
        Set<String> schemas = new LinkedHashSet<>();
        for (GuardTarget target : targets) {
            String table = ident(target.schema()) + "." + ident(target.table());
            if (!target.rowTriggerInherited()) {
                ddl.add("DROP TRIGGER IF EXISTS " + ROW_TRIGGER + " ON " + table);
            }
            ddl.add("DROP TRIGGER IF EXISTS " + TRUNCATE_TRIGGER + " ON " + table);
            schemas.add(target.schema());
        }
        for (String schema : schemas) {
            // RESTRICT: a function still used by a table fenced under another configuration stays
            for (String function : List.of(ROW_FUNCTION, EPOCH_FUNCTION, TRUNCATE_FUNCTION)) {
                ddl.add("DO $fencing$ BEGIN DROP FUNCTION IF EXISTS " + ident(schema) + "." + function
                        + "() RESTRICT; EXCEPTION WHEN dependent_objects_still_exist THEN NULL; END $fencing$");
            }
        }
        return ddl;
    }

    @Override
    public List<String> problems(Connection connection, List<GuardTarget> targets, FencingConfig config)
            throws SQLException {
        List<String> problems = new ArrayList<>();
        String functionSql = "SELECT p.prosrc FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
                + " WHERE n.nspname = ? AND p.proname = ? AND p.pronargs = 0";
        String triggerSql = "SELECT t.tgenabled, p.proname, pn.nspname FROM pg_trigger t"
                + " JOIN pg_proc p ON p.oid = t.tgfoid JOIN pg_namespace pn ON pn.oid = p.pronamespace"
                + " WHERE t.tgrelid = (quote_ident(?) || '.' || quote_ident(?))::regclass AND t.tgname = ?";
        Set<String> schemasChecked = new LinkedHashSet<>();
        for (GuardTarget target : targets) {
            if (schemasChecked.add(target.schema())) {
                checkFunction(connection, functionSql, target.schema(), ROW_FUNCTION, rowBody(config), problems);
                checkFunction(connection, functionSql, target.schema(), EPOCH_FUNCTION, epochBody(config), problems);
                checkFunction(connection, functionSql, target.schema(), TRUNCATE_FUNCTION, truncateBody(), problems);
            }
            String function = target.mode() == FencingConfig.Mode.EPOCH ? EPOCH_FUNCTION : ROW_FUNCTION;
            checkTrigger(connection, triggerSql, target, ROW_TRIGGER, function, problems);
            checkTrigger(connection, triggerSql, target, TRUNCATE_TRIGGER, TRUNCATE_FUNCTION, problems);
        }
        return problems;
    }

    private static void checkFunction(Connection connection, String sql, String schema, String function, String body,
                                      List<String> problems) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement(sql)) {
            query.setString(1, schema);
            query.setString(2, function);
            try (ResultSet rows = query.executeQuery()) {
                if (!rows.next()) {
                    problems.add("schema " + schema + ": function " + function + "() is missing");
                } else if (!body.equals(rows.getString(1))) {
                    problems.add("schema " + schema + ": function " + function + "() is outdated (not the "
                            + GuardVersion.MARKER + " text for this configuration)");
                }
            }
        }
    }

    private static void checkTrigger(Connection connection, String sql, GuardTarget target, String trigger,
                                     String function, List<String> problems) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement(sql)) {
            query.setString(1, target.schema());
            query.setString(2, target.table());
            query.setString(3, trigger);
            try (ResultSet rows = query.executeQuery()) {
                if (!rows.next()) {
                    problems.add("table " + target.qualified() + ": trigger " + trigger + " is missing");
                } else if (!"A".equals(rows.getString(1))) {
                    problems.add("table " + target.qualified() + ": trigger " + trigger
                            + " is not enabled ALWAYS (tgenabled=" + rows.getString(1) + ")");
                } else if (!function.equals(rows.getString(2)) || !target.schema().equals(rows.getString(3))) {
                    problems.add("table " + target.qualified() + ": trigger " + trigger + " runs "
                            + rows.getString(3) + "." + rows.getString(2) + "(), not " + target.schema() + "." + function + "()");
                }
            }
        }
    }

    private static String function(String schema, String name, String body) {
        return "CREATE OR REPLACE FUNCTION " + schema + "." + name + "() RETURNS trigger LANGUAGE plpgsql AS $fencing$"
                + body + "$fencing$";
    }

    /** Reads the session's fence; a sanctioned migration passes; none: ZF002. */
    private static String prologue() {
        return "\n-- " + GuardVersion.MARKER + ": written by fencing-jdbc, checked by DatabaseGuard.verify\n"
                + "DECLARE\n"
                + "  session_fence bigint := nullif(current_setting('fencing.fence', true), '')::bigint;\n"
                + "  session_lock text := nullif(current_setting('fencing.lock', true), '');\n"
                + "  row_fence bigint;\n"
                + "BEGIN\n"
                + "  IF coalesce(current_setting('fencing.migration', true), '') <> '' THEN\n"
                + "    IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;\n"
                + "    RETURN NEW;\n"
                + "  END IF;\n"
                + "  IF session_fence IS NULL THEN\n"
                + "    RAISE EXCEPTION USING ERRCODE = 'ZF002', MESSAGE = '" + GuardErrors.NO_FENCE
                + "' || TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME;\n"
                + "  END IF;\n";
    }

    static String rowBody(FencingConfig config) {
        String column = ident(config.column());
        String stale = config.comparison() == FencingConfig.Comparison.STRICTLY_NEWER ? ">=" : ">";
        return prologue()
                + "  IF TG_OP <> 'INSERT' THEN\n"
                + "    row_fence := OLD." + column + ";\n"
                + "    IF row_fence " + stale + " session_fence THEN\n"
                + "      RAISE EXCEPTION USING ERRCODE = 'ZF001', MESSAGE = '" + GuardErrors.STALE + "' || session_fence"
                + " || ' on ' || TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME || ' holding ' || row_fence;\n"
                + "    END IF;\n"
                + "  END IF;\n"
                + "  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;\n"
                + "  NEW." + column + " := session_fence;\n"
                + "  RETURN NEW;\n"
                + "END\n";
    }

    static String epochBody(FencingConfig config) {
        return prologue()
                + "  IF session_lock IS NULL THEN\n"
                + "    RAISE EXCEPTION USING ERRCODE = 'ZF002', MESSAGE = '" + GuardErrors.NO_FENCE
                + "' || TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME;\n"
                + "  END IF;\n"
                + "  SELECT fence INTO row_fence FROM " + config.epochTable() + " WHERE lock_name = session_lock FOR SHARE;\n"
                + "  IF row_fence IS NULL OR row_fence > session_fence THEN\n"
                + "    RAISE EXCEPTION USING ERRCODE = 'ZF001', MESSAGE = '" + GuardErrors.STALE + "' || session_fence"
                + " || ' on ' || TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME || ' holding ' || coalesce(row_fence::text, 'unknown');\n"
                + "  END IF;\n"
                + "  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;\n"
                + "  RETURN NEW;\n"
                + "END\n";
    }

    /** TRUNCATE removes rows without row triggers: refused, except in a sanctioned migration. */
    static String truncateBody() {
        return "\n-- " + GuardVersion.MARKER + ": written by fencing-jdbc, checked by DatabaseGuard.verify\n"
                + "BEGIN\n"
                + "  IF coalesce(current_setting('fencing.migration', true), '') <> '' THEN RETURN NULL; END IF;\n"
                + "  IF nullif(current_setting('fencing.fence', true), '') IS NULL THEN\n"
                + "    RAISE EXCEPTION USING ERRCODE = 'ZF002', MESSAGE = '" + GuardErrors.NO_FENCE
                + "' || TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME;\n"
                + "  END IF;\n"
                + "  RAISE EXCEPTION USING ERRCODE = 'ZF003', MESSAGE = '" + GuardErrors.TRUNCATE + "'"
                + " || TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME || ' cannot carry the fence check; delete the rows instead';\n"
                + "END\n";
    }

    static String ident(String name) {
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }
}
