package dev.fencing.internal.sql;

import dev.fencing.internal.config.TableName;

import java.util.Set;

/**
 * The forms the front door admits only because the database guard checks them ({@code CALL},
 * {@code DO}, {@code MERGE}, {@code COPY}, {@code REPLACE}, SQL-level {@code EXECUTE}, MariaDB's
 * multi-table writes) are checked by triggers that exist only in the schemas the guard covers
 * (issue 27). Such a form that names a schema-qualified table matching an unqualified fenced name
 * in another schema would write it unchecked, so it is refused. Only names written in the text
 * are seen (not what a procedure body or a {@code DO} string names).
 */
final class GuardScopeCheck {

    private GuardScopeCheck() {
    }

    /**
     * The first {@code schema.table} in {@code tokens} whose table matches an unqualified fenced
     * name and whose schema is not in {@code covered} (folded names), or null. In a three-part
     * name both adjacent pairs are read (PostgreSQL's {@code db.schema.table} and
     * {@code schema.table.column}): reading too much only refuses more.
     */
    static String uncoveredName(SqlTokens tokens, Set<TableName> fenced, Set<String> covered) {
        for (int i = 0; i + 2 < tokens.size(); i++) {
            if (!tokens.isIdentifier(i) || tokens.kind(i + 1) != SqlTokens.DOT || !tokens.isIdentifier(i + 2)) {
                continue;
            }
            String schema = tokens.identifier(i);
            String table = tokens.identifier(i + 2);
            if (covered.contains(schema)) {
                continue;
            }
            for (TableName name : fenced) {
                if (name.schema() == null && name.table().equals(table) && !fenced.contains(TableName.of(schema, table))) {
                    return schema + "." + table;
                }
            }
        }
        return null;
    }
}
