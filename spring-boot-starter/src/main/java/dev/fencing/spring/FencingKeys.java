package dev.fencing.spring;

import dev.fencing.FencingConfig;
import dev.fencing.internal.config.ConfigKey;

import java.util.ArrayList;
import java.util.List;

/**
 * The one list of every {@code fencing.*} key this starter binds: the driver's keys (passed to
 * {@link FencingConfig}) and the starter's own. Binding, the refusal of unknown keys and the
 * generated configuration metadata ({@code META-INF/spring-configuration-metadata.json}, written
 * at build time by {@link ConfigurationMetadataWriter}) all read it, so a key added here is bound,
 * accepted and completed by IDEs at once. The driver's part is read from the driver's own key
 * registry ({@link ConfigKey}).
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
    static final String LOCK_DEFAULT_MAX_WAIT = "fencing.lock.default-max-wait";
    static final String LOCK_WATCHDOG = "fencing.lock.watchdog";
    static final String LOCK_JDBC_TABLE = "fencing.lock.jdbc.table";
    static final String LOCK_JDBC_CREATE_TABLE = "fencing.lock.jdbc.create-table";
    static final String LOCK_REDIS_KEY_PREFIX = "fencing.lock.redis.key-prefix";
    static final String LOCK_REDIS_WAIT_FOR_REPLICAS = "fencing.lock.redis.wait-for-replicas";
    static final String LOCK_REDIS_REPLICA_TIMEOUT = "fencing.lock.redis.replica-timeout";
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
     * The keys {@link FencingConfig} reads: the driver's registry ({@link ConfigKey}), with
     * {@code fencing.table.<table>.mode} as the map {@code fencing.table}. A key the driver gains
     * is bound, accepted and documented here without a change.
     */
    static List<Key> driverKeys() {
        List<Key> keys = new ArrayList<>();
        for (ConfigKey key : ConfigKey.values()) {
            if (key == ConfigKey.TABLE_MODE) {
                keys.add(new Key(TABLE_MAP, Owner.DRIVER, "java.util.Map<java.lang.String,java.lang.String>", null,
                        sentence(key.description()) + " Written fencing.table.<table>.mode, or "
                                + "fencing.table[schema.table].mode for a schema-qualified name.",
                        key.choices(), true));
            } else {
                keys.add(new Key(key.key(), Owner.DRIVER, type(key.kind()), key.defaultValue(),
                        sentence(key.description()), key.choices(), false));
            }
        }
        return List.copyOf(keys);
    }

    private static String type(ConfigKey.Kind kind) {
        return switch (kind) {
            case TABLE_LIST, IDENTIFIER_LIST -> "java.util.List<java.lang.String>";
            case NUMBER -> "java.lang.Long";
            default -> STRING;
        };
    }

    /** The registry's descriptions are phrases; metadata descriptions are sentences. */
    private static String sentence(String phrase) {
        String text = phrase.isEmpty() ? phrase : Character.toUpperCase(phrase.charAt(0)) + phrase.substring(1);
        return text.endsWith(".") ? text : text + ".";
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
                starter(LOCK_DEFAULT_MAX_WAIT, DURATION, "5s",
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
