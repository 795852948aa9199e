package dev.fencing.internal.sql;

import dev.fencing.internal.config.TableName;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Which tables of the whole catalog share rows with the fenced tables: the fenced tables in every
 * schema (MariaDB: database) whose name a configured name matches, the foreign keys that lead to
 * them at any depth, and on PostgreSQL the inheritance parents, children and partitions of them at
 * any depth.
 *
 * <p>The facts never depend on the session's current schema: {@code fencing.tables=orders} fences
 * {@code orders} wherever a statement's name resolves, so a cascade into any {@code orders} counts,
 * and switching schemas ({@code SET search_path}, {@code USE}, {@code setSchema}) needs no new
 * reading. PostgreSQL and MariaDB answer from their catalogs with one recursive query per fact,
 * filtered by the configured names; other databases are walked through {@link DatabaseMetaData}
 * with every schema in the pattern.
 */
final class CatalogReach {

    /**
     * A way a write of {@code parent} writes rows of {@code child}: a foreign key (the child
     * references the parent, with these rules, {@link DatabaseMetaData#importedKeyCascade} ..), or,
     * where {@code via} names it, an inheritance edge (both rules {@code CASCADE}).
     */
    record Reference(LocatedTable child, LocatedTable parent, short deleteRule, short updateRule, String via) {
        Reference(LocatedTable child, LocatedTable parent, short deleteRule, short updateRule) {
            this(child, parent, deleteRule, updateRule, null);
        }
    }

    /**
     * A PostgreSQL inheritance edge: {@code child}'s rows are rows of {@code parent} too (a write of
     * the parent without {@code ONLY} writes them); a partition's writes are also the partitioned
     * parent's, whose foreign-key actions they fire.
     */
    record Inheritance(LocatedTable child, LocatedTable parent, boolean partition) {
    }

    final List<LocatedTable> fenced;
    final List<Reference> references;
    final List<Inheritance> inheritance;

    private CatalogReach(List<LocatedTable> fenced, List<Reference> references, List<Inheritance> inheritance) {
        this.fenced = fenced;
        this.references = references;
        this.inheritance = inheritance;
    }

    /** Reads the reach of {@code configured} through {@code connection}. */
    static CatalogReach read(Connection connection, Collection<TableName> configured) throws SQLException {
        Dialect dialect = Dialect.fromProductName(connection.getMetaData().getDatabaseProductName());
        Names names = new Names(configured);
        // which catalog a database has: the one mapping from a dialect to its catalog's queries
        return switch (dialect) {
            case POSTGRESQL -> new CatalogReach(
                    rows(connection, PostgresCatalog.FENCED, CatalogReach::bindArrays, names, row -> located(row, 1)),
                    rows(connection, PostgresCatalog.REFERENCES, CatalogReach::bindArrays, names, CatalogReach::reference),
                    rows(connection, PostgresCatalog.INHERITANCE, CatalogReach::bindArrays, names,
                            CatalogReach::inheritance));
            case MARIADB -> new CatalogReach(
                    rows(connection, MariaDbCatalog.fenced(names), CatalogReach::bindLists, names, row -> located(row, 1)),
                    rows(connection, MariaDbCatalog.references(names), CatalogReach::bindLists, names,
                            CatalogReach::mariaDbReference),
                    List.of());
            default -> throughMetadata(connection.getMetaData(), configured);
        };
    }

    /** The configured names as the catalog queries filter them: unqualified (any schema) and qualified. */
    record Names(List<String> tables, List<String> qualified) {
        Names(Collection<TableName> configured) {
            this(configured.stream().filter(t -> t.schema() == null).map(TableName::table).toList(),
                    configured.stream().filter(t -> t.schema() != null).map(t -> t.schema() + "." + t.table()).toList());
        }
    }

    interface RowReader<T> {
        T read(ResultSet row) throws SQLException;
    }

