package dev.fencing.internal.guard;

import static dev.fencing.internal.guard.PostgresGuardFunctions.DDL_FUNCTION;
import static dev.fencing.internal.guard.PostgresGuardFunctions.EPOCH_FUNCTION;
import static dev.fencing.internal.guard.PostgresGuardFunctions.ROW_FUNCTION;
import static dev.fencing.internal.guard.PostgresGuardFunctions.ROW_TRIGGER;
import static dev.fencing.internal.guard.PostgresGuardFunctions.TRUNCATE_FUNCTION;
import static dev.fencing.internal.guard.PostgresGuardFunctions.TRUNCATE_TRIGGER;
import static dev.fencing.internal.guard.PostgresGuardFunctions.epochBody;
import static dev.fencing.internal.guard.PostgresGuardFunctions.eventBody;
import static dev.fencing.internal.guard.PostgresGuardFunctions.eventFunction;
import static dev.fencing.internal.guard.PostgresGuardFunctions.function;
import static dev.fencing.internal.guard.PostgresGuardFunctions.ident;
import static dev.fencing.internal.guard.PostgresGuardFunctions.literal;
import static dev.fencing.internal.guard.PostgresGuardFunctions.rowBody;
import static dev.fencing.internal.guard.PostgresGuardFunctions.truncateBody;

