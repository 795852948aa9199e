package dev.fencing.internal.sql;

import dev.fencing.internal.config.FencedTableSet;
import dev.fencing.FencingConfig;
import dev.fencing.internal.config.TableName;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What the analyzer learns from the database's metadata about the fenced tables. Immutable.
 * <ul>
 *   <li>Their keys (primary key and unique indexes without a filter): a write that changed no row
 *       is diagnosed again by the conjuncts that name a whole key.</li>
 *   <li>The tables whose writes reach them through foreign-key actions ({@code ON DELETE CASCADE
 *       / SET NULL / SET DEFAULT}, {@code ON UPDATE CASCADE ..}), at any depth: the database
 *       writes the fenced rows itself, where no check the driver splices can reach.</li>
 *   <li>Every table a fenced table references, at any depth: PostgreSQL's {@code TRUNCATE ..
 *       CASCADE} of one of them empties the fenced table.</li>
 * </ul>
 */
final class SchemaFacts {

    static final SchemaFacts NONE = new SchemaFacts(Map.of(), Map.of(), Set.of(), Set.of());

    /** Key column sets (folded) per fenced table (folded table name). */
    private final Map<String, List<Set<String>>> keys;
    /** Cascade parents (folded table name): which of their events reach a fenced row, and how. */
    private final Map<String, Cascade> cascadeParents;
    private final Set<String> referenced;
    /**
     * With {@code fencing.database-guard=required}: the schemas (MariaDB: databases, folded) where
     * the guard covers unqualified fenced names, as the connection that taught these facts sees
     * them ({@code Guards.scope}); empty when unknown or the guard is off.
     */
    private final Set<String> guardScope;

    private SchemaFacts(Map<String, List<Set<String>>> keys, Map<String, Cascade> cascadeParents, Set<String> referenced,
                        Set<String> guardScope) {
        this.keys = keys;
        this.cascadeParents = cascadeParents;
        this.referenced = referenced;
        this.guardScope = guardScope;
    }

    /** The guard's schemas for unqualified fenced names (folded); empty when unknown. */
    Set<String> guardScope() {
        return guardScope;
    }

    /** The key column sets of {@code table} (folded names); empty when unknown. */
    List<Set<String>> keysOf(TableName table) {
        return keys.getOrDefault(table.table(), List.of());
    }

    /**
     * How {@code events} ({@link #DELETE}, {@link #UPDATE}, or both) on {@code table} reach a
     * fenced row ("customers -> orders (ON DELETE CASCADE)"), or null when they do not. Matched by
     * table name in any schema (over-matching only refuses more).
     */
    String cascadeInto(TableName table, int events) {
        Cascade cascade = cascadeParents.get(table.table());
        return cascade != null && (cascade.events & events) != 0 ? cascade.path : null;
    }

    /** The cascade parents' table names (folded), for the pre-filter. */
    Set<String> cascadeParentNames() {
        return cascadeParents.keySet();
    }

    /** True when a fenced table references {@code table}, directly or through other tables. */
    boolean referencedByFencedTable(TableName table) {
        return referenced.contains(table.table());
    }

