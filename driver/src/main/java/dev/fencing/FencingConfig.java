package dev.fencing;

import dev.fencing.internal.config.ConfigKey;
import dev.fencing.internal.config.Identifiers;
import dev.fencing.internal.config.TableName;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;

/**
 * What fencing-jdbc fences and how. Immutable; build it from a properties file
 * ({@link #load(Path)}), from properties ({@link #fromProperties(Properties)}) or with
 * {@link #builder()}. Every invalid value fails with an {@link IllegalArgumentException} whose
 * message names the key and the allowed values. Unknown {@code fencing.*} keys are refused too:
 * a misspelt key would otherwise silently fence nothing.
 */
public final class FencingConfig {

    public static final String TABLES = ConfigKey.TABLES.key();
    public static final String COLUMN = ConfigKey.COLUMN.key();
    public static final String COMPARISON = ConfigKey.COMPARISON.key();
    public static final String ON_ZERO_ROWS = ConfigKey.ON_ZERO_ROWS.key();
    public static final String MODE = ConfigKey.MODE.key();
    public static final String PROCEDURE_CALLS = ConfigKey.PROCEDURE_CALLS.key();
    public static final String PLAN_CACHE_SIZE = ConfigKey.PLAN_CACHE_SIZE.key();
    public static final String PARSE_TIMEOUT_MILLIS = ConfigKey.PARSE_TIMEOUT_MILLIS.key();
    public static final String EPOCH_TABLE = ConfigKey.EPOCH_TABLE.key();
    public static final String DATABASE_GUARD = ConfigKey.DATABASE_GUARD.key();
    public static final String DATABASE_GUARD_SCHEMAS = ConfigKey.DATABASE_GUARD_SCHEMAS.key();
    public static final String CONFIG = ConfigKey.CONFIG.key();
    /** The prefix of the javaagent's own keys, which this class accepts and leaves to the agent. */
    public static final String AGENT_PREFIX = "fencing.agent.";

    /** The prefix of every key fencing-jdbc reads; such keys are never passed to a delegate driver. */
    public static final String KEY_PREFIX = ConfigKey.PREFIX;

    /** How a write's fence is compared with the fence already on a row. */
    public enum Comparison {
        /** Applied when {@code column <= token}: a holder may write a row many times in its tenure. */
        NEWER_OR_EQUAL("newer-or-equal", "<="),
        /** Applied only when {@code column < token}: each token writes a row at most once. */
        STRICTLY_NEWER("strictly-newer", "<");

        private final String key;
        private final String operator;

        Comparison(String key, String operator) {
            this.key = key;
            this.operator = operator;
        }

        /** The SQL operator placed between the row's fence and the token. */
        public String operator() {
            return operator;
        }

        /** True when a write carrying {@code token} may change a row whose fence is {@code rowFence}. */
        public boolean admits(long rowFence, long token) {
            return this == NEWER_OR_EQUAL ? rowFence <= token : rowFence < token;
        }

        @Override
        public String toString() {
            return key;
        }
    }

    /** What a fenced write that changed no row means. */
    public enum ZeroRows {
        /** Find out why: raise only when a matching row holds a newer fence. */
        DIAGNOSE("diagnose"),
        /** Every fenced write that changes no row raises {@link StaleFenceException}. */
        RAISE("raise");

        private final String key;

        ZeroRows(String key) {
            this.key = key;
        }

        @Override
        public String toString() {
            return key;
        }
    }

    /** Where the fence is recorded and checked. */
    public enum Mode {
        /** The fence column on each fenced table. */
        ROW("row"),
        /** One epoch row per lock (in the epoch table), claimed by each tenure and checked by every write transaction. */
        EPOCH("epoch");

        private final String key;

        Mode(String key) {
            this.key = key;
        }

        @Override
        public String toString() {
            return key;
        }
    }

    /** What to do with stored procedure calls and other SQL whose writes no parser can see. */
    public enum ProcedureCalls {
        /** Send them, logging a warning once per statement text. */
        ALLOW("allow"),
        /** Refuse them with {@link UnfenceableStatementException}. */
        REJECT("reject");

