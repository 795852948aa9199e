package dev.fencing.internal.config;

import dev.fencing.FencingConfig;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * A configuration's fenced tables as the driver matches them: parsed names and per-table modes. The
 * public {@link FencingConfig} shows tables as strings only; the driver reads this view through
 * {@link #of(FencingConfig)}, which {@code FencingConfig} grants when its class is initialised (so the
 * public API never names an internal type).
 */
public final class FencedTableSet {

    private static volatile Function<FencingConfig, FencedTableSet> access;

    private final Set<TableName> names;
    private final Map<TableName, FencingConfig.Mode> modes;
    private final FencingConfig.Mode defaultMode;

    public FencedTableSet(Set<TableName> names, Map<TableName, FencingConfig.Mode> modes, FencingConfig.Mode defaultMode) {
        this.names = Collections.unmodifiableSet(new LinkedHashSet<>(names));
        this.modes = Collections.unmodifiableMap(new LinkedHashMap<>(modes));
        this.defaultMode = Objects.requireNonNull(defaultMode, "defaultMode");
    }

    /** Called once, by {@code FencingConfig}'s static initialiser. */
    public static void grant(Function<FencingConfig, FencedTableSet> accessor) {
        synchronized (FencedTableSet.class) {
            if (access != null) {
                throw new IllegalStateException("the fenced-table view is granted once, by FencingConfig");
            }
            access = Objects.requireNonNull(accessor, "accessor");
        }
    }

    /** The fenced tables of {@code config} (its class is initialised: an instance exists). */
    public static FencedTableSet of(FencingConfig config) {
        return access.apply(Objects.requireNonNull(config, "config"));
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

    /** The tables whose mode is set on its own. */
    public Map<TableName, FencingConfig.Mode> ownModes() {
        return modes;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof FencedTableSet that && names.equals(that.names) && modes.equals(that.modes)
                && defaultMode == that.defaultMode;
    }

    @Override
    public int hashCode() {
        return Objects.hash(names, modes, defaultMode);
    }
}
