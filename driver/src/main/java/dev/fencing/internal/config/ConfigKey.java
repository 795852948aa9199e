package dev.fencing.internal.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Every configuration key of fencing-driver, in one place: its name, default, allowed values,
 * description and the check of its text form. Parsing ({@code FencingConfig.Builder.set}), the
 * validation messages, {@code FencingDriver.getPropertyInfo}, the command line's flags and the
 * README's configuration table (held to this list by a test) all read it, so that a key cannot be
 * known in one place and missing in another.
 *
 * <p>The javaagent's own keys ({@code fencing.agent.*}) are the agent's and are not listed here.
 */
public enum ConfigKey {

    TABLES("fencing.tables", null, "comma-separated fenced tables, each table or schema.table",
            Kind.TABLE_LIST),
    COLUMN("fencing.column", "last_fence", "the BIGINT column holding the newest fence applied to a row",
            Kind.IDENTIFIER),
    COMPARISON("fencing.comparison", "newer-or-equal",
            "newer-or-equal: a write applies when column <= fence; strictly-newer: only when column < fence",
            Kind.CHOICE, "newer-or-equal", "strictly-newer"),
    ON_ZERO_ROWS("fencing.on-zero-rows", "diagnose",
            "diagnose: raise StaleFenceException only when a newer fence is why no row changed; raise: whenever no row changed",
            Kind.CHOICE, "diagnose", "raise"),
    MODE("fencing.mode", "row",
            "row: the fence column on each fenced table; epoch: one epoch row per lock, checked by every write transaction",
            Kind.CHOICE, "row", "epoch"),
    TABLE_MODE("fencing.table.<table>.mode", null,
            "the mode of one table (row or epoch); also makes the table fenced", Kind.CHOICE, "row", "epoch"),
    EPOCH_TABLE("fencing.epoch-table", "fencing_epochs", "the epoch table of epoch mode (one row per lock); must not itself be fenced",
            Kind.TABLE),
    PROCEDURE_CALLS("fencing.procedure-calls", "allow",
            "what happens to statements whose writes no parser can see (CALL, DO, EXECUTE IMMEDIATE)",
            Kind.CHOICE, "allow", "reject"),
    PLAN_CACHE_SIZE("fencing.plan-cache-size", "2048", "analysed statement texts kept per data source",
            Kind.NUMBER, 16, 1_000_000),
    PARSE_TIMEOUT_MILLIS("fencing.parse-timeout-millis", "2000",
            "how long the analysis of one statement text may take, in milliseconds, before it is refused",
            Kind.NUMBER, 1, 60_000),
    DATABASE_GUARD("fencing.database-guard", "off",
            "required: every fenced table must carry the database guard (triggers checking the session's fence),"
                    + " else fenced writes fail closed; the session's fence is kept in step with the thread's",
            Kind.CHOICE, "off", "required"),
    DATABASE_GUARD_SCHEMAS("fencing.database-guard.schemas", null,
            "comma-separated extra schemas (MariaDB: databases) where install, verify and required look for unqualified"
                    + " fenced names, beyond the ones the connection uses (PostgreSQL: its search_path; MariaDB: its"
                    + " current database; H2: its current schema); the guard never touches other schemas",
            Kind.IDENTIFIER_LIST),
    CONFIG("fencing.config", null,
            "a properties file with fencing.* keys (else the FENCING_CONFIG environment variable, else fencing.properties on the class path)",
            Kind.PATH);

    /** The prefix of every key fencing-jdbc reads; such keys are never passed to a delegate driver. */
    public static final String PREFIX = "fencing.";
    private static final String TABLE_PREFIX = "fencing.table.";
    private static final String TABLE_MODE_SUFFIX = ".mode";

    /** What kind of text a key takes, which decides how it is checked. */
    public enum Kind {
        TABLE_LIST, TABLE, IDENTIFIER, IDENTIFIER_LIST, CHOICE, NUMBER, PATH
    }

    private final String key;
    private final String defaultValue;
    private final String description;
    private final Kind kind;
    private final List<String> choices;
    private final long min;
    private final long max;

    ConfigKey(String key, String defaultValue, String description, Kind kind, String... choices) {
        this(key, defaultValue, description, kind, List.of(choices), 0, 0);
    }

    ConfigKey(String key, String defaultValue, String description, Kind kind, long min, long max) {
        this(key, defaultValue, description, kind, List.of(), min, max);
    }

    ConfigKey(String key, String defaultValue, String description, Kind kind, List<String> choices, long min, long max) {
        this.key = key;
        this.defaultValue = defaultValue;
        this.description = description;
        this.kind = kind;
        this.choices = choices;
        this.min = min;
        this.max = max;
    }