import dev.fencing.FencingConfig;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The guard on PostgreSQL: per schema one PL/pgSQL function per mode, per table a BEFORE
 * INSERT/UPDATE/DELETE row trigger and a BEFORE TRUNCATE statement trigger, both enabled
 * {@code ALWAYS} so that {@code session_replication_role = replica} does not switch them off.
 * PostgreSQL runs foreign-key actions as ordinary row operations, so cascades into a fenced table
 * meet its trigger; {@code COPY FROM} fires row triggers too.
 *
 * <p>The session holds the fence in the custom settings {@code fencing.fence} and
 * {@code fencing.lock}; {@code fencing.migration} names a sanctioned migration that may write
 * without a fence.
 *
 * <p>DDL can change rows without row triggers (a table rewrite), move rows out of a fenced table
 * ({@code DETACH PARTITION}, {@code NO INHERIT}) or switch the guard off ({@code DISABLE TRIGGER},
 * {@code ALTER FUNCTION .. SET}). When the installing role is a superuser, three event triggers
 * ({@link #EVENT_TRIGGERS}) running {@code fencing_guard_ddl()} refuse such DDL on fenced tables
 * (those carrying a {@code fencing_guard} trigger) with {@code ZF004}, unless the transaction
 * carries the migration mark: the function records at {@code ddl_command_start} what the guard
 * of every fenced table depends on (its triggers, their functions, the fence column, the
 * inheritance links, the guard's functions) and refuses at {@code ddl_command_end} a command that
 * changed any of it for a table that still exists; {@code table_rewrite} of a fenced table is
 * refused outright. Install and remove mark their own transaction. The functions' PL/pgSQL is
 * {@link PostgresGuardFunctions}'.
 */
final class PostgresGuard implements DialectGuard {

    @Override
    public SessionFence sessionFence(java.sql.Connection database) {
        return new SessionFence.TransactionLocal(database);
    }

    private static final System.Logger LOG = System.getLogger(Guards.class.getName());

    /** The event triggers, database-wide, and the event each fires on. */
    static final Map<String, String> EVENT_TRIGGERS = eventTriggers();
    /** Install and remove run DDL on guarded tables: their transaction carries the migration mark. */
    static final String MARK = "SELECT set_config('fencing.migration', 'fencing-jdbc DatabaseGuard install or remove', true)";
    /** {@code pg_trigger.tgtype}: ROW | BEFORE | INSERT | DELETE | UPDATE, and BEFORE | TRUNCATE. */
    private static final int ROW_TRIGGER_TYPE = 1 | 2 | 4 | 8 | 16;
    private static final int TRUNCATE_TRIGGER_TYPE = 2 | 32;

    private static Map<String, String> eventTriggers() {
        Map<String, String> triggers = new LinkedHashMap<>();
        triggers.put("fencing_guard_ddl_start", "ddl_command_start");
        triggers.put("fencing_guard_ddl_end", "ddl_command_end");
        triggers.put("fencing_guard_ddl_rewrite", "table_rewrite");
        return Map.copyOf(triggers);
    }

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
    public List<String> install(Connection connection, List<GuardTarget> targets, FencingConfig config)
            throws SQLException {
        List<String> ddl = new ArrayList<>();
        if (targets.isEmpty()) {
            return ddl;
        }
        ddl.add(MARK);
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
                        + " FOR EACH ROW EXECUTE FUNCTION " + schema + "." + function + "(" + argument(target, config) + ")");
                ddl.add("ALTER TABLE " + table + " ENABLE ALWAYS TRIGGER " + ROW_TRIGGER);
            }
            ddl.add("DROP TRIGGER IF EXISTS " + TRUNCATE_TRIGGER + " ON " + table);
            ddl.add("CREATE TRIGGER " + TRUNCATE_TRIGGER + " BEFORE TRUNCATE ON " + table
                    + " FOR EACH STATEMENT EXECUTE FUNCTION " + schema + "." + TRUNCATE_FUNCTION + "()");
            ddl.add("ALTER TABLE " + table + " ENABLE ALWAYS TRIGGER " + TRUNCATE_TRIGGER);
            ddl.add("COMMENT ON TRIGGER " + TRUNCATE_TRIGGER + " ON " + table + " IS "
                    + literal(record(connection, target, config)));
        }
        String home = ident(targets.get(0).schema());
        ddl.add(eventFunction(home));
        for (Map.Entry<String, String> trigger : orderedEventTriggers()) {
            ddl.add("DROP EVENT TRIGGER IF EXISTS " + trigger.getKey());
            ddl.add("CREATE EVENT TRIGGER " + trigger.getKey() + " ON " + trigger.getValue() + " EXECUTE FUNCTION "
                    + home + "." + DDL_FUNCTION + "()");
            ddl.add("ALTER EVENT TRIGGER " + trigger.getKey() + " ENABLE ALWAYS");
        }
        return ddl;
    }

    private static List<Map.Entry<String, String>> orderedEventTriggers() {
        return EVENT_TRIGGERS.entrySet().stream().sorted(Map.Entry.comparingByKey()).toList();
    }

    /** Event triggers need a superuser: without one, install leaves them out and says so. */
    @Override
    public List<String> installable(Connection connection, List<String> ddl) throws SQLException {
        if (superuser(connection)) {
            return ddl;
        }
        LOG.log(System.Logger.Level.WARNING, "fencing-jdbc: the database guard is installed without its event"
                + " triggers ({0}): creating them needs a superuser, and {1} is none. DDL that rewrites, detaches or"
                + " disables the guard of a fenced table is not refused, and DatabaseGuard.verify reports them missing;"
                + " have a superuser run `guard .. install` (or the `print` output) once to add them.",
                String.join(", ", EVENT_TRIGGERS.keySet().stream().sorted().toList()), user(connection));
        return ddl.stream().filter(sql -> !needsSuperuser(sql)).toList();
    }

    static boolean needsSuperuser(String sql) {
        return sql.contains(" EVENT TRIGGER ") || sql.contains(" " + DDL_FUNCTION + "() RETURNS event_trigger ");
    }

    private static boolean superuser(Connection connection) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement(
                "SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user");
             ResultSet rows = query.executeQuery()) {
            return rows.next() && rows.getBoolean(1);
        }
    }

    private static String user(Connection connection) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement("SELECT current_user");
             ResultSet rows = query.executeQuery()) {
            rows.next();
            return rows.getString(1);
        }
    }

    /** The row trigger's argument names the fence column, so that the event trigger can find it. */
    private static String argument(GuardTarget target, FencingConfig config) {
        return target.mode() == FencingConfig.Mode.EPOCH ? "" : literal(config.column());
    }

    /** The fence column as install found it (type, position, nullability, default): the truncate trigger's comment. */
    static String record(Connection connection, GuardTarget target, FencingConfig config) throws SQLException {
        if (target.mode() == FencingConfig.Mode.EPOCH) {
            return GuardVersion.MARKER + ": epoch mode, no fence column";
        }
        return GuardVersion.MARKER + ": fence column " + ident(config.column()) + " "
                + Objects.requireNonNullElse(column(connection, target, config)[1], "missing");
    }

    /** The fence column now: its type name ({@code format_type}) and description; nulls when it is missing. */
    private static String[] column(Connection connection, GuardTarget target, FencingConfig config) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement("SELECT a.atttypid = 'pg_catalog.int8'::pg_catalog.regtype,"
                + " pg_catalog.format('%s, position %s, %s, %s', pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnum,"
                + " CASE WHEN a.attnotnull THEN 'NOT NULL' ELSE 'NULL' END,"
                + " coalesce('DEFAULT ' || pg_catalog.pg_get_expr(d.adbin, d.adrelid), 'no default')),"
                + " pg_catalog.format_type(a.atttypid, a.atttypmod)"
                + " FROM pg_catalog.pg_attribute a LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum"
                + " WHERE a.attrelid = (pg_catalog.quote_ident(?) || '.' || pg_catalog.quote_ident(?))::pg_catalog.regclass"
                + " AND a.attname = ? AND a.attnum > 0 AND NOT a.attisdropped")) {
            query.setString(1, target.schema());
            query.setString(2, target.table());
            query.setString(3, config.column());
            try (ResultSet rows = query.executeQuery()) {
                if (!rows.next()) {
                    return new String[] {null, null, null};
                }
                return new String[] {rows.getBoolean(1) ? "bigint" : rows.getString(3), rows.getString(2), rows.getString(3)};
            }
        }
    }

    @Override
    public Set<String> runCodeBeforeTheirRows(Connection connection, List<GuardTarget> targets) throws SQLException {
        String sql = "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger t WHERE t.tgrelid = r.oid AND NOT t.tgisinternal"
                + " AND (t.tgtype & 1) = 0 AND (t.tgtype & 2) <> 0 AND (t.tgtype & 28) <> 0)"
                + " OR EXISTS (SELECT 1 FROM pg_catalog.pg_rewrite w WHERE w.ev_class = r.oid AND w.ev_type <> '1')"
                + " FROM (SELECT (quote_ident(?) || '.' || quote_ident(?))::regclass::oid AS oid) r";
        Set<String> found = new java.util.HashSet<>();
        try (PreparedStatement query = connection.prepareStatement(sql)) {
            for (GuardTarget target : targets) {
                query.setString(1, target.schema());
                query.setString(2, target.table());
                try (ResultSet rows = query.executeQuery()) {
                    if (rows.next() && rows.getBoolean(1)) {
                        found.add(target.table().toLowerCase(java.util.Locale.ROOT));
                    }
                }
            }
        }
        return found;
    }

    @Override
    public List<String> remove(Connection connection, List<GuardTarget> targets, FencingConfig config) {
        List<String> ddl = new ArrayList<>();
        if (targets.isEmpty()) {
            return ddl;
        }
        ddl.add(MARK);
        Set<String> schemas = new LinkedHashSet<>();
        for (GuardTarget target : targets) {
            String table = ident(target.schema()) + "." + ident(target.table());
            if (!target.rowTriggerInherited()) {
                ddl.add("DROP TRIGGER IF EXISTS " + ROW_TRIGGER + " ON " + table);
            }
            ddl.add("DROP TRIGGER IF EXISTS " + TRUNCATE_TRIGGER + " ON " + table);
            schemas.add(target.schema());
        }
        // The event triggers cover the whole database: they go with the last guarded table
        StringBuilder drop = new StringBuilder("DO $fencing$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger"
                + " WHERE tgname = '" + ROW_TRIGGER + "') THEN");
        for (Map.Entry<String, String> trigger : orderedEventTriggers()) {
            drop.append(" DROP EVENT TRIGGER IF EXISTS ").append(trigger.getKey()).append(';');
        }
        drop.append(" END IF; EXCEPTION WHEN insufficient_privilege THEN RAISE WARNING 'fencing-jdbc: the guard''s"
                + " event triggers stay: dropping them needs a superuser'; END $fencing$");
        ddl.add(drop.toString());
        for (String schema : schemas) {
            // RESTRICT: a function still used by a table fenced under another configuration stays
            for (String function : List.of(ROW_FUNCTION, EPOCH_FUNCTION, TRUNCATE_FUNCTION, DDL_FUNCTION)) {
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
        String triggerSql = "SELECT t.tgenabled, p.proname, pn.nspname, t.tgtype, t.tgqual IS NOT NULL,"
                + " pg_catalog.array_length(t.tgattr::int2[], 1), pg_catalog.encode(t.tgargs, 'hex'),"
                + " pg_catalog.obj_description(t.oid, 'pg_trigger') FROM pg_catalog.pg_trigger t"
                + " JOIN pg_catalog.pg_proc p ON p.oid = t.tgfoid JOIN pg_catalog.pg_namespace pn ON pn.oid = p.pronamespace"
                + " WHERE t.tgrelid = (pg_catalog.quote_ident(?) || '.' || pg_catalog.quote_ident(?))::pg_catalog.regclass"
                + " AND t.tgname = ?";
        Set<String> schemasChecked = new LinkedHashSet<>();
        for (GuardTarget target : targets) {
            if (schemasChecked.add(target.schema())) {
                checkFunction(connection, target.schema(), ROW_FUNCTION, "trigger", rowBody(config), problems);
                checkFunction(connection, target.schema(), EPOCH_FUNCTION, "trigger", epochBody(config), problems);
                checkFunction(connection, target.schema(), TRUNCATE_FUNCTION, "trigger", truncateBody(), problems);
            }
            String function = target.mode() == FencingConfig.Mode.EPOCH ? EPOCH_FUNCTION : ROW_FUNCTION;
            String argument = target.mode() == FencingConfig.Mode.EPOCH ? "" : hex(config.column());
            checkTrigger(connection, triggerSql, target, ROW_TRIGGER, function, ROW_TRIGGER_TYPE, argument, null, problems);
            checkTrigger(connection, triggerSql, target, TRUNCATE_TRIGGER, TRUNCATE_FUNCTION, TRUNCATE_TRIGGER_TYPE, "",
                    record(connection, target, config), problems);
            if (target.mode() == FencingConfig.Mode.ROW) {
                String[] column = column(connection, target, config);
                String where = "table " + target.qualified() + ": fence column " + config.column();
                if (column[0] == null) {
                    problems.add(where + " is missing");
                } else if (!"bigint".equals(column[0])) {
                    problems.add(where + " is " + column[0] + ", not bigint");
                }
            }
        }
        return problems;
    }

    /** The event triggers: missing ones are a problem of their own, since install needs a superuser for them. */
    @Override
    public List<String> ddlProblems(Connection connection, List<GuardTarget> targets, FencingConfig config)
            throws SQLException {
        List<String> problems = new ArrayList<>();
        if (targets.isEmpty()) {
            return problems;
        }
        String sql = "SELECT e.evtevent, e.evtenabled, e.evttags IS NOT NULL, n.nspname, p.proname"
                + " FROM pg_catalog.pg_event_trigger e JOIN pg_catalog.pg_proc p ON p.oid = e.evtfoid"
                + " JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace WHERE e.evtname = ?";
        Set<String> functionSchemas = new LinkedHashSet<>();
        for (Map.Entry<String, String> trigger : orderedEventTriggers()) {
            String where = "database: event trigger " + trigger.getKey();
            try (PreparedStatement query = connection.prepareStatement(sql)) {
                query.setString(1, trigger.getKey());
                try (ResultSet rows = query.executeQuery()) {
                    if (!rows.next()) {
                        problems.add(where + " is missing, so DDL that rewrites, detaches or disables the guard of a"
                                + " fenced table is not refused (installing it needs a superuser)");
                    } else if (!trigger.getValue().equals(rows.getString(1)) || rows.getBoolean(3)) {
                        problems.add(where + " is outdated (not ON " + trigger.getValue() + " for every command)");
                    } else if (!"A".equals(rows.getString(2))) {
                        problems.add(where + " is not enabled ALWAYS (evtenabled=" + rows.getString(2) + ")");
                    } else if (!DDL_FUNCTION.equals(rows.getString(5))) {
                        problems.add(where + " runs " + rows.getString(4) + "." + rows.getString(5) + "(), not "
                                + DDL_FUNCTION + "()");
                    } else {
                        functionSchemas.add(rows.getString(4));
                    }
                }
            }
        }
        for (String schema : functionSchemas) {
            checkFunction(connection, schema, DDL_FUNCTION, "event_trigger", eventBody(), problems);
        }
        return problems;
    }

    /** A guard function: its text, and nothing around it that changes what it does. */
    private static void checkFunction(Connection connection, String schema, String function, String returns, String body,
                                      List<String> problems) throws SQLException {
        String sql = "SELECT p.prosrc, p.proconfig, p.prosecdef, l.lanname, p.prorettype::pg_catalog.regtype::text"
                + " FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace"
                + " JOIN pg_catalog.pg_language l ON l.oid = p.prolang"
                + " WHERE n.nspname = ? AND p.proname = ? AND p.pronargs = 0";
        try (PreparedStatement query = connection.prepareStatement(sql)) {
            query.setString(1, schema);
            query.setString(2, function);
            try (ResultSet rows = query.executeQuery()) {
                String where = "schema " + schema + ": function " + function + "()";
                if (!rows.next()) {
                    problems.add(where + " is missing");
                    return;
                }
                java.sql.Array settings = rows.getArray(2);
                if (settings != null) {
                    problems.add(where + " has settings of its own (" + Arrays.toString((Object[]) settings.getArray())
                            + "), which override the session's");
                }
                if (rows.getBoolean(3)) {
                    problems.add(where + " is SECURITY DEFINER, not SECURITY INVOKER");
                }
                if (!"plpgsql".equals(rows.getString(4)) || !returns.equals(rows.getString(5))) {
                    problems.add(where + " is " + rows.getString(4) + " returning " + rows.getString(5) + ", not plpgsql"
                            + " returning " + returns);
                } else if (!body.equals(rows.getString(1))) {
                    problems.add(where + " is outdated (not the " + GuardVersion.MARKER + " text for this configuration)");
                }
            }
        }
    }

    private static void checkTrigger(Connection connection, String sql, GuardTarget target, String trigger,
                                     String function, int type, String argument, String record, List<String> problems)
            throws SQLException {
        try (PreparedStatement query = connection.prepareStatement(sql)) {
            query.setString(1, target.schema());
            query.setString(2, target.table());
            query.setString(3, trigger);
            try (ResultSet rows = query.executeQuery()) {
                String where = "table " + target.qualified() + ": trigger " + trigger;
                if (!rows.next()) {
                    problems.add(where + " is missing");
                } else if (!"A".equals(rows.getString(1))) {
                    problems.add(where + " is not enabled ALWAYS (tgenabled=" + rows.getString(1) + ")");
                } else if (!function.equals(rows.getString(2)) || !target.schema().equals(rows.getString(3))) {
                    problems.add(where + " runs " + rows.getString(3) + "." + rows.getString(2) + "(), not "
                            + target.schema() + "." + function + "()");
                } else if (rows.getInt(4) != type || rows.getBoolean(5) || rows.getInt(6) > 0
                        || !argument.equals(rows.getString(7))) {
                    problems.add(where + " is outdated (not BEFORE every " + (type == TRUNCATE_TRIGGER_TYPE ? "TRUNCATE"
                            : "INSERT, UPDATE and DELETE of every row") + " without a WHEN condition, as "
                            + GuardVersion.MARKER + " creates it)");
                } else if (record != null && !record.equals(rows.getString(8))) {
                    problems.add(where + " records another fence column than the table has: installed for \""
                            + rows.getString(8) + "\", now \"" + record + "\" (install again after changing it)");
                }
            }
        }
    }

    /** {@code pg_trigger.tgargs} of one argument, as {@code encode(.., 'hex')} shows it. */
    private static String hex(String argument) {
        return java.util.HexFormat.of().formatHex((argument + "\u0000").getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
}
