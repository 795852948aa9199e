package dev.fencing.internal.sql;

import dev.fencing.FencingConfig;
import dev.fencing.FencingException;
import dev.fencing.internal.config.FencedTableSet;
import dev.fencing.internal.config.TableName;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Checks, the first time a fenced write names a row-mode table on one database, that the table
 * has the fence column ({@code fencing.column}) and that it holds integers. Without the check a
 * misnamed column surfaces as the database's own error at the first write ("column orders.fence_no
 * does not exist"), which names neither fencing nor the setting to change.
 *
 * <p>A table the metadata does not show yet (Flyway or Hibernate create it later, or the
 * statement is about to fail on the missing table anyway) is looked up again when it is next
 * named, at most once a second, so that a table the lookup cannot
 * see (on PostgreSQL's {@code search_path} beyond the current schema, a temporary table, a stub
 * driver) costs no metadata query per write. A table that passed is remembered and costs a set
 * lookup afterwards. Epoch-mode tables carry no fence column and are not checked. The check gives
 * a clear message; it is not what keeps writes safe (the spliced check names the column, and
 * the database refuses a statement whose column is missing).
 */
public final class FenceColumnCheck {

    private final FencingConfig config;
    private final FencedTableSet tables;
    /** Between two lookups of a table the metadata did not show: one second. */
    static final long MISSING_RECHECK_NANOS = 1_000_000_000L;

    /** The configured tables (as written) whose column passed on this database. */
    private final Set<String> passed = ConcurrentHashMap.newKeySet();
    /** The configured tables the metadata did not show, with when that was ({@link System#nanoTime}). */
    private final Map<String, Long> missingSince = new ConcurrentHashMap<>();

    FenceColumnCheck(FencingConfig config) {
        this.config = config;
        this.tables = FencedTableSet.of(config);
    }

    /**
     * Refuses {@code plan} when it writes a row-mode table whose fence column is missing or not an
     * integer; reads {@code database}'s metadata only until the table has passed once.
     *
     * @throws FencingException naming the table and the column; nothing was sent
     */
    public void require(FencePlan plan, Connection database) throws SQLException {
        String table = plan.fencedTable();
        if (table == null || passed.contains(table)) {
            return;
        }
        Long missing = missingSince.get(table);
        long now = System.nanoTime();
        if (missing != null && now - missing < MISSING_RECHECK_NANOS) {
            return;
        }
        TableName name = tables.fencedTableFor(TableName.parse(table));
        if (name == null || tables.modeOf(name) == FencingConfig.Mode.EPOCH) {
            return;
        }
        if (check(database, name)) {
            passed.add(table);
            missingSince.remove(table);
        } else {
            missingSince.put(table, now);
        }
    }

    /** The configured tables whose fence column has passed on this database, sorted. */
    public Set<String> passed() {
        return new TreeSet<>(passed);
    }

    /** True when the table was found and every copy of it has the column; false when it was not found. */
    private boolean check(Connection database, TableName table) throws SQLException {
        DatabaseMetaData metadata = database.getMetaData();
        String currentSchema = database.getSchema();
        String currentCatalog = currentSchema == null ? database.getCatalog() : null;
        List<LocatedTable> found = SchemaFacts.locate(metadata, table, currentSchema, currentCatalog);
        for (LocatedTable located : found) {
            requireColumn(metadata, table, located);
        }
        return !found.isEmpty();
    }

    private void requireColumn(DatabaseMetaData metadata, TableName table, LocatedTable located)
            throws SQLException {
        String column = config.column();
        try (ResultSet columns = metadata.getColumns(located.catalog(), located.schema(), located.name(), null)) {
            while (columns != null && columns.next()) {
                // the table name is a pattern ('_' matches any character): only this table's columns count
                if (located.name().equals(columns.getString("TABLE_NAME"))
                        && column.equalsIgnoreCase(columns.getString("COLUMN_NAME"))) {
                    if (!holdsIntegers(columns.getInt("DATA_TYPE"), columns.getInt("DECIMAL_DIGITS"))) {
                        throw new FencingException("the fence column " + column + " of fenced table " + table
                                + " is of type " + columns.getString("TYPE_NAME").toLowerCase(Locale.ROOT)
                                + "; it must hold integers (BIGINT); nothing was sent. Change the column's type, or"
                                + " set fencing.column to the BIGINT column that holds the fence");
                    }
                    return;
                }
            }
        }
        throw new FencingException("fenced table " + table + " has no fence column " + column + " (fencing.column);"
                + " nothing was sent. Add it (ALTER TABLE " + table + " ADD COLUMN " + column
                + " BIGINT NOT NULL DEFAULT 0), set fencing.column to the column that holds the fence, or put the"
                + " table in epoch mode (fencing.table." + table + ".mode=epoch), which needs no column");
    }

    private static boolean holdsIntegers(int type, int scale) {
        return switch (type) {
            case Types.BIGINT, Types.INTEGER, Types.SMALLINT, Types.TINYINT -> true;
            case Types.NUMERIC, Types.DECIMAL -> scale == 0;
            default -> false;
        };
    }
}
