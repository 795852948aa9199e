package dev.fencing.spring;

import dev.fencing.FencingConfig;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one list of every {@code fencing.*} key this starter binds: the driver's keys (passed to
 * {@link FencingConfig}) and the starter's own. Binding, the refusal of unknown keys and the
 * generated configuration metadata ({@code META-INF/spring-configuration-metadata.json}, written
 * at build time by {@link ConfigurationMetadataWriter}) all read it, so a key added here is bound,
 * accepted and completed by IDEs at once. The driver's keys are the ones {@link FencingConfig}
 * declares; when the driver gains a key registry (with descriptions and defaults),
 * {@link #driverKeys()} is the one method to point at it.
 */
final class FencingKeys {

    /** What a key is for: the driver's configuration or the starter's own behaviour. */
    enum Owner { DRIVER, STARTER }

    /**
     * One key. {@code type} is the Java type named in the metadata; {@code values} lists the allowed
     * values of an enumerated key (empty otherwise); {@code map} marks a key that takes a name
     * after it ({@code fencing.table.<name>.mode}).
     */
    record Key(String name, Owner owner, String type, String defaultValue, String description,
               List<String> values, boolean map) {
    }

    static final String ENABLED = "fencing.enabled";
    static final String LOCK_STORE = "fencing.lock.store";
    static final String LOCK_DEFAULT_TTL = "fencing.lock.default-ttl";
    static final String LOCK_DEFAULT_WAIT = "fencing.lock.default-wait";
    static final String LOCK_WATCHDOG = "fencing.lock.watchdog";
    static final String LOCK_JDBC_TABLE = "fencing.lock.jdbc.table";
    static final String LOCK_JDBC_CREATE_TABLE = "fencing.lock.jdbc.create-table";
    static final String LOCK_REDIS_KEY_PREFIX = "fencing.lock.redis.key-prefix";
    static final String LOCK_REDIS_WAIT_FOR_REPLICAS = "fencing.lock.redis.wait-for-replicas";
    static final String LOCK_REDIS_REPLICA_TIMEOUT = "fencing.lock.redis.replica-timeout";
    /** The database guard's switch; described here ahead of the driver declaring it. */
    static final String DATABASE_GUARD = "fencing.database-guard";
    /** The map key of per-table settings: {@code fencing.table.<name>.mode}. */
    static final String TABLE_MAP = "fencing.table";

    private static final String STRING = "java.lang.String";
    private static final String DURATION = "java.time.Duration";
    private static final String BOOLEAN = "java.lang.Boolean";
    private static final String INTEGER = "java.lang.Integer";

    private FencingKeys() {
    }

    /** Every key, driver keys first. */
    static List<Key> all() {
        List<Key> keys = new ArrayList<>(driverKeys());
        keys.addAll(starterKeys());
        return keys;
    }

    /**
     * The keys {@link FencingConfig} reads: every {@code fencing.*} key it declares as a public
     * constant (so a key the driver gains is bound and documented without a change here), described
     * from {@link #driverDescriptions()}, plus the per-table map {@code fencing.table.<name>.mode}.
     */
    static List<Key> driverKeys() {
        Map<String, Key> described = driverDescriptions();
        List<Key> keys = new ArrayList<>();
        for (String name : declaredDriverKeys()) {
            keys.add(described.getOrDefault(name, new Key(name, Owner.DRIVER, STRING, null,
                    "See the fencing-jdbc README (" + name + ").", List.of(), false)));
            if (name.equals(FencingConfig.MODE)) {
                keys.add(described.get(TABLE_MAP));
            }
        }
        return List.copyOf(keys);
    }

    /** The values of FencingConfig's public {@code fencing.*} key constants, in declaration order (not the prefixes). */
    static List<String> declaredDriverKeys() {
        List<String> names = new ArrayList<>();
        for (Field field : FencingConfig.class.getDeclaredFields()) {
            int modifiers = field.getModifiers();
            if (Modifier.isPublic(modifiers) && Modifier.isStatic(modifiers) && Modifier.isFinal(modifiers)
                    && field.getType() == String.class) {
                try {
                    String value = (String) field.get(null);
                    if (value.startsWith(FencingConfig.KEY_PREFIX) && !value.endsWith(".")) {
                        names.add(value);
                    }
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException("cannot read " + field, e);
                }
            }
        }
        return names;
    }

    /** What each driver key means, with its default and allowed values; a key the driver does not declare is not listed. */
    private static Map<String, Key> driverDescriptions() {
        // the defaults, read from a configuration that sets nothing but the one required key
        FencingConfig config = FencingConfig.builder().table("t").build();
        Map<String, Key> keys = new LinkedHashMap<>();
        for (Key key : List.of(
                driver(FencingConfig.TABLES, "java.util.List<java.lang.String>", null,
                        "Fenced tables, optionally schema-qualified. An unqualified name matches that table in any schema.",
                        List.of()),
                driver(FencingConfig.COLUMN, STRING, config.column(),
                        "The BIGINT column holding the newest fence applied to each row of a fenced table.", List.of()),
                driver(FencingConfig.COMPARISON, STRING, config.comparison().toString(),
                        "newer-or-equal: a write is applied when column <= token; strictly-newer: only when column < token.",
                        names(FencingConfig.Comparison.values())),
                driver(FencingConfig.ON_ZERO_ROWS, STRING, config.onZeroRows().toString(),
                        "diagnose: a fenced write that changed no row raises only when a matching row holds a newer fence; "
                                + "raise: every such write raises.",
                        names(FencingConfig.ZeroRows.values())),
                driver(FencingConfig.MODE, STRING, config.mode().toString(),
                        "row: the fence column on each fenced table; epoch: one guard row per lock, checked by every "
                                + "write transaction.",
                        names(FencingConfig.Mode.values())),
                new Key(TABLE_MAP, Owner.DRIVER, "java.util.Map<java.lang.String,java.lang.String>", null,
                        "Per-table settings: fencing.table.<table>.mode (row or epoch); use fencing.table[schema.table].mode "
                                + "for a schema-qualified name.",
                        List.of(), true),
                driver(FencingConfig.PROCEDURE_CALLS, STRING, config.procedureCalls().toString(),
                        "allow or reject statements whose writes no parser can see (CALL, {call ..}, DO, EXECUTE IMMEDIATE).",
                        names(FencingConfig.ProcedureCalls.values())),
                driver(FencingConfig.PLAN_CACHE_SIZE, INTEGER, Integer.toString(config.planCacheSize()),
                        "How many analysed statements are kept per data source (16 to 1000000).", List.of()),
                driver(FencingConfig.PARSE_TIMEOUT_MILLIS, "java.lang.Long", Long.toString(config.parseTimeoutMillis()),
                        "How long the analysis of one statement may take, in milliseconds, before it is refused (1 to 60000).",
                        List.of()),
                driver(FencingConfig.EPOCH_TABLE, STRING, config.epochTable(),
                        "The guard table of epoch mode (lock_name primary key, fence BIGINT).", List.of()),
                driver(DATABASE_GUARD, STRING, "off",
                        "off or required: with required, every fenced table must carry the database guard (triggers that "
                                + "check the session's fence), else every fenced write fails closed.",
                        List.of("off", "required")),
                driver(FencingConfig.CONFIG, STRING, null,
                        "A properties file read first; the application's fencing.* keys override its keys one by one.",
                        List.of()))) {
            keys.put(key.name(), key);
        }
        return keys;
    }

    /** The starter's own keys. */
    static List<Key> starterKeys() {
        return List.of(
                starter(ENABLED, BOOLEAN, "true",
                        "Whether every DataSource bean is wrapped in a FencingDataSource (and migrations redirected to "
                                + "the unwrapped one). The FencedLocks bean and @FencedLock stay active either way.",
                        List.of()),
                starter(LOCK_STORE, STRING, "auto",
                        "Where locks and fences live: redis (from spring.data.redis.*), jdbc (the primary data source), "
                                + "or auto: redis when Spring Data Redis and Lettuce are on the class path, else jdbc.",
                        List.of("auto", "redis", "jdbc")),
                starter(LOCK_DEFAULT_TTL, DURATION, "30s",
                        "TTL of a @FencedLock lease when the annotation names none.", List.of()),
                starter(LOCK_DEFAULT_WAIT, DURATION, "5s",
                        "How long a @FencedLock method waits for the lock when the annotation names no wait.", List.of()),
                starter(LOCK_WATCHDOG, BOOLEAN, "false",
                        "Whether leases are renewed until released (true) or last their TTL (false).", List.of()),
                starter(LOCK_JDBC_TABLE, STRING, "fencing_locks",
                        "The lock table of the jdbc store.", List.of()),
                starter(LOCK_JDBC_CREATE_TABLE, BOOLEAN, "true",
                        "Whether the jdbc store creates its lock table at start-up when it is missing.", List.of()),
                starter(LOCK_REDIS_KEY_PREFIX, STRING, "fencing:",
                        "Prefix of every key and channel of the redis store.", List.of()),
                starter(LOCK_REDIS_WAIT_FOR_REPLICAS, INTEGER, "0",
                        "Replicas that must acknowledge each acquire (WAIT) before its fence is used; 0 sends no WAIT.",
                        List.of()),
                starter(LOCK_REDIS_REPLICA_TIMEOUT, DURATION, "100ms",
                        "How long an acquire waits for the replicas of fencing.lock.redis.wait-for-replicas.", List.of()));
    }

    private static Key driver(String name, String type, String defaultValue, String description, List<String> values) {
        return new Key(name, Owner.DRIVER, type, defaultValue, description, values, false);
    }

    private static Key starter(String name, String type, String defaultValue, String description, List<String> values) {
        return new Key(name, Owner.STARTER, type, defaultValue, description, values, false);
    }

    private static List<String> names(Enum<?>[] values) {
        List<String> names = new ArrayList<>();
        for (Enum<?> value : values) {
            names.add(value.toString());
        }
        return List.copyOf(names);
    }
}