    /** How a catalog query takes the configured names as parameters. */
    interface NameBinder {
        void bind(Connection connection, PreparedStatement query, String sql, Names names) throws SQLException;
    }

    /** The rows of catalog query {@code sql}, its parameters bound to {@code names}. */
    static <T> List<T> rows(Connection connection, String sql, NameBinder binder, Names names, RowReader<T> reader)
            throws SQLException {
        List<T> found = new ArrayList<>();
        try (PreparedStatement query = connection.prepareStatement(sql)) {
            binder.bind(connection, query, sql, names);
            try (ResultSet row = query.executeQuery()) {
                while (row.next()) {
                    found.add(reader.read(row));
                }
            }
        }
        return List.copyOf(found);
    }

    /**
     * PostgreSQL: the two name lists as arrays, once per use of the match in the text. The uses are
     * counted from the parameters the lexer finds, so that a {@code ?} in a string or a comment, or
     * pgjdbc's escaped operator {@code ??|}, is not taken for one.
     */
    static void bindArrays(Connection connection, PreparedStatement query, String sql, Names names)
            throws SQLException {
        int parameters = parameterCount(sql, Dialect.POSTGRESQL);
        if (parameters % 2 != 0) {
            throw new IllegalStateException("a catalog query whose parameters are not pairs of name lists: " + sql);
        }
        for (int use = 0; use < parameters / 2; use++) {
            query.setArray(2 * use + 1, connection.createArrayOf("text", names.tables.toArray()));
            query.setArray(2 * use + 2, connection.createArrayOf("text", names.qualified.toArray()));
        }
    }

    /** MariaDB: the names as IN lists, in the order the text lists them. */
    static void bindLists(Connection connection, PreparedStatement query, String sql, Names names)
            throws SQLException {
        int index = 1;
        for (String table : names.tables) {
            query.setString(index++, table);
        }
        for (String qualified : names.qualified) {
            query.setString(index++, qualified);
        }
    }

    private static int parameterCount(String sql, Dialect dialect) {
        SqlTokens tokens;
        try {
            tokens = SqlTokens.lex(sql, dialect);
        } catch (SqlTokens.UnreadableSqlException unreadable) {
            throw new IllegalStateException("an unreadable catalog query: " + sql, unreadable);
        }
        int parameters = 0;
        for (int i = 0; i < tokens.size(); i++) {
            if (tokens.kind(i) == SqlTokens.PARAMETER) {
                parameters++;
            }
        }
        return parameters;
    }

    /** The table named by the namespace in column {@code column} and the name in the next. */
    private static LocatedTable located(ResultSet row, int column) throws SQLException {
        return LocatedTable.inNamespace(row.getString(column), row.getString(column + 1));
    }

    private static Reference reference(ResultSet row) throws SQLException {
        return new Reference(located(row, 1), located(row, 3),
                PostgresCatalog.rule(row.getString(5)), PostgresCatalog.rule(row.getString(6)));
    }

    private static Reference mariaDbReference(ResultSet row) throws SQLException {
        return new Reference(located(row, 1), located(row, 3),
                MariaDbCatalog.rule(row.getString(5)), MariaDbCatalog.rule(row.getString(6)));
    }

    private static Inheritance inheritance(ResultSet row) throws SQLException {
        return new Inheritance(located(row, 1), located(row, 3), "p".equals(row.getString(5)));
    }

