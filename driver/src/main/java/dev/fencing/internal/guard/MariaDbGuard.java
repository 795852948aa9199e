package dev.fencing.internal.guard;

import dev.fencing.FencingConfig;
import dev.fencing.internal.sql.Dialect;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The guard on MariaDB and MySQL: BEFORE INSERT, UPDATE and DELETE row triggers that
 * {@code SIGNAL SQLSTATE 'ZF001'/'ZF002'}. The session holds the fence in the user variables
 * {@code @fencing_fence} and {@code @fencing_lock}; {@code @fencing_migration} names a sanctioned
 * migration.
 *
 * <p>MariaDB and MySQL (through 9.6) fire no trigger for foreign-key actions, so a cascade from a
 * parent would change fenced rows unchecked. For every chain of cascading foreign keys that ends
 * in a fenced table (any depth: delete chains through {@code ON DELETE CASCADE}, update chains
 * through {@code ON UPDATE CASCADE}, the last link also {@code SET NULL}/{@code SET DEFAULT}),
 * the table at its top gets a trigger that refuses the parent change when it would reach fenced
 * rows without a fence or with an older one. One trigger per table and event holds every check.
 * What it cannot do: set the fence column of rows a cascade changes (no child trigger runs).
 */
final class MariaDbGuard implements DialectGuard {

    @Override
    public SessionFence sessionFence(java.sql.Connection database) {
        return new SessionFence.SessionVariables(database,
                "SET @fencing_fence = ?, @fencing_lock = ?, @fencing_migration = NULL",
                "SET @fencing_fence = NULL, @fencing_lock = NULL, @fencing_migration = NULL");
    }

    private static final int MAX_DEPTH = 8;

    /** One foreign key: {@code child(childColumns)} references {@code parent(parentColumns)}. */
    record ForeignKey(String childSchema, String child, String parentSchema, String parent, List<String> childColumns,
                      List<String> parentColumns, String updateRule, String deleteRule) {
    }

    enum Event {
        INSERT("bi"), UPDATE("bu"), DELETE("bd");

        final String suffix;

        Event(String suffix) {
            this.suffix = suffix;
        }
    }

    /** A chain of foreign keys from the top table down to a fenced target; {@code path.get(0)} references the top. */
    record Cascade(GuardTarget fenced, List<ForeignKey> path) {
    }

    private static final String TABLES = "SELECT TABLE_SCHEMA, TABLE_NAME"
            + " FROM information_schema.TABLES WHERE TABLE_TYPE = 'BASE TABLE' AND LOWER(TABLE_NAME) = ?"
            + " AND (? OR LOWER(TABLE_SCHEMA) = ?)"
            + " AND TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') ORDER BY 1, 2";

    @Override
    public List<GuardTarget> targets(Connection connection, FencingConfig config) throws SQLException {
        return DialectGuard.configuredTables(connection, config, scope(connection, config), TABLES,
                AlsoGuarded.NOTHING, null);
    }