    /** The key as written in a properties file; for {@link #TABLE_MODE} a pattern with {@code <table>}. */
    public String key() {
        return key;
    }

    /** The default as text, or null when the key has none (required, or absent means "not set"). */
    public String defaultValue() {
        return defaultValue;
    }

    public String description() {
        return description;
    }

    public Kind kind() {
        return kind;
    }

    /** The allowed values of a {@link Kind#CHOICE} key, else empty. */
    public List<String> choices() {
        return choices;
    }

    /** True for the one key without which no configuration can be built. */
    public boolean required() {
        return this == TABLES;
    }

    /** The key a properties file spells, or null when {@code name} is no key of the driver's. */
    public static ConfigKey find(String name) {
        for (ConfigKey candidate : values()) {
            if (candidate != TABLE_MODE && candidate.key.equals(name)) {
                return candidate;
            }
        }
        return tableOfModeKey(name) != null ? TABLE_MODE : null;
    }

    /** Like {@link #find} but refuses an unknown key, naming the known ones: a misspelt key would fence nothing. */
    public static ConfigKey of(String name) {
        ConfigKey found = find(name);
        if (found == null) {
            List<String> known = new ArrayList<>();
            for (ConfigKey candidate : values()) {
                known.add(candidate.key);
            }
            throw new IllegalArgumentException("unknown fencing configuration key '" + name + "'; known keys: "
                    + String.join(", ", known));
        }
        return found;
    }

    /** The table named by a {@code fencing.table.<table>.mode} key, or null when {@code name} is not one. */
    public static String tableOfModeKey(String name) {
        if (name != null && name.startsWith(TABLE_PREFIX) && name.endsWith(TABLE_MODE_SUFFIX)
                && name.length() > TABLE_PREFIX.length() + TABLE_MODE_SUFFIX.length()) {
            return name.substring(TABLE_PREFIX.length(), name.length() - TABLE_MODE_SUFFIX.length());
        }
        return null;
    }

    /** The mode key of one table. */
    public static String modeKeyOf(String table) {
        return TABLE_PREFIX + table + TABLE_MODE_SUFFIX;
    }

    /**
     * Checks the text form of a value of this key and returns it trimmed (a choice in its canonical
     * spelling). Table names are checked where they are parsed ({@link TableName}); this method
     * checks the rest.
     *
     * @throws IllegalArgumentException naming the key and the allowed values
     */
    public String check(String written) {
        String text = written == null ? "" : written.trim();
        switch (kind) {
            case CHOICE -> {
                for (String choice : choices) {
                    if (choice.equalsIgnoreCase(text)) {
                        return choice;
                    }
                }
                throw invalid(text);
            }
            case NUMBER -> {
                try {
                    checkRange(Long.parseLong(text));
                    return text;
                } catch (NumberFormatException e) {
                    throw invalid(text);
                }
            }
            case IDENTIFIER -> {
                if (!Identifiers.isPlain(text)) {
                    throw invalid(text);
                }
                return text;
            }
            case IDENTIFIER_LIST -> {
                if (text.isEmpty()) {
                    return text;
                }
                for (String part : text.split(",", -1)) {
                    if (!Identifiers.isPlain(part.trim())) {
                        throw invalid(text);
                    }
                }
                return text;
            }
            default -> {
                return text;
            }
        }
    }

    /** Checks a number against this key's range. */
    public long checkRange(long value) {
        if (kind != Kind.NUMBER) {
            throw new IllegalStateException(key + " is not a number");
        }
        if (value < min || value > max) {
            throw invalid(Long.toString(value));
        }
        return value;
    }

    /** What this key accepts, for messages and documentation. */
    public String allowed() {
        return switch (kind) {
            case CHOICE -> "one of " + String.join(", ", choices);
            case NUMBER -> "a whole number from " + min + " to " + max;
            case IDENTIFIER -> "a plain SQL identifier (letters, digits, _; not starting with a digit)";
            case IDENTIFIER_LIST -> "names separated by commas, each a plain SQL identifier (letters, digits, _;"
                    + " not starting with a digit)";
            case TABLE -> "table or schema.table, each part a plain SQL identifier";
            case TABLE_LIST -> "table names, each table or schema.table, separated by commas";
            case PATH -> "the path of a readable properties file";
        };
    }

    /** The error for a value this key does not accept. */
    public IllegalArgumentException invalid(String value) {
        return invalid(key, value);
    }

    /** The error for a value that {@code spelledKey} (this key as written, e.g. with its table) does not accept. */
    public IllegalArgumentException invalid(String spelledKey, String value) {
        return new IllegalArgumentException("invalid value '" + value + "' for " + spelledKey + "; allowed: " + allowed());
    }

    @Override
    public String toString() {
        return key.toLowerCase(Locale.ROOT);
    }
}
