package dev.fencing.internal.sql;

import java.util.Locale;

/**
 * A table as the database names it: its catalog, schema and name as {@link
 * java.sql.DatabaseMetaData} reports them. Where only one namespace is known (the catalog queries
 * of {@link CatalogReach} read a schema, or MariaDB's database), it is held as the schema and the
 * catalog is null, so that two tables are the same when their namespace and name are.
 */
record LocatedTable(String catalog, String schema, String name) {

    /** A table known by one namespace (a schema, or MariaDB's database) and its name. */
    static LocatedTable inNamespace(String namespace, String name) {
        return new LocatedTable(null, namespace, name);
    }

    /** The name folded to lower case, as the analyzer compares names. */
    String folded() {
        return name.toLowerCase(Locale.ROOT);
    }
}
