package dev.fencing.internal.sql;

import dev.fencing.FencingConfig;
import dev.fencing.internal.config.TableName;

/**
 * One write, as the parser and the text read it: passed (not fenced), checked by the guard,
 * an epoch-mode write, refused, or spliced with the check.
 */
final class WriteRules {

    private WriteRules() {
    }

    /** The decision for {@code write}, located at {@code site} in {@code statement}. */
    static Decision decide(AnalysisContext context, StatementView statement, ParsedWrites.ParsedWrite write, WriteSite site) {
        TableName fenced = context.fencedTables().fencedTableFor(write.target());
        Decision cascade = cascade(context, write, site, fenced);
        if (cascade.refuses()) {
            return cascade;
        }
        // MERGE, REPLACE and TRUNCATE are never spliced, so only their kind must agree
        boolean agree = site.kind() == write.kind()
                && (site.kind() == ParsedWrites.Kind.OTHER || write.target().equals(site.targetName(statement.tokens())));
        if ((write.multiTable() || site.multiTable()) && context.guard()) {
            // MariaDB fires the row triggers of each table it writes
            return new Decision.GuardChecked(null);
        }
        if (write.multiTable() || site.multiTable()) {
            // MariaDB writes any of the tables it names, whichever comes first
            return multiTableWrite(context, write, statement.raw());
        }
        if (fenced == null && agree) {
            return Decision.PASS;
        }
        String table = fenced == null ? null : fenced.toString();
        if (!agree) {
            if (site.unsupported() != null && fenced != null) {
                return new Decision.Refuse(table, write.description() + " on fenced table " + table + " is refused: "
                        + site.unsupported());
            }
            return new Decision.Refuse(table, "the statement's writes could not be located with certainty ("
                    + write.description() + " of " + write.target() + ")");
        }
        if (context.fencedTables().modeOf(fenced) == FencingConfig.Mode.EPOCH) {
            return epochWrite(write, table);
        }
        return rowModeWrite(context, write, site, table);
    }

    /**
     * A refusal of a write of a table that is not fenced because its rows are, or include, fenced
     * rows (a PostgreSQL inheritance relative or partition), or because a foreign-key action
     * carries it into a fenced one, else {@link Decision#PASS} (with the guard required, the triggers check
     * cascaded writes, MariaDB's on the parents).
     */
    private static Decision cascade(AnalysisContext context, ParsedWrites.ParsedWrite write, WriteSite site,
                                    TableName fenced) {
        String shared = fenced == null ? context.facts().sharesRows(write.target()) : null;
        if (shared != null) {
            // with the guard too: a child's or partition's own writes need not fire the fenced table's triggers
            return new Decision.Refuse(context.firstConfiguredTable(), write.description() + " of " + write.target()
                    + " writes rows of a fenced table (" + shared + "), where no fence check reaches them; write the"
                    + " fenced rows through the fenced table with fenced statements, or add " + write.target()
                    + " to fencing.tables so that its writes carry the fence");
        }
        String cascade = fenced == null && !context.guard()
                ? context.facts().cascadeInto(write.target(), cascadingEvents(write, site)) : null;
        if (cascade == null) {
            return Decision.PASS;
        }
        return new Decision.Refuse(context.firstConfiguredTable(), write.description() + " of " + write.target()
                + " reaches a fenced table through a foreign-key action (" + cascade + "), where the database writes"
                + " the fenced rows itself and no fence check can be carried; write the fenced rows first with fenced"
                + " statements, or require the database guard (fencing.database-guard=required) so that the database"
                + " checks cascaded writes");
    }

    /** The events a write makes on existing rows of its target ({@link SchemaFacts#DELETE}, {@link SchemaFacts#UPDATE}). */
    private static int cascadingEvents(ParsedWrites.ParsedWrite write, WriteSite site) {
        if (write.multiTable() || site.multiTable() || write.kind() == ParsedWrites.Kind.OTHER) {
            return SchemaFacts.DELETE | SchemaFacts.UPDATE; // MERGE, REPLACE (a delete), TRUNCATE ..
        }
        return switch (write.kind()) {
            case DELETE -> SchemaFacts.DELETE;
            case UPDATE -> SchemaFacts.UPDATE;
            default -> write.mysqlUpsert() || site.hasConflictUpdate() ? SchemaFacts.UPDATE : 0;
        };
    }