        private final String key;

        ProcedureCalls(String key) {
            this.key = key;
        }

        @Override
        public String toString() {
            return key;
        }
    }

    /** Whether the database guard (triggers on every fenced table) must be installed and fed the session's fence. */
    public enum Guard {
        /** No session fence is kept; the front door (the analyzer's rewrite) alone enforces. */
        OFF("off"),
        /**
         * Every fenced table must carry the current guard at the first connection, else every fenced
         * write fails closed; the database session always holds the fence in scope.
         */
        REQUIRED("required");

        private final String key;

        Guard(String key) {
            this.key = key;
        }

        @Override
        public String toString() {
            return key;
        }
    }

    /** The fenced tables, parsed, in configuration order. */
    private final Set<TableName> tables;
    /** The tables whose mode is set on its own ({@code fencing.table.<name>.mode}). */
    private final Map<TableName, Mode> ownModes;
    /** {@link #tables()}, written once: the set of strings the configuration was built from. */
    private final Set<String> tableNames;
    private final String column;
    private final Comparison comparison;
    private final ZeroRows onZeroRows;
    private final Mode mode;
    private final ProcedureCalls procedureCalls;
    private final int planCacheSize;
    private final long parseTimeoutMillis;
    private final String epochTable;
    private final Guard databaseGuard;
    private final List<String> guardSchemas;

    private FencingConfig(Builder builder) {
        this.tables = Collections.unmodifiableSet(new LinkedHashSet<>(builder.tables));
        this.ownModes = Collections.unmodifiableMap(new LinkedHashMap<>(builder.tableModes));
        Set<String> names = new LinkedHashSet<>();
        tables.forEach(t -> names.add(t.toString()));
        this.tableNames = Collections.unmodifiableSet(names);
        this.column = builder.column;
        this.comparison = builder.comparison;
        this.onZeroRows = builder.onZeroRows;
        this.mode = builder.mode;
        this.procedureCalls = builder.procedureCalls;
        this.planCacheSize = builder.planCacheSize;
        this.parseTimeoutMillis = builder.parseTimeoutMillis;
        this.epochTable = builder.epochTable;
        this.databaseGuard = builder.databaseGuard;
        this.guardSchemas = List.copyOf(builder.guardSchemas);
    }