    /**
     * Reads the facts for {@code config}'s fenced tables through {@code connection}'s metadata. A
     * driver that answers a metadata call with null (against the JDBC contract; stub drivers do)
     * is taken to know no table, key or foreign key.
     */
    static SchemaFacts learn(Connection connection, FencingConfig config) throws SQLException {
        DatabaseMetaData metadata = connection.getMetaData();
        Map<String, List<Set<String>>> keys = new HashMap<>();
        List<Located> fenced = new ArrayList<>();
        // an unqualified fenced table is looked up where the connection's unqualified names go
        // (its current schema, or MariaDB's current database): reading every schema's tables of
        // that name costs more and races with other sessions' DDL on them
        String currentSchema = connection.getSchema();
        String currentCatalog = currentSchema == null ? connection.getCatalog() : null;
        for (TableName table : FencedTableSet.of(config).names()) {
            for (Located located : locate(metadata, table, currentSchema, currentCatalog)) {
                fenced.add(located);
                keys.computeIfAbsent(located.name.toLowerCase(Locale.ROOT), k -> new ArrayList<>())
                        .addAll(keys(metadata, located));
            }
        }
        Map<Located, List<Reference>> referencesOf = new HashMap<>();
        Set<String> referenced = new LinkedHashSet<>();
        List<Located> order = referenceOrder(metadata, fenced, referencesOf, referenced);
        Map<String, Cascade> cascadeParents = cascadeParents(fenced, order, referencesOf);
        return new SchemaFacts(Map.copyOf(keys), Map.copyOf(cascadeParents), Set.copyOf(referenced),
                guardScope(connection, config));
    }

    /**
     * Every foreign key, any depth, from the fenced tables up (what TRUNCATE .. CASCADE reaches, and
     * the edges cascades may take): the tables in the order they were reached; fills
     * {@code referencesOf} and the names of every {@code referenced} table.
     */
    private static List<Located> referenceOrder(DatabaseMetaData metadata, List<Located> fenced,
                                                Map<Located, List<Reference>> referencesOf, Set<String> referenced)
            throws SQLException {
        List<Located> order = new ArrayList<>(fenced);
        Deque<Located> queue = new ArrayDeque<>(fenced);
        Set<Located> seen = new HashSet<>(fenced);
        while (!queue.isEmpty()) {
            Located child = queue.poll();
            for (Reference reference : references(metadata, child, referencesOf)) {
                referenced.add(reference.parent.name.toLowerCase(Locale.ROOT));
                if (seen.add(reference.parent)) {
                    queue.add(reference.parent);
                    order.add(reference.parent);
                }
            }
        }
        return order;
    }

    /**
     * Which events on a table end in a write of a fenced row: a fenced row is written by its own
     * delete or update; a parent's delete reaches a child's delete (CASCADE) or update (SET NULL /
     * SET DEFAULT); a parent's update reaches a child's update (any action). By table name, fenced
     * tables left out.
     */
    private static Map<String, Cascade> cascadeParents(List<Located> fenced, List<Located> order,
                                                       Map<Located, List<Reference>> referencesOf) {
        Map<Located, Integer> reach = new HashMap<>();
        Map<Located, String> paths = new HashMap<>();
        Map<Located, String> actions = new HashMap<>();
        for (Located table : fenced) {
            reach.put(table, DELETE | UPDATE);
            paths.put(table, table.name.toLowerCase(Locale.ROOT));
        }
        while (spreadReach(order, referencesOf, reach, paths, actions)) {
            // until no table's reach grows
        }
        Map<String, Cascade> cascadeParents = new LinkedHashMap<>();
        for (Map.Entry<Located, Integer> entry : reach.entrySet()) {
            if (!fenced.contains(entry.getKey())) {
                cascadeParents.merge(entry.getKey().name.toLowerCase(Locale.ROOT),
                        new Cascade(entry.getValue(), paths.get(entry.getKey()) + " (" + actions.get(entry.getKey()) + ")"),
                        (a, b) -> new Cascade(a.events | b.events, a.path));
            }
        }
        for (Located table : fenced) {
            cascadeParents.remove(table.name.toLowerCase(Locale.ROOT)); // a fenced table is fenced already
        }
        return cascadeParents;
    }