    /** The connection's current database ({@code DATABASE()}); none when it has none. */
    @Override
    public List<String> connectionSchemas(Connection connection) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement("SELECT DATABASE()");
             ResultSet rows = query.executeQuery()) {
            return rows.next() && rows.getString(1) != null ? List.of(rows.getString(1)) : List.of();
        }
    }

    /**
     * Same-named tables in other databases, and cascading parents there: a parent outside the
     * guard's databases gets no trigger, so a cascade it starts reaches fenced rows unchecked.
     */
    @Override
    public List<String> uncovered(Connection connection, FencingConfig config, List<GuardTarget> targets)
            throws SQLException {
        Set<String> scope = scope(connection, config);
        Set<GuardTarget> outside = new LinkedHashSet<>();
        DialectGuard.configuredTables(connection, config, scope, TABLES, AlsoGuarded.NOTHING, outside);
        List<String> uncovered = new ArrayList<>(outside.stream().map(target -> DialectGuard.notCovered(target, scope)).toList());
        Set<String> parents = new LinkedHashSet<>();
        Set<String> cascadeScope = cascadeScope(connection, config, targets);
        for (Event event : List.of(Event.DELETE, Event.UPDATE)) {
            for (List<Cascade> cascades : cascades(connection, targets, event, null).values()) {
                for (Cascade cascade : cascades) {
                    // the link nearest the fenced table whose parent is outside: the first place a check is missing
                    for (int i = cascade.path().size() - 1; i >= 0; i--) {
                        ForeignKey key = cascade.path().get(i);
                        if (!cascadeScope.contains(key.parentSchema().toLowerCase(java.util.Locale.ROOT))) {
                            if (parents.add(key(key.parentSchema(), key.parent()))) {
                                uncovered.add("table " + key.parentSchema() + "." + key.parent() + " cascades into fenced table "
                                        + cascade.fenced().qualified() + " but lies outside the databases the guard covers here "
                                        + cascadeScope + ": its changes are not covered (list it in fencing.database-guard.schemas)");
                            }
                            break;
                        }
                    }
                }
            }
        }
        return uncovered;
    }

    /** Where cascade parents get triggers: the guard's databases and those the configuration names a fenced table in. */
    private Set<String> cascadeScope(Connection connection, FencingConfig config, List<GuardTarget> targets)
            throws SQLException {
        Set<String> scope = scope(connection, config);
        for (GuardTarget target : targets) {
            scope.add(target.schema().toLowerCase(java.util.Locale.ROOT));
        }
        return scope;
    }

    /** Each table that needs a trigger, with the cascades its changes can start. */
    private Map<String, List<Cascade>> cascades(Connection connection, List<GuardTarget> targets, Event event,
                                                Set<String> scope) throws SQLException {
        List<ForeignKey> keys = new ArrayList<>();
        for (ForeignKey key : foreignKeys(connection)) {
            // the walk stays inside the guard's databases (scope null: every database, for the report of what is not)
            if (scope == null || scope.contains(key.parentSchema().toLowerCase(java.util.Locale.ROOT))) {
                keys.add(key);
            }
        }
        Map<String, List<Cascade>> byTop = new LinkedHashMap<>();
        for (GuardTarget fenced : targets) {
            List<List<ForeignKey>> frontier = new ArrayList<>();
            for (ForeignKey key : keys) {
                if (same(key.childSchema(), key.child(), fenced.schema(), fenced.table()) && acts(key, event, true)) {
                    frontier.add(List.of(key));
                }
            }
            for (int depth = 0; depth < MAX_DEPTH && !frontier.isEmpty(); depth++) {
                List<List<ForeignKey>> next = new ArrayList<>();
                for (List<ForeignKey> path : frontier) {
                    ForeignKey top = path.get(0);
                    byTop.computeIfAbsent(key(top.parentSchema(), top.parent()), k -> new ArrayList<>())
                            .add(new Cascade(fenced, path));
                    for (ForeignKey key : keys) {
                        if (same(key.childSchema(), key.child(), top.parentSchema(), top.parent()) && acts(key, event, false)
                                && (event != Event.UPDATE || overlaps(key.childColumns(), top.parentColumns()))
                                && path.stream().noneMatch(k -> same(k.childSchema(), k.child(), key.parentSchema(), key.parent()))) {
                            List<ForeignKey> longer = new ArrayList<>();
                            longer.add(key);
                            longer.addAll(path);
                            next.add(longer);
                        }
                    }
                }
                frontier = next;
            }
        }
        return byTop;
    }

    private static boolean overlaps(List<String> a, List<String> b) {
        for (String x : a) {
            for (String y : b) {
                if (x.equalsIgnoreCase(y)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** True when {@code key} changes child rows on a parent's {@code event}: the last link any action, others CASCADE. */
    private static boolean acts(ForeignKey key, Event event, boolean lastLink) {
        String rule = switch (event) {
            case DELETE -> key.deleteRule();
            case UPDATE -> key.updateRule();
            case INSERT -> "RESTRICT";
        };
        return lastLink ? rule.equals("CASCADE") || rule.equals("SET NULL") || rule.equals("SET DEFAULT")
                : rule.equals("CASCADE");
    }

    private static List<ForeignKey> foreignKeys(Connection connection) throws SQLException {
        String sql = "SELECT rc.CONSTRAINT_SCHEMA, rc.TABLE_NAME, rc.UNIQUE_CONSTRAINT_SCHEMA, rc.REFERENCED_TABLE_NAME,"
                + " rc.UPDATE_RULE, rc.DELETE_RULE, k.COLUMN_NAME, k.REFERENCED_COLUMN_NAME, rc.CONSTRAINT_NAME"
                + " FROM information_schema.REFERENTIAL_CONSTRAINTS rc JOIN information_schema.KEY_COLUMN_USAGE k"
                + " ON k.CONSTRAINT_SCHEMA = rc.CONSTRAINT_SCHEMA AND k.CONSTRAINT_NAME = rc.CONSTRAINT_NAME"
                + " AND k.TABLE_NAME = rc.TABLE_NAME AND k.REFERENCED_TABLE_NAME IS NOT NULL"
                + " ORDER BY rc.CONSTRAINT_SCHEMA, rc.TABLE_NAME, rc.CONSTRAINT_NAME, k.ORDINAL_POSITION";
        Map<String, ForeignKey> keys = new LinkedHashMap<>();
        try (PreparedStatement query = connection.prepareStatement(sql); ResultSet rows = query.executeQuery()) {
            while (rows.next()) {
                String id = rows.getString(1) + "\u0000" + rows.getString(2) + "\u0000" + rows.getString(9);
                ForeignKey key = keys.get(id);
                if (key == null) {
                    key = new ForeignKey(rows.getString(1), rows.getString(2), rows.getString(3), rows.getString(4),
                            new ArrayList<>(), new ArrayList<>(), rows.getString(5), rows.getString(6));
                    keys.put(id, key);
                }
                key.childColumns().add(rows.getString(7));
                key.parentColumns().add(rows.getString(8));
            }
        }
        return new ArrayList<>(keys.values());
    }

    private static boolean same(String schemaA, String tableA, String schemaB, String tableB) {
        return schemaA.equalsIgnoreCase(schemaB) && tableA.equalsIgnoreCase(tableB);
    }

    private static String key(String schema, String table) {
        return schema + "\u0000" + table;
    }

    /** Every trigger of the guard: table key, event, trigger name, body. */
    private record Trigger(String schema, String table, Event event, String name, String body) {
    }

    private List<Trigger> triggers(Connection connection, List<GuardTarget> targets, FencingConfig config)
            throws SQLException {
        Map<String, GuardTarget> fenced = new LinkedHashMap<>();
        for (GuardTarget target : targets) {
            fenced.put(key(target.schema(), target.table()), target);
        }
        List<Trigger> triggers = new ArrayList<>();
        Set<String> scope = cascadeScope(connection, config, targets);
        for (Event event : Event.values()) {
            Map<String, List<Cascade>> cascades = event == Event.INSERT ? Map.of() : cascades(connection, targets, event, scope);
            Set<String> tables = new LinkedHashSet<>(fenced.keySet());
            tables.addAll(cascades.keySet());
            for (String table : tables) {
                String[] parts = table.split("\u0000", 2);
                GuardTarget own = fenced.get(table);
                String record = own == null || own.mode() == FencingConfig.Mode.EPOCH ? null : record(connection, own, config);
                String body = body(own, record, cascades.getOrDefault(table, List.of()), event, config);
                triggers.add(new Trigger(parts[0], parts[1], event, name(parts[1], event), body));
            }
        }
        return triggers;
    }

    private static String name(String table, Event event) {
        String name = "fencing_guard_" + event.suffix + "_" + table;
        if (name.length() <= 64) {
            return name;
        }
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(table.getBytes(StandardCharsets.UTF_8));
            return "fencing_guard_" + event.suffix + "_" + HexFormat.of().formatHex(hash, 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    @Override
    public List<String> install(Connection connection, List<GuardTarget> targets, FencingConfig config) throws SQLException {
        List<String> ddl = new ArrayList<>();
        for (Trigger trigger : triggers(connection, targets, config)) {
            String name = ident(trigger.schema()) + "." + ident(trigger.name());
            ddl.add("DROP TRIGGER IF EXISTS " + name);
            ddl.add("CREATE TRIGGER " + name + " BEFORE " + trigger.event().name() + " ON " + ident(trigger.schema()) + "."
                    + ident(trigger.table()) + " FOR EACH ROW " + trigger.body());
        }
        return ddl;
    }

    @Override
    public List<String> remove(Connection connection, List<GuardTarget> targets, FencingConfig config) throws SQLException {
        List<String> ddl = new ArrayList<>();
        for (Trigger trigger : triggers(connection, targets, config)) {
            ddl.add("DROP TRIGGER IF EXISTS " + ident(trigger.schema()) + "." + ident(trigger.name()));
        }
        return ddl;
    }

    @Override
    public List<String> problems(Connection connection, List<GuardTarget> targets, FencingConfig config)
            throws SQLException {
        List<String> problems = new ArrayList<>();
        for (GuardTarget target : targets) {
            if (target.mode() == FencingConfig.Mode.ROW) {
                String[] column = column(connection, target, config);
                String where = "table " + target.qualified() + ": fence column " + config.column();
                if (column == null) {
                    problems.add(where + " is missing");
                } else if (!"bigint".equalsIgnoreCase(column[0])) {
                    problems.add(where + " is " + column[0] + ", not bigint");
                }
            }
        }
        String sql = "SELECT EVENT_OBJECT_SCHEMA, EVENT_OBJECT_TABLE, ACTION_TIMING, EVENT_MANIPULATION, ACTION_STATEMENT"
                + " FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ? AND TRIGGER_NAME = ?";
        for (Trigger trigger : triggers(connection, targets, config)) {
            String where = "table " + trigger.schema() + "." + trigger.table() + ": trigger " + trigger.name();
            try (PreparedStatement query = connection.prepareStatement(sql)) {
                query.setString(1, trigger.schema());
                query.setString(2, trigger.name());
                try (ResultSet rows = query.executeQuery()) {
                    if (!rows.next()) {
                        problems.add(where + " is missing");
                    } else if (!rows.getString(2).equals(trigger.table()) || !"BEFORE".equals(rows.getString(3))
                            || !trigger.event().name().equals(rows.getString(4))) {
                        problems.add(where + " runs " + rows.getString(3) + " " + rows.getString(4) + " on "
                                + rows.getString(1) + "." + rows.getString(2) + ", not BEFORE " + trigger.event().name()
                                + " on " + trigger.schema() + "." + trigger.table());
                    } else if (!normalized(trigger.body()).equals(normalized(rows.getString(5)))) {
                        String recorded = recorded(rows.getString(5));
                        String now = recorded(trigger.body());
                        problems.add(recorded != null && now != null && !recorded.equals(now)
                                ? where + " records another fence column than the table has: installed for \"" + recorded
                                        + "\", now \"" + now + "\" (dropped and added again? install again after changing it)"
                                : where + " is outdated (not the " + GuardVersion.MARKER
                                        + " text for this configuration and these foreign keys)");
                    }
                }
            }
        }
        return problems;
    }

    /** The fence column line a trigger body recorded, or null. */
    private static String recorded(String body) {
        if (body == null) {
            return null;
        }
        for (String line : body.split("\n")) {
            String trimmed = line.trim();
            if (trimmed.startsWith("-- fence column ")) {
                return trimmed.substring(3);
            }
        }
        return null;
    }

    private static String normalized(String body) {
        return body == null ? "" : body.replaceAll("\\s+", " ").trim();
    }

    /**
     * The fence column as install found it: type, position, nullability, default. MariaDB has no DDL
     * triggers; a column dropped and added again (its values reset) shows here as a new position or
     * definition, so {@code verify} compares it with what the trigger recorded.
     */
    static String record(Connection connection, GuardTarget target, FencingConfig config) throws SQLException {
        String[] column = column(connection, target, config);
        return "fence column " + ident(config.column()) + ": " + (column == null ? "missing" : column[1]);
    }

    /** The fence column now: {@code DATA_TYPE} and its description; null when it is missing. */
    private static String[] column(Connection connection, GuardTarget target, FencingConfig config) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement("SELECT DATA_TYPE, COLUMN_TYPE, ORDINAL_POSITION,"
                + " IS_NULLABLE, COLUMN_DEFAULT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?"
                + " AND COLUMN_NAME = ?")) {
            query.setString(1, target.schema());
            query.setString(2, target.table());
            query.setString(3, config.column());
            try (ResultSet rows = query.executeQuery()) {
                if (!rows.next()) {
                    return null;
                }
                String described = rows.getString(2) + ", position " + rows.getInt(3) + ", "
                        + ("NO".equals(rows.getString(4)) ? "NOT NULL" : "NULL") + ", "
                        + (rows.getString(5) == null ? "no default" : "DEFAULT " + rows.getString(5));
                return new String[] {rows.getString(1), described.replace("\n", " ").replace("\r", " ")};
            }
        }
    }

    private static String body(GuardTarget own, String record, List<Cascade> cascades, Event event, FencingConfig config) {
        StringBuilder sql = new StringBuilder();
        sql.append("BEGIN\n")
                .append("  DECLARE fencing_newest BIGINT DEFAULT NULL;\n")
                .append("  DECLARE fencing_message VARCHAR(128) DEFAULT NULL;\n")
                .append("  DECLARE CONTINUE HANDLER FOR NOT FOUND SET fencing_newest = NULL;\n")
                .append("  -- ").append(GuardVersion.MARKER).append(": written by fencing-jdbc, checked by DatabaseGuard.verify\n");
        if (record != null) {
            sql.append("  -- ").append(record).append('\n');
        }
        sql
                .append("  IF COALESCE(@fencing_migration, '') = '' THEN\n");
        if (own != null) {
            String label = own.qualified();
            sql.append(noFence(label));
            if (own.mode() == FencingConfig.Mode.EPOCH) {
                sql.append(epochCheck(label, config));
            } else {
                String column = ident(config.column());
                if (event != Event.INSERT) {
                    String stale = config.comparison() == FencingConfig.Comparison.STRICTLY_NEWER ? ">=" : ">";
                    sql.append("    IF OLD.").append(column).append(' ').append(stale).append(" @fencing_fence THEN\n")
                            .append(signalStale(label, "OLD." + column))
                            .append("    END IF;\n");
                }
                if (event != Event.DELETE) {
                    sql.append("    SET NEW.").append(column).append(" = @fencing_fence;\n");
                }
            }
        }
        for (Cascade cascade : cascades) {
            sql.append(cascadeCheck(cascade, event, config));
        }
        sql.append("  END IF;\n").append("END");
        return sql.toString();
    }

    private static String noFence(String label) {
        return "    IF @fencing_fence IS NULL THEN\n"
                + "      SIGNAL SQLSTATE 'ZF002' SET MESSAGE_TEXT = " + literal(missingMessage(label)) + ";\n"
                + "    END IF;\n";
    }

    /** The text ZF002 raises: the table first, the migration hint after it, cut to MariaDB's 128 characters. */
    static String missingMessage(String label) {
        String text = GuardErrors.NO_FENCE + label + GuardErrors.MARIADB_HINT;
        return text.length() <= GuardErrors.MARIADB_MESSAGE_LIMIT ? text : text.substring(0, GuardErrors.MARIADB_MESSAGE_LIMIT);
    }

    private static String signalStale(String label, String holding) {
        return "      SET fencing_message = LEFT(CONCAT(" + literal(GuardErrors.STALE) + ", @fencing_fence, "
                + literal(" on " + label + " holding ") + ", COALESCE(" + holding + ", 'unknown'), "
                + literal(GuardErrors.MARIADB_HINT) + "), " + GuardErrors.MARIADB_MESSAGE_LIMIT + ");\n"
                + "      SIGNAL SQLSTATE 'ZF001' SET MESSAGE_TEXT = fencing_message;\n";
    }

    private static String epochCheck(String label, FencingConfig config) {
        return "    IF @fencing_lock IS NULL THEN\n"
                + "      SIGNAL SQLSTATE 'ZF002' SET MESSAGE_TEXT = " + literal(GuardErrors.NO_FENCE + label) + ";\n"
                + "    END IF;\n"
                + "    SET fencing_newest = NULL;\n"
                + "    SELECT fence INTO fencing_newest FROM " + config.epochTable()
                + " WHERE lock_name = @fencing_lock LOCK IN SHARE MODE;\n"
                + "    IF fencing_newest IS NULL OR fencing_newest > @fencing_fence THEN\n"
                + signalStale(label, "fencing_newest")
                + "    END IF;\n";
    }

    /** Refuses the parent change when the chain reaches fenced rows: none without a fence, none newer than it. */
    private static String cascadeCheck(Cascade cascade, Event event, FencingConfig config) {
        GuardTarget fenced = cascade.fenced();
        List<ForeignKey> path = cascade.path();
        StringBuilder from = new StringBuilder();
        for (int i = 0; i < path.size(); i++) {
            ForeignKey key = path.get(i);
            String alias = "fencing_j" + i;
            if (i == 0) {
                from.append(ident(key.childSchema())).append('.').append(ident(key.child())).append(' ').append(alias);
            } else {
                from.append(" JOIN ").append(ident(key.childSchema())).append('.').append(ident(key.child())).append(' ')
                        .append(alias).append(" ON ");
                for (int c = 0; c < key.childColumns().size(); c++) {
                    if (c > 0) {
                        from.append(" AND ");
                    }
                    from.append(alias).append('.').append(ident(key.childColumns().get(c))).append(" = fencing_j")
                            .append(i - 1).append('.').append(ident(key.parentColumns().get(c)));
                }
            }
        }
        ForeignKey first = path.get(0);
        StringBuilder where = new StringBuilder();
        StringBuilder changed = new StringBuilder();
        for (int c = 0; c < first.childColumns().size(); c++) {
            if (c > 0) {
                where.append(" AND ");
                changed.append(" OR ");
            }
            String parentColumn = ident(first.parentColumns().get(c));
            where.append("fencing_j0.").append(ident(first.childColumns().get(c))).append(" = OLD.").append(parentColumn);
            changed.append("NOT (OLD.").append(parentColumn).append(" <=> NEW.").append(parentColumn).append(')');
        }
        String rows = "FROM " + from + " WHERE " + where;
        String last = "fencing_j" + (path.size() - 1);
        String label = fenced.qualified();
        StringBuilder sql = new StringBuilder();
        sql.append("    IF ").append(event == Event.UPDATE ? "(" + changed + ") AND " : "")
                .append("EXISTS (SELECT 1 ").append(rows).append(") THEN\n")
                .append(noFence(label).replace("\n    ", "\n      ").replaceFirst("^    ", "      "));
        if (fenced.mode() == FencingConfig.Mode.EPOCH) {
            sql.append(epochCheck(label, config).replace("\n    ", "\n      ").replaceFirst("^    ", "      "));
        } else {
            String column = ident(config.column());
            String stale = config.comparison() == FencingConfig.Comparison.STRICTLY_NEWER ? ">=" : ">";
            sql.append("      SET fencing_newest = (SELECT MAX(").append(last).append('.').append(column).append(") ")
                    .append(rows).append(");\n")
                    .append("      IF fencing_newest ").append(stale).append(" @fencing_fence THEN\n")
                    .append(signalStale(label, "fencing_newest").replace("\n      ", "\n        ").replaceFirst("^      ", "        "))
                    .append("      END IF;\n");
        }
        sql.append("    END IF;\n");
        return sql.toString();
    }

    private static String literal(String text) {
        return Dialect.MARIADB.quoteLiteral(text);
    }

    static String ident(String name) {
        return Dialect.MARIADB.quoteIdentifier(name);
    }
}