    /** Reads a properties file (ISO-8859-1 escapes are not needed: it is read as UTF-8). */
    public static FencingConfig load(Path file) {
        Objects.requireNonNull(file, "file");
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read fencing configuration file " + file + ": " + e, e);
        }
        return fromProperties(properties);
    }

    /**
     * Builds a configuration from the {@code fencing.*} keys of {@code properties}; other keys are
     * ignored ({@code fencing.config} too: resolving it is the caller's job).
     */
    public static FencingConfig fromProperties(Properties properties) {
        Objects.requireNonNull(properties, "properties");
        Builder builder = builder();
        for (String key : properties.stringPropertyNames()) {
            if (key.startsWith(KEY_PREFIX) && !key.equals(CONFIG)) {
                builder.set(key, properties.getProperty(key));
            }
        }
        return builder.build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The fenced tables as configured: {@code table} or {@code schema.table}, folded to lower case,
     * quotes removed, in configuration order.
     */
    public Set<String> tables() {
        return tableNames;
    }

    /** The fence column, a plain identifier. */
    public String column() {
        return column;
    }

    public Comparison comparison() {
        return comparison;
    }

    public ZeroRows onZeroRows() {
        return onZeroRows;
    }

    /** The default mode of fenced tables. */
    public Mode mode() {
        return mode;
    }

    /**
     * The mode of one fenced table (named as in {@link #tables()}): its own
     * {@code fencing.table.<name>.mode}, else {@link #mode()}.
     *
     * @throws IllegalArgumentException when {@code table} is not one of {@link #tables()}
     */
    public Mode modeOf(String table) {
        TableName name = TableName.parse(Objects.requireNonNull(table, "table"));
        if (!tables.contains(name)) {
            throw new IllegalArgumentException(table + " is not a fenced table; the fenced tables are " + tables());
        }
        return ownModes.getOrDefault(name, mode);
    }

    public ProcedureCalls procedureCalls() {
        return procedureCalls;
    }

    /** True when at least one fenced table is in {@link Mode#EPOCH} mode. */
    public boolean hasEpochTables() {
        if (mode == Mode.EPOCH) {
            return true;
        }
        return ownModes.containsValue(Mode.EPOCH);
    }

    /** The epoch table of epoch mode, one row per lock ({@code lock_name} primary key, {@code fence} BIGINT), a plain (optionally schema-qualified) name. */
    public String epochTable() {
        return epochTable;
    }

    /** Whether the database guard is required ({@code fencing.database-guard}). */
    public Guard databaseGuard() {
        return databaseGuard;
    }

    /** True when {@code fencing.database-guard=required}. */
    public boolean guardRequired() {
        return databaseGuard == Guard.REQUIRED;
    }

    /**
     * {@code fencing.database-guard.schemas}: the schemas (MariaDB: databases) where the guard looks
     * for unqualified fenced names beyond the ones the connection uses; folded to lower case, in
     * configuration order, empty when none are set.
     */
    public List<String> guardSchemas() {
        return guardSchemas;
    }

    /** How many analysed statements are kept, per data source. */
    public int planCacheSize() {
        return planCacheSize;
    }

    /** How long the analysis of one statement may take before it is refused. */
    public long parseTimeoutMillis() {
        return parseTimeoutMillis;
    }

    /** This configuration as properties; {@code fromProperties(toProperties())} equals this. */
    public Properties toProperties() {
        Properties properties = new Properties();
        for (ConfigKey key : ConfigKey.values()) {
            // a switch expression, so that a key added to ConfigKey does not compile until it is written here
            String value = switch (key) {
                case TABLES -> String.join(",", tableNames);
                case COLUMN -> column;
                case COMPARISON -> comparison.toString();
                case ON_ZERO_ROWS -> onZeroRows.toString();
                case MODE -> mode.toString();
                case TABLE_MODE -> {
                    ownModes.forEach((t, m) -> properties.setProperty(ConfigKey.modeKeyOf(t.toString()), m.toString()));
                    yield null;
                }
                case EPOCH_TABLE -> epochTable;
                case PROCEDURE_CALLS -> procedureCalls.toString();
                case PLAN_CACHE_SIZE -> Integer.toString(planCacheSize);
                case PARSE_TIMEOUT_MILLIS -> Long.toString(parseTimeoutMillis);
                case DATABASE_GUARD -> databaseGuard.toString();
                case DATABASE_GUARD_SCHEMAS -> guardSchemas.isEmpty() ? null : String.join(",", guardSchemas);
                case CONFIG -> null; // where settings came from, not a setting
            };
            if (value != null) {
                properties.setProperty(key.key(), value);
            }
        }
        return properties;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof FencingConfig that
                && tables.equals(that.tables) && ownModes.equals(that.ownModes) && column.equals(that.column)
                && comparison == that.comparison && onZeroRows == that.onZeroRows
                && mode == that.mode
                && procedureCalls == that.procedureCalls && planCacheSize == that.planCacheSize
                && parseTimeoutMillis == that.parseTimeoutMillis && epochTable.equals(that.epochTable)
                && databaseGuard == that.databaseGuard && guardSchemas.equals(that.guardSchemas);
    }

    @Override
    public int hashCode() {
        return Objects.hash(tables, ownModes, column, comparison, onZeroRows, mode, procedureCalls,
                planCacheSize, parseTimeoutMillis, epochTable, databaseGuard, guardSchemas);
    }

    @Override
    public String toString() {
        return "FencingConfig" + toProperties();
    }

    /** Collects settings; {@link #build()} validates them together. Not thread-safe. */
    public static final class Builder {
        private final Set<TableName> tables = new LinkedHashSet<>();
        private String column = ConfigKey.COLUMN.defaultValue();
        private Comparison comparison = Comparison.NEWER_OR_EQUAL;
        private ZeroRows onZeroRows = ZeroRows.DIAGNOSE;
        private Mode mode = Mode.ROW;
        private final Map<TableName, Mode> tableModes = new LinkedHashMap<>();
        private ProcedureCalls procedureCalls = ProcedureCalls.ALLOW;
        private int planCacheSize = Integer.parseInt(ConfigKey.PLAN_CACHE_SIZE.defaultValue());
        private long parseTimeoutMillis = Long.parseLong(ConfigKey.PARSE_TIMEOUT_MILLIS.defaultValue());
        private String epochTable = ConfigKey.EPOCH_TABLE.defaultValue();
        private Guard databaseGuard = Guard.valueOf(ConfigKey.DATABASE_GUARD.defaultValue().toUpperCase(java.util.Locale.ROOT));
        private final Set<String> guardSchemas = new LinkedHashSet<>();

        private Builder() {
        }

        /** Adds fenced tables, each {@code table} or {@code schema.table}. */
        public Builder tables(String... names) {
            for (String name : names) {
                table(name);
            }
            return this;
        }

        /** Adds one fenced table, {@code table} or {@code schema.table}. */
        public Builder table(String name) {
            tables.add(TableName.parseConfigured(ConfigKey.TABLES, TABLES, name));
            return this;
        }

        /**
         * Adds the table of an entity class annotated with {@link Fenced}: the annotation's value,
         * else the name of its {@code jakarta.persistence.Table} / {@code javax.persistence.Table}.
         */
        public Builder fencedEntity(Class<?> entity) {
            tables.add(TableName.parseConfigured(ConfigKey.TABLES, TABLES, EntityTables.tableOf(entity)));
            return this;
        }

        /** The fence column, exactly as given (a properties file's value is trimmed before it gets here). */
        public Builder column(String column) {
            if (column == null || !Identifiers.isPlain(column)) {
                throw ConfigKey.COLUMN.invalid(column);
            }
            this.column = column;
            return this;
        }

        public Builder comparison(Comparison comparison) {
            this.comparison = Objects.requireNonNull(comparison, COMPARISON);
            return this;
        }

        public Builder onZeroRows(ZeroRows onZeroRows) {
            this.onZeroRows = Objects.requireNonNull(onZeroRows, ON_ZERO_ROWS);
            return this;
        }

        public Builder mode(Mode mode) {
            this.mode = Objects.requireNonNull(mode, MODE);
            return this;
        }

        /** Sets the mode of one table (which is also added to the fenced tables). */
        public Builder tableMode(String table, Mode mode) {
            String key = ConfigKey.modeKeyOf(table);
            TableName name = TableName.parseConfigured(ConfigKey.TABLE_MODE, key, table);
            tables.add(name);
            tableModes.put(name, Objects.requireNonNull(mode, key));
            return this;
        }

        public Builder procedureCalls(ProcedureCalls procedureCalls) {
            this.procedureCalls = Objects.requireNonNull(procedureCalls, PROCEDURE_CALLS);
            return this;
        }

        public Builder planCacheSize(int size) {
            this.planCacheSize = (int) ConfigKey.PLAN_CACHE_SIZE.checkRange(size);
            return this;
        }

        public Builder parseTimeoutMillis(long millis) {
            this.parseTimeoutMillis = ConfigKey.PARSE_TIMEOUT_MILLIS.checkRange(millis);
            return this;
        }

        /** The epoch table of epoch mode, one row per lock (default {@code fencing_epochs}). */
        public Builder epochTable(String table) {
            TableName.parseConfigured(ConfigKey.EPOCH_TABLE, EPOCH_TABLE, table);
            this.epochTable = table.trim();
            return this;
        }

        /** {@code fencing.database-guard}: {@link Guard#REQUIRED} to demand the triggers and keep the session fence. */
        public Builder databaseGuard(Guard databaseGuard) {
            this.databaseGuard = Objects.requireNonNull(databaseGuard, DATABASE_GUARD);
            return this;
        }

        /**
         * {@code fencing.database-guard.schemas}: adds schemas (MariaDB: databases) where install,
         * verify and {@code required} look for unqualified fenced names, beyond the ones the
         * application's connection uses. Each a plain identifier; matched ignoring case.
         */
        public Builder guardSchemas(String... schemas) {
            for (String schema : Objects.requireNonNull(schemas, DATABASE_GUARD_SCHEMAS)) {
                String name = schema == null ? null : Identifiers.unquote(schema.trim());
                if (name == null || !Identifiers.isPlain(name)) {
                    throw ConfigKey.DATABASE_GUARD_SCHEMAS.invalid(schema);
                }
                guardSchemas.add(name.toLowerCase(java.util.Locale.ROOT));
            }
            return this;
        }

        /**
         * Sets one {@code fencing.*} key from its text form, as a properties file would. The key must
         * be one of {@link ConfigKey}'s (or the javaagent's {@code fencing.agent.*}, left to the agent).
         */
        public Builder set(String key, String value) {
            Objects.requireNonNull(key, "key");
            if (key.startsWith(AGENT_PREFIX)) {
                // read (and validated) by the agent, so that one fencing.properties serves both
                return this;
            }
            ConfigKey known = ConfigKey.of(key);
            String text = known.check(value);
            // a switch expression, so that a key added to ConfigKey does not compile until it is handled here
            return switch (known) {
                case TABLES -> tableList(text);
                case COLUMN -> column(text);
                case COMPARISON -> comparison(choice(known, text, Comparison.values()));
                case ON_ZERO_ROWS -> onZeroRows(choice(known, text, ZeroRows.values()));
                case MODE -> mode(choice(known, text, Mode.values()));
                case TABLE_MODE -> tableMode(ConfigKey.tableOfModeKey(key), choice(known, text, Mode.values()));
                case EPOCH_TABLE -> epochTable(text);
                case PROCEDURE_CALLS -> procedureCalls(choice(known, text, ProcedureCalls.values()));
                case PLAN_CACHE_SIZE -> planCacheSize(Integer.parseInt(text));
                case PARSE_TIMEOUT_MILLIS -> parseTimeoutMillis(Long.parseLong(text));
                case DATABASE_GUARD -> databaseGuard(choice(known, text, Guard.values()));
                case DATABASE_GUARD_SCHEMAS -> text.isEmpty() ? this : guardSchemas(text.split(","));
                case CONFIG -> this; // resolved by whoever reads the configuration sources
            };
        }

        private Builder tableList(String text) {
            for (String part : text.split(",")) {
                if (!part.isBlank()) {
                    tables.add(TableName.parseConfigured(ConfigKey.TABLES, TABLES, part.trim()));
                }
            }
            return this;
        }

        /**
         * Validates and seals the settings.
         *
         * @throws IllegalArgumentException when no table is fenced
         */
        public FencingConfig build() {
            if (tables.isEmpty()) {
                throw new IllegalArgumentException(TABLES + " is empty: name at least one table to fence "
                        + "(comma-separated, optionally schema-qualified, e.g. fencing.tables=orders,billing.payments)");
            }
            TableName epochTableName = TableName.parse(epochTable);
            for (TableName fenced : tables) {
                if (fenced.matches(epochTableName)) {
                    throw new IllegalArgumentException("invalid value '" + epochTable + "' for " + EPOCH_TABLE
                            + "; allowed: a table that is not itself fenced (it is in " + TABLES + ")");
                }
            }
            return new FencingConfig(this);
        }

        /** The enum constant a checked choice names; the registry and the enum must agree (ConfigKeyTest). */
        private static <E extends Enum<E>> E choice(ConfigKey key, String checked, E[] values) {
            for (E value : values) {
                if (value.toString().equals(checked)) {
                    return value;
                }
            }
            throw new IllegalStateException(key + " allows '" + checked + "' but " + values[0].getDeclaringClass()
                    + " has no such value");
        }
    }

}