    /**
     * Any other database: the fenced tables in every schema, then each one's imported keys and each
     * parent's in turn. A driver that answers a metadata call with null (against the JDBC contract;
     * stub drivers do) is taken to know no table or foreign key.
     */
    private static CatalogReach throughMetadata(DatabaseMetaData metadata, Collection<TableName> configured)
            throws SQLException {
        Set<LocatedTable> fenced = new LinkedHashSet<>();
        // a pattern matches case-sensitively, and a quoted name may mix cases ("Orders"): every
        // table is listed and matched here as the driver matches names, without case
        try (ResultSet rows = metadata.getTables(null, null, "%", null)) {
            while (rows != null && rows.next()) {
                String name = rows.getString("TABLE_NAME");
                String schema = rows.getString("TABLE_SCHEM");
                String namespace = schema != null ? schema : rows.getString("TABLE_CAT");
                for (TableName table : configured) {
                    if (name != null && name.equalsIgnoreCase(table.table()) && (table.schema() == null
                            || namespace != null && namespace.equalsIgnoreCase(table.schema()))) {
                        fenced.add(LocatedTable.inNamespace(namespace, name));
                    }
                }
            }
        }
        List<Reference> references = new ArrayList<>();
        Deque<LocatedTable> queue = new ArrayDeque<>(fenced);
        Set<LocatedTable> seen = new HashSet<>(fenced);
        boolean schemas = metadata.supportsSchemasInTableDefinitions();
        while (!queue.isEmpty()) {
            LocatedTable child = queue.poll();
            try (ResultSet rows = schemas ? metadata.getImportedKeys(null, child.schema(), child.name())
                    : metadata.getImportedKeys(child.schema(), null, child.name())) {
                while (rows != null && rows.next()) {
                    String schema = rows.getString("PKTABLE_SCHEM");
                    LocatedTable parent = LocatedTable.inNamespace(schema != null ? schema : rows.getString("PKTABLE_CAT"),
                            rows.getString("PKTABLE_NAME"));
                    references.add(new Reference(child, parent, rows.getShort("DELETE_RULE"), rows.getShort("UPDATE_RULE")));
                    if (seen.add(parent)) {
                        queue.add(parent);
                    }
                }
            }
        }
        return new CatalogReach(List.copyOf(fenced), List.copyOf(references), List.of());
    }

    /** PostgreSQL's catalog: pg_class, pg_constraint and pg_inherits, filtered by the configured names. */
    private static final class PostgresCatalog {

        /** Tables, partitioned tables and foreign tables whose name a configured name matches. */
        private static final String MATCHING = "SELECT c.oid, c.relname FROM pg_catalog.pg_class c "
                + "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p', 'f') "
                + "AND (lower(c.relname) = ANY (?::text[]) OR lower(n.nspname) || '.' || lower(c.relname) = ANY (?::text[]))";

        static final String FENCED = "SELECT n.nspname, c.relname FROM pg_catalog.pg_class c "
                + "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid IN (SELECT oid FROM ("
                + MATCHING + ") m)";

        /**
         * Every table a write can reach from the fenced ones: their foreign keys' parents and their
         * inheritance relatives both ways (children, parents, partitions), then theirs, at any depth.
         */
        private static final String REACHED = "WITH RECURSIVE fenced AS (" + MATCHING + "), "
                // each step looks up the reached table's own edges through the catalogs' indexes
                // (conrelid, inhrelid, inhparent), so the walk grows with what it reaches, not with
                // the catalog's size times it
                + "reached (oid) AS (SELECT oid FROM fenced UNION SELECT e.target FROM reached r CROSS JOIN LATERAL ("
                + "SELECT k.confrelid AS target FROM pg_catalog.pg_constraint k WHERE k.conrelid = r.oid AND k.contype = 'f' "
                + "UNION ALL SELECT i.inhparent FROM pg_catalog.pg_inherits i WHERE i.inhrelid = r.oid "
                + "UNION ALL SELECT i.inhrelid FROM pg_catalog.pg_inherits i WHERE i.inhparent = r.oid) e) ";

        /** The foreign keys of the reached tables: child, parent and their actions. */
        static final String REFERENCES = REACHED
                + "SELECT cn.nspname, cc.relname, pn.nspname, pc.relname, k.confdeltype, k.confupdtype "
                + "FROM reached r JOIN pg_catalog.pg_constraint k ON k.conrelid = r.oid AND k.contype = 'f' "
                + "JOIN pg_catalog.pg_class cc ON cc.oid = k.conrelid JOIN pg_catalog.pg_namespace cn ON cn.oid = cc.relnamespace "
                + "JOIN pg_catalog.pg_class pc ON pc.oid = k.confrelid JOIN pg_catalog.pg_namespace pn ON pn.oid = pc.relnamespace";