    /** One pass of {@link #cascadeParents}' fixed point: true when some table's reach grew. */
    private static boolean spreadReach(List<Located> order, Map<Located, List<Reference>> referencesOf,
                                       Map<Located, Integer> reach, Map<Located, String> paths,
                                       Map<Located, String> actions) {
        boolean changed = false;
        for (Located child : order) {
            int childReach = reach.getOrDefault(child, 0);
            if (childReach == 0) {
                continue;
            }
            for (Reference reference : referencesOf.getOrDefault(child, List.of())) {
                int parentReach = 0;
                String action = null;
                if (reference.deleteRule == DatabaseMetaData.importedKeyCascade && (childReach & DELETE) != 0
                        || isSet(reference.deleteRule) && (childReach & UPDATE) != 0) {
                    parentReach |= DELETE;
                    action = "ON DELETE " + ruleName(reference.deleteRule);
                }
                if (isWriting(reference.updateRule) && (childReach & UPDATE) != 0) {
                    parentReach |= UPDATE;
                    action = action == null ? "ON UPDATE " + ruleName(reference.updateRule) : action;
                }
                int before = reach.getOrDefault(reference.parent, 0);
                if ((before | parentReach) != before) {
                    reach.put(reference.parent, before | parentReach);
                    paths.putIfAbsent(reference.parent, reference.parent.name.toLowerCase(Locale.ROOT) + " -> "
                            + paths.get(child));
                    actions.putIfAbsent(reference.parent, actions.containsKey(child)
                            ? action + ", " + actions.get(child) : action);
                    changed = true;
                }
            }
        }
        return changed;
    }

