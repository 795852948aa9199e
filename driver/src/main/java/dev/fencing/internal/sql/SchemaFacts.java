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

    static final SchemaFacts NONE = new SchemaFacts(Map.of(), Map.of(), Map.of(), Set.of(), Set.of());

    /** Key column sets (folded) per fenced table (folded table name). */
    private final Map<String, List<Set<String>>> keys;
    /** Cascade parents (folded table name): which of their events reach a fenced row, and how. */
    private final Map<String, Cascade> cascadeParents;
    /**
     * PostgreSQL's inheritance parents, children and partitions of fenced tables (folded table
     * name): how their rows are, or include, fenced rows.
     */
    private final Map<String, String> relatives;
    private final Set<String> referenced;
    /**
     * With {@code fencing.database-guard=required}: the schemas (MariaDB: databases, folded) where
     * the guard covers unqualified fenced names, as the connection that taught these facts sees
     * them ({@code Guards.scope}); empty when unknown or the guard is off.
     */
    private final Set<String> guardScope;

    private SchemaFacts(Map<String, List<Set<String>>> keys, Map<String, Cascade> cascadeParents,
                        Map<String, String> relatives, Set<String> referenced, Set<String> guardScope) {
        this.keys = keys;
        this.cascadeParents = cascadeParents;
        this.relatives = relatives;
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

    /**
     * How every write of {@code table} writes fenced rows because its rows are, or include, them
     * ("orders_2024 is a partition of fenced table orders"), or null. Matched by table name in any
     * schema, as {@link #cascadeInto} is.
     */
    String sharesRows(TableName table) {
        return relatives.get(table.table());
    }

    /** The names (folded) of the cascade parents and row-sharing relatives, for the pre-filter. */
    Set<String> watchedNames() {
        Set<String> names = new HashSet<>(cascadeParents.keySet());
        names.addAll(relatives.keySet());
        return names;
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
        // keys serve the zero-row diagnosis of the table an unqualified name reaches now: read where
        // the connection's unqualified names go (its current schema, or MariaDB's current database)
        String currentSchema = connection.getSchema();
        String currentCatalog = currentSchema == null ? connection.getCatalog() : null;
        Set<TableName> configured = FencedTableSet.of(config).names();
        for (TableName table : configured) {
            for (LocatedTable located : locate(metadata, table, currentSchema, currentCatalog)) {
                keys.computeIfAbsent(located.folded(), k -> new ArrayList<>())
                        .addAll(keys(metadata, located));
            }
        }
        // what shares rows with the fenced tables is read from the whole catalog, so that no
        // current schema, and no switch of it, decides which cascades and relatives are seen
        CatalogReach reach = CatalogReach.read(connection, configured);
        Set<LocatedTable> fenced = Set.copyOf(reach.fenced);
        List<CatalogReach.Reference> references = new ArrayList<>(reach.references);
        Set<String> referenced = new LinkedHashSet<>();
        for (CatalogReach.Reference reference : reach.references) {
            referenced.add(reference.parent().folded());
            referenced.add(reference.child().folded());
        }
        for (CatalogReach.Inheritance edge : reach.inheritance) {
            referenced.add(edge.parent().folded());
            referenced.add(edge.child().folded());
            short cascade = DatabaseMetaData.importedKeyCascade;
            // a write of the parent (without ONLY) writes the child's rows; foreign keys that reference
            // a partitioned table are in the catalog once per partition too, so need no edge here
            references.add(new CatalogReach.Reference(edge.child(), edge.parent(), cascade, cascade,
                    edge.partition() ? "partition" : "inheritance"));
        }
        // the rows of a fenced table's inheritance children and partitions are fenced rows: a
        // foreign key declared on one of them cascades into fenced rows as much as the table's own
        Set<LocatedTable> holdingFencedRows = new HashSet<>(fenced);
        holdingFencedRows.addAll(RowSharing.descendants(fenced, reach.inheritance));
        Map<String, Cascade> cascadeParents = cascadeParents(holdingFencedRows, fenced, references);
        Map<String, String> relatives = RowSharing.relatives(fenced, reach.inheritance);
        return new SchemaFacts(Map.copyOf(keys), Map.copyOf(cascadeParents), Map.copyOf(relatives),
                Set.copyOf(referenced), guardScope(connection, config));
    }

    /**
     * Which events on a table end in a write of a fenced row: a fenced row is written by its own
     * delete or update; a parent's delete reaches a child's delete (CASCADE) or update (SET NULL /
     * SET DEFAULT); a parent's update reaches a child's update (any action). Keyed by folded name.
     */
    private static Map<String, Cascade> cascadeParents(Set<LocatedTable> holdingFencedRows,
                                                       Set<LocatedTable> fenced,
                                                       List<CatalogReach.Reference> references) {
        Map<LocatedTable, Integer> reach = new HashMap<>();
        Map<LocatedTable, String> paths = new HashMap<>();
        Map<LocatedTable, String> actions = new HashMap<>();
        for (LocatedTable table : holdingFencedRows) {
            reach.put(table, DELETE | UPDATE);
            paths.put(table, table.folded());
        }
        boolean changed = true;
        while (changed) {
            changed = false;
            for (CatalogReach.Reference reference : references) {
                int childReach = reach.getOrDefault(reference.child(), 0);
                int parentReach = 0;
                String action = null;
                if (reference.deleteRule() == DatabaseMetaData.importedKeyCascade && (childReach & DELETE) != 0
                        || isSet(reference.deleteRule()) && (childReach & UPDATE) != 0) {
                    parentReach |= DELETE;
                    action = reference.via() != null ? reference.via() : "ON DELETE " + ruleName(reference.deleteRule());
                }
                if (isWriting(reference.updateRule()) && (childReach & UPDATE) != 0) {
                    parentReach |= UPDATE;
                    action = action != null ? action
                            : reference.via() != null ? reference.via() : "ON UPDATE " + ruleName(reference.updateRule());
                }
                int before = reach.getOrDefault(reference.parent(), 0);
                if ((before | parentReach) != before) {
                    reach.put(reference.parent(), before | parentReach);
                    paths.putIfAbsent(reference.parent(), reference.parent().folded() + " -> " + paths.get(reference.child()));
                    actions.putIfAbsent(reference.parent(), actions.containsKey(reference.child())
                            ? action + ", " + actions.get(reference.child()) : action);
                    changed = true;
                }
            }
        }
        Map<String, Cascade> cascadeParents = new LinkedHashMap<>();
        for (Map.Entry<LocatedTable, Integer> entry : reach.entrySet()) {
            if (!fenced.contains(entry.getKey())) { // by identity: a same-named table elsewhere may be unfenced
                cascadeParents.merge(entry.getKey().folded(),
                        new Cascade(entry.getValue(), paths.get(entry.getKey()) + " (" + actions.get(entry.getKey()) + ")"),
                        (a, b) -> new Cascade(a.events | b.events, a.path));
            }
        }
        return cascadeParents;
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
                && relatives.equals(that.relatives)
                && referenced.equals(that.referenced) && guardScope.equals(that.guardScope);
    }

    @Override
    public int hashCode() {
        return Objects.hash(keys, cascadeParents, relatives, referenced, guardScope);
    }

    @Override
    public String toString() {
        return "SchemaFacts[keys=" + keys + ", cascadeParents=" + cascadeParents + ", relatives=" + relatives
                + ", referenced=" + referenced + ", guardScope=" + guardScope + "]";
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

    static List<LocatedTable> locate(DatabaseMetaData metadata, TableName table, String currentSchema,
                                        String currentCatalog) throws SQLException {
        Set<LocatedTable> found = new LinkedHashSet<>();
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

    private static List<LocatedTable> tables(DatabaseMetaData metadata, String catalogPattern, String schemaPattern,
                                        String pattern, TableName table) throws SQLException {
        List<LocatedTable> found = new ArrayList<>();
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
                    found.add(new LocatedTable(catalog, schema, name));
                }
            }
        }
        return found;
    }

    private static List<Set<String>> keys(DatabaseMetaData metadata, LocatedTable table) throws SQLException {
        List<Set<String>> keys = new ArrayList<>();
        Set<String> primary = new HashSet<>();
        try (ResultSet rows = metadata.getPrimaryKeys(table.catalog(), table.schema(), table.name())) {
            while (rows != null && rows.next()) {
                primary.add(rows.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
            }
        }
        if (!primary.isEmpty()) {
            keys.add(Set.copyOf(primary));
        }
        Map<String, Set<String>> unique = new LinkedHashMap<>();
        Set<String> unusable = new HashSet<>();
        try (ResultSet rows = metadata.getIndexInfo(table.catalog(), table.schema(), table.name(), true, true)) {
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


}