        /** The inheritance edges of the reached tables: child, parent and the parent's kind. */
        static final String INHERITANCE = REACHED
                + "SELECT cn.nspname, cc.relname, pn.nspname, pc.relname, pc.relkind "
                + "FROM reached r JOIN pg_catalog.pg_inherits i ON i.inhrelid = r.oid "
                + "JOIN pg_catalog.pg_class cc ON cc.oid = i.inhrelid JOIN pg_catalog.pg_namespace cn ON cn.oid = cc.relnamespace "
                + "JOIN pg_catalog.pg_class pc ON pc.oid = i.inhparent JOIN pg_catalog.pg_namespace pn ON pn.oid = pc.relnamespace";

        /** pg_constraint's action codes as {@link DatabaseMetaData}'s rules. */
        static short rule(String code) {
            return switch (code) {
                case "c" -> DatabaseMetaData.importedKeyCascade;
                case "n" -> DatabaseMetaData.importedKeySetNull;
                case "d" -> DatabaseMetaData.importedKeySetDefault;
                case "r" -> DatabaseMetaData.importedKeyRestrict;
                default -> DatabaseMetaData.importedKeyNoAction;
            };
        }
    }

    /** MariaDB's information_schema, where a schema is a database; it has no table inheritance. */
    private static final class MariaDbCatalog {

        /** Tables that hold rows: plain and system-versioned (views and sequences hold none of their own). */
        private static final String TABLES = "TABLE_TYPE IN ('BASE TABLE', 'SYSTEM VERSIONED')";

        private static String matching(Names names) {
            return "(LOWER(TABLE_NAME) IN (" + placeholders(names.tables.size()) + ") OR CONCAT(LOWER(TABLE_SCHEMA), '.', "
                    + "LOWER(TABLE_NAME)) IN (" + placeholders(names.qualified.size()) + "))";
        }

        private static String placeholders(int count) {
            return count == 0 ? "NULL" : String.join(", ", java.util.Collections.nCopies(count, "?"));
        }

        static String fenced(Names names) {
            return "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE " + TABLES + " AND "
                    + matching(names);
        }

        static String references(Names names) {
            return "WITH RECURSIVE reached (db, name) AS (SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES "
                    + "WHERE " + TABLES + " AND " + matching(names) + " UNION "
                    + "SELECT rc.UNIQUE_CONSTRAINT_SCHEMA, rc.REFERENCED_TABLE_NAME FROM information_schema.REFERENTIAL_CONSTRAINTS rc "
                    + "JOIN reached r ON rc.CONSTRAINT_SCHEMA = r.db AND rc.TABLE_NAME = r.name) "
                    + "SELECT rc.CONSTRAINT_SCHEMA, rc.TABLE_NAME, rc.UNIQUE_CONSTRAINT_SCHEMA, rc.REFERENCED_TABLE_NAME, "
                    + "rc.DELETE_RULE, rc.UPDATE_RULE FROM information_schema.REFERENTIAL_CONSTRAINTS rc "
                    + "JOIN reached r ON rc.CONSTRAINT_SCHEMA = r.db AND rc.TABLE_NAME = r.name";
        }

        /** information_schema's rule names as {@link DatabaseMetaData}'s rules. */
        static short rule(String name) {
            return switch (name == null ? "" : name.toUpperCase(Locale.ROOT)) {
                case "CASCADE" -> DatabaseMetaData.importedKeyCascade;
                case "SET NULL" -> DatabaseMetaData.importedKeySetNull;
                case "SET DEFAULT" -> DatabaseMetaData.importedKeySetDefault;
                case "RESTRICT" -> DatabaseMetaData.importedKeyRestrict;
                default -> DatabaseMetaData.importedKeyNoAction;
            };
        }
    }
}