    /** The guard's schemas as {@code connection} sees them; empty when the guard is off or cannot say (fail closed). */
    private static Set<String> guardScope(Connection connection, FencingConfig config) throws SQLException {
        if (!config.guardRequired()) {
            return Set.of();
        }
        try {
            Dialect dialect = Dialect.fromProductName(connection.getMetaData().getDatabaseProductName());
            return Set.copyOf(dev.fencing.internal.guard.Guards.scope(connection, dialect, config));
        } catch (dev.fencing.FencingException | RuntimeException unsupported) {
            return Set.of(); // no guard here: the guard hook refuses what relies on it
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof SchemaFacts that && keys.equals(that.keys) && cascadeParents.equals(that.cascadeParents)
                && referenced.equals(that.referenced) && guardScope.equals(that.guardScope);
    }

    @Override
    public int hashCode() {
        return Objects.hash(keys, cascadeParents, referenced, guardScope);
    }

    @Override
    public String toString() {
        return "SchemaFacts[keys=" + keys + ", cascadeParents=" + cascadeParents + ", referenced=" + referenced + ", guardScope=" + guardScope + "]";
    }

    /** A table as the metadata names it. */
    record Located(String catalog, String schema, String name) {
    }

    /** A foreign key of a child: its parent and its rules ({@link DatabaseMetaData#importedKeyCascade} ..). */
    private record Reference(Located parent, short deleteRule, short updateRule) {
    }

    /** Which events on a parent reach a fenced row, and by which path. */
    private record Cascade(int events, String path) {
    }

    static final int DELETE = 1;
    static final int UPDATE = 2;

    private static boolean isSet(short rule) {
        return rule == DatabaseMetaData.importedKeySetNull || rule == DatabaseMetaData.importedKeySetDefault;
    }

    private static boolean isWriting(short rule) {
        return rule == DatabaseMetaData.importedKeyCascade || isSet(rule);
    }

    private static String ruleName(short rule) {
        return switch (rule) {
            case DatabaseMetaData.importedKeyCascade -> "CASCADE";
            case DatabaseMetaData.importedKeySetNull -> "SET NULL";
            default -> "SET DEFAULT";
        };
    }

    /**
     * Where {@code table} is: in its own schema when qualified, else where the connection's
     * unqualified names go (its current schema, or MariaDB's current database).
     */
    static List<Located> locate(DatabaseMetaData metadata, TableName table, String currentSchema,
                                        String currentCatalog) throws SQLException {
        Set<Located> found = new LinkedHashSet<>();
        String namespace = table.schema() != null ? table.schema() : currentSchema != null ? currentSchema : currentCatalog;
        for (String pattern : new String[] {table.table(), table.table().toUpperCase(Locale.ROOT)}) {
            String catalog = currentSchema == null ? namespace : null;
            String schema = currentSchema == null ? null : namespace;
            for (String[] where : new String[][] {{catalog, schema}, {catalog == null ? null : catalog.toUpperCase(Locale.ROOT),
                    schema == null ? null : schema.toUpperCase(Locale.ROOT)}}) {
                found.addAll(tables(metadata, where[0], where[1], pattern, table));
            }
        }
        return new ArrayList<>(found);
    }

    private static List<Located> tables(DatabaseMetaData metadata, String catalogPattern, String schemaPattern,
                                        String pattern, TableName table) throws SQLException {
        List<Located> found = new ArrayList<>();
        String wanted = schemaPattern != null ? schemaPattern : catalogPattern;
        try (ResultSet rows = metadata.getTables(catalogPattern, schemaPattern, pattern, null)) {
            while (rows != null && rows.next()) {
                String name = rows.getString("TABLE_NAME");
                String schema = rows.getString("TABLE_SCHEM");
                String catalog = rows.getString("TABLE_CAT");
                String namespace = schema != null ? schema : catalog;
                // patterns treat '_' as a wildcard: keep exact matches only
                if (name != null && name.equalsIgnoreCase(table.table())
                        && (wanted == null || (namespace != null && namespace.equalsIgnoreCase(wanted)))) {
                    found.add(new Located(catalog, schema, name));
                }
            }
        }
        return found;
    }

    private static List<Set<String>> keys(DatabaseMetaData metadata, Located table) throws SQLException {
        List<Set<String>> keys = new ArrayList<>();
        Set<String> primary = new HashSet<>();
        try (ResultSet rows = metadata.getPrimaryKeys(table.catalog, table.schema, table.name)) {
            while (rows != null && rows.next()) {
                primary.add(rows.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
            }
        }
        if (!primary.isEmpty()) {
            keys.add(Set.copyOf(primary));
        }
        Map<String, Set<String>> unique = new LinkedHashMap<>();
        Set<String> unusable = new HashSet<>();
        try (ResultSet rows = metadata.getIndexInfo(table.catalog, table.schema, table.name, true, true)) {
            while (rows != null && rows.next()) {
                String index = rows.getString("INDEX_NAME");
                if (index == null || rows.getBoolean("NON_UNIQUE")) {
                    continue;
                }
                String column = rows.getString("COLUMN_NAME");
                String filter = rows.getString("FILTER_CONDITION");
                // a partial index is unique only among the rows its filter admits; an expression is no column
                if (column == null || (filter != null && !filter.isBlank()) || !column.matches("[\"`]?[A-Za-z_][A-Za-z0-9_$]*[\"`]?")) {
                    unusable.add(index);
                    continue;
                }
                unique.computeIfAbsent(index, k -> new HashSet<>()).add(dev.fencing.internal.config.Identifiers.unquote(column)
                        .toLowerCase(Locale.ROOT));
            }
        }
        unique.forEach((index, columns) -> {
            if (!unusable.contains(index)) {
                keys.add(Set.copyOf(columns));
            }
        });
        return keys;
    }

    private static List<Reference> references(DatabaseMetaData metadata, Located child,
                                              Map<Located, List<Reference>> cache) throws SQLException {
        List<Reference> known = cache.get(child);
        if (known != null) {
            return known;
        }
        List<Reference> references = new ArrayList<>();
        try (ResultSet rows = metadata.getImportedKeys(child.catalog, child.schema, child.name)) {
            while (rows != null && rows.next()) {
                Located parent = new Located(rows.getString("PKTABLE_CAT"), rows.getString("PKTABLE_SCHEM"),
                        rows.getString("PKTABLE_NAME"));
                references.add(new Reference(parent, rows.getShort("DELETE_RULE"), rows.getShort("UPDATE_RULE")));
            }
        }
        cache.put(child, references);
        return references;
    }

}