    /**
     * A write of a row-mode fenced table whose two readings agree: checked by the guard (forms
     * whose row triggers fire), refused (forms that cannot carry the check), or spliced.
     */
    private static Decision rowModeWrite(AnalysisContext context, ParsedWrites.ParsedWrite write, WriteSite site,
                                         String table) {
        if (context.guard() && (write.mysqlUpsert() || write.kind() == ParsedWrites.Kind.OTHER
                && !write.description().equals("TRUNCATE")) && !write.setsColumn()) {
            // MERGE, REPLACE and ON DUPLICATE KEY UPDATE fire the row triggers of what they change
            return new Decision.GuardChecked(table);
        }
        if (write.kind() == ParsedWrites.Kind.OTHER) {
            return new Decision.Refuse(table, write.description() + " on fenced table " + table
                    + " cannot carry the fence check"
                    + (write.description().equals("MERGE") ? "; write it as INSERT .. ON CONFLICT or UPDATE" : ""));
        }
        if (write.mysqlUpsert()) {
            return new Decision.Refuse(table, "INSERT .. ON DUPLICATE KEY UPDATE on fenced table " + table
                    + " cannot carry the check; use a fenced UPDATE and INSERT");
        }
        if (write.setsColumn()) {
            return new Decision.Refuse(table, "the statement sets the fence column " + context.config().column() + " of "
                    + table + " itself; fencing-jdbc owns that column, remove it from the statement");
        }
        if (site.unsupported() != null) {
            return new Decision.Refuse(table, write.description() + " on fenced table " + table + " is refused: "
                    + site.unsupported());
        }
        return new Decision.Splice(site, table);
    }

    /**
     * A write to an epoch-mode table needs no rewrite: the guard row, checked in the same
     * transaction, protects INSERT, UPDATE, DELETE, MERGE and upserts alike. Only what bypasses
     * row-level writing altogether is refused.
     */
    private static Decision epochWrite(ParsedWrites.ParsedWrite write, String table) {
        if (write.description().equals("TRUNCATE")) {
            return new Decision.Refuse(table, "TRUNCATE on fenced table " + table + " is refused (it is not a row-level"
                    + " write; delete the rows instead)");
        }
        return new Decision.EpochWrite(table);
    }

    /**
     * A write of several tables (MariaDB) may change any table it names, not only the first:
     * refused when it names a row-mode fenced table, guarded when it names only epoch-mode ones.
     */
    private static Decision multiTableWrite(AnalysisContext context, ParsedWrites.ParsedWrite write, String raw) {
        boolean epochOnly = true;
        TableName named = null;
        for (TableName table : context.fencedTables().names()) {
            if (new FencedNameFilter(java.util.Set.of(table)).mayNameFencedTable(raw)) {
                if (named == null || context.fencedTables().modeOf(table) == FencingConfig.Mode.ROW) {
                    named = table;
                }
                epochOnly &= context.fencedTables().modeOf(table) == FencingConfig.Mode.EPOCH;
            }
        }
        FencedNameFilter parents = context.cascadeParentFilter();
        if (named == null && !context.guard() && parents != null && parents.mayNameFencedTable(raw)) {
            return new Decision.Refuse(context.firstConfiguredTable(), "a " + write.description() + " of several tables"
                    + " that names a table whose writes cascade into a fenced table cannot carry the check; write each"
                    + " table in its own statement, or require the database guard (fencing.database-guard=required)");
        }
        if (named == null) {
            return Decision.PASS;
        }
        String table = named.toString();
        if (!epochOnly) {
            return new Decision.Refuse(table, "a " + write.description() + " of several tables that names fenced table "
                    + table + " cannot carry the check (it may write any table it names); write each table in its own"
                    + " statement");
        }
        return new Decision.EpochWrite(table);
    }
}
