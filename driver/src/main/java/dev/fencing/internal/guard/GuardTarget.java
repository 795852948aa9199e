package dev.fencing.internal.guard;

import dev.fencing.FencingConfig;

/**
 * One real table the guard protects: a fenced table as found in the catalog (an unqualified
 * configured name can be found in several schemas), or a partition or inheritance child of one.
 *
 * @param schema        the schema (PostgreSQL, H2) or database (MariaDB), as the catalog spells it
 * @param table         the table, as the catalog spells it
 * @param mode          row or epoch, from the configured table it was found for
 * @param rowTriggerInherited true for a partition of a partitioned table (PostgreSQL clones the
 *                      parent's row trigger onto it; only statement-level triggers are its own)
 */
record GuardTarget(String schema, String table, FencingConfig.Mode mode, boolean rowTriggerInherited) {

    /** {@code schema.table} as the catalog spells it, for messages. */
    String qualified() {
        return schema + "." + table;
    }
}
