package dev.fencing.internal.sql;

import dev.fencing.FencingConfig;
import dev.fencing.internal.config.FencedTableSet;
import dev.fencing.internal.config.TableName;

/**
 * What every rule of one text's analysis may read, and nothing it may change: the configuration,
 * the dialect, the fenced tables, the metadata's facts as they were when the analysis began; and
 * the {@link AnalysisBudget} every phase of it spends.
 */
record AnalysisContext(FencingConfig config, Dialect dialect, FencedTableSet fencedTables, SchemaFacts facts,
                       FencedNameFilter filter, FencedNameFilter cascadeParentFilter, SqlParser parser,
                       AnalysisBudget budget) {

    static final System.Logger LOG = System.getLogger(StatementAnalyzer.class.getName());

    /** fencing.database-guard=required: forms the triggers check are sent as written. */
    boolean guard() {
        return config.guardRequired();
    }

    boolean epochTables() {
        return config.hasEpochTables();
    }

    boolean rejectsProcedureCalls() {
        return config.procedureCalls() == FencingConfig.ProcedureCalls.REJECT;
    }

    /** True when the text may name a fenced table or a table whose writes cascade into one. */
    boolean mentionsWatchedTable(String sql) {
        return filter.mayNameFencedTable(sql) || (cascadeParentFilter != null && cascadeParentFilter.mayNameFencedTable(sql));
    }

    String firstConfiguredTable() {
        return fencedTables.names().iterator().next().toString();
    }

    /**
     * True for a fenced table's name, and for a PostgreSQL relative's whose rows are, or include,
     * fenced rows: DDL on one ({@code DROP} of a partition, {@code ALTER .. TYPE .. USING} or
     * {@code DROP .. CASCADE} of a parent) changes fenced rows as much.
     */
    boolean isFencedName(String identifier) {
        for (TableName table : fencedTables.names()) {
            if (table.table().equals(identifier)) {
                return true;
            }
        }
        return facts().sharesRows(TableName.of(null, identifier)) != null;
    }

    static String abbreviate(String sql) {
        return sql.length() <= 200 ? sql : sql.substring(0, 200) + "...";
    }
}
