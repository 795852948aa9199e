package dev.fencing.internal.config;

import dev.fencing.FencingConfig;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A configuration's fenced tables as the driver matches them: parsed names and each table's mode.
 * It is read from {@link FencingConfig}'s public view ({@link FencingConfig#tables()}, whose names
 * are plain identifiers and so parse back to the same names, and {@link FencingConfig#modeOf}), so
 * that the public class needs nothing of this one.
 */
public final class FencedTableSet {

    private final Set<TableName> names;
    private final Map<TableName, FencingConfig.Mode> modes;
    private final FencingConfig.Mode defaultMode;

    private FencedTableSet(Set<TableName> names, Map<TableName, FencingConfig.Mode> modes, FencingConfig.Mode defaultMode) {
        this.names = Collections.unmodifiableSet(names);
        this.modes = Collections.unmodifiableMap(modes);
        this.defaultMode = Objects.requireNonNull(defaultMode, "defaultMode");
    }

    /** The fenced tables of {@code config}. */
    public static FencedTableSet of(FencingConfig config) {
        Set<TableName> names = new LinkedHashSet<>();
        Map<TableName, FencingConfig.Mode> modes = new LinkedHashMap<>();
        for (String table : config.tables()) {
            TableName name = TableName.parse(table);
            names.add(name);
            modes.put(name, config.modeOf(table));
        }
        return new FencedTableSet(names, modes, config.mode());
    }

    /** The fenced tables, in configuration order. */
    public Set<TableName> names() {
        return names;
    }

    /** The configured table that {@code target} may mean, or null when it names no fenced table. */
    public TableName fencedTableFor(TableName target) {
        for (TableName table : names) {
            if (table.matches(target)) {
                return table;
            }
        }
        return null;
    }

    /** The mode of one fenced table: its own {@code fencing.table.<name>.mode}, else the default mode. */
    public FencingConfig.Mode modeOf(TableName fencedTable) {
        return modes.getOrDefault(fencedTable, defaultMode);
    }
}
