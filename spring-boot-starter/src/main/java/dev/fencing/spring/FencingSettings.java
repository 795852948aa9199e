package dev.fencing.spring;

import dev.fencing.FencingConfig;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * The {@code fencing.*} settings of an application, bound from its {@link Environment} with
 * Spring's relaxed binding ({@code fencing.on-zero-rows}, {@code fencing.onZeroRows},
 * {@code FENCING_ON_ZERO_ROWS} are one key) for exactly the keys of {@link FencingKeys}.
 *
 * <p>A {@code fencing.*} key that is not one of them is refused when it comes from the
 * application's own configuration (files, command line, test properties): a misspelt key would
 * otherwise fence less than intended. Environment variables and system properties are not
 * checked that way, since other tools share the prefix there (for example {@code FENCING_PG_URL}).
 */
final class FencingSettings {

    enum Store { AUTO, REDIS, JDBC }

    private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of("fencing");
    private static final ConfigurationPropertyName AGENT = ConfigurationPropertyName.of("fencing.agent");

    private final Binder binder;

    private FencingSettings(Binder binder) {
        this.binder = binder;
    }

    static FencingSettings of(Environment environment) {
        rejectUnknownKeys(environment);
        return new FencingSettings(Binder.get(environment));
    }

    boolean enabled() {
        return binder.bind(FencingKeys.ENABLED, Boolean.class).orElse(true);
    }

    /**
     * The driver configuration: the file of {@code fencing.config} when set, then every driver
     * key of the application on top of it.
     *
     * @throws IllegalArgumentException naming the key when a value is not allowed, or when no
     *         table is fenced
     */
    FencingConfig fencingConfig() {
        Properties properties = new Properties();
        binder.bind(FencingConfig.CONFIG, String.class).ifBound(file -> properties.putAll(load(file)));
        for (FencingKeys.Key key : FencingKeys.driverKeys()) {
            if (key.name().equals(FencingConfig.CONFIG)) {
                continue;
            }
            if (key.map()) {
                bindTableSettings(key.name(), properties);
            } else if (key.type().startsWith("java.util.List")) {
                binder.bind(key.name(), Bindable.listOf(String.class))
                        .ifBound(values -> properties.setProperty(key.name(), String.join(",", values)));
            } else {
                binder.bind(key.name(), String.class).ifBound(value -> properties.setProperty(key.name(), value));
            }
        }
        try {
            return FencingConfig.fromProperties(properties);
        } catch (IllegalArgumentException e) {
            throw new FencingConfigurationException("fencing-spring-boot-starter: " + e.getMessage(),
                    "Correct the setting in the application's configuration (or set " + FencingKeys.ENABLED
                    + "=false to leave the data sources unwrapped)", e);
        }
    }

    Store store() {
        String text = binder.bind(FencingKeys.LOCK_STORE, String.class).orElse("auto").trim();
        for (Store store : Store.values()) {
            if (store.name().equalsIgnoreCase(text)) {
                return store;
            }
        }
        throw new FencingConfigurationException("invalid value '" + text + "' for " + FencingKeys.LOCK_STORE,
                "Set it to one of the allowed values: auto, redis, jdbc");
    }

    Duration defaultTtl() {
        return positive(FencingKeys.LOCK_DEFAULT_TTL, binder.bind(FencingKeys.LOCK_DEFAULT_TTL, Duration.class)
                .orElse(Duration.ofSeconds(30)));
    }

    Duration defaultMaxWait() {
        Duration wait = binder.bind(FencingKeys.LOCK_DEFAULT_MAX_WAIT, Duration.class).orElse(Duration.ofSeconds(5));
        if (wait.isNegative()) {
            throw new FencingConfigurationException("invalid value '" + wait + "' for " + FencingKeys.LOCK_DEFAULT_MAX_WAIT,
                    "Set it to a duration of 0 or more, e.g. 5s");
        }
        return wait;
    }

    boolean watchdog() {
        return binder.bind(FencingKeys.LOCK_WATCHDOG, Boolean.class).orElse(false);
    }

    String jdbcTable() {
        return binder.bind(FencingKeys.LOCK_JDBC_TABLE, String.class).orElse("fencing_locks");
    }

    boolean jdbcCreateTable() {
        return binder.bind(FencingKeys.LOCK_JDBC_CREATE_TABLE, Boolean.class).orElse(true);
    }

    String redisKeyPrefix() {
        return binder.bind(FencingKeys.LOCK_REDIS_KEY_PREFIX, String.class).orElse("fencing:");
    }

    int redisWaitForReplicas() {
        int replicas = binder.bind(FencingKeys.LOCK_REDIS_WAIT_FOR_REPLICAS, Integer.class).orElse(0);
        if (replicas < 0) {
            throw new FencingConfigurationException("invalid value '" + replicas + "' for "
                    + FencingKeys.LOCK_REDIS_WAIT_FOR_REPLICAS, "Set it to 0 or more");
        }
        return replicas;
    }

    Duration redisReplicaTimeout() {
        return positive(FencingKeys.LOCK_REDIS_REPLICA_TIMEOUT,
                binder.bind(FencingKeys.LOCK_REDIS_REPLICA_TIMEOUT, Duration.class).orElse(Duration.ofMillis(100)));
    }

    /** Spring's Redis settings ({@code spring.data.redis.*}), relaxed like every other key. */
    RedisLocation redisLocation() {
        return RedisLocation.bind(binder);
    }

    private void bindTableSettings(String prefix, Properties properties) {
        ResolvableType type = ResolvableType.forClassWithGenerics(Map.class, ResolvableType.forClass(String.class),
                ResolvableType.forClassWithGenerics(Map.class, String.class, String.class));
        Bindable<Map<String, Map<String, String>>> bindable = Bindable.of(type);
        binder.bind(prefix, bindable).ifBound(tables -> tables.forEach((table, settings) -> settings.forEach((name, value) -> {
            if (!name.equalsIgnoreCase("mode")) {
                throw new FencingConfigurationException("unknown fencing configuration key '" + prefix + "." + table + "."
                        + name + "'", "A table takes only " + prefix + ".<table>.mode (row or epoch)");
            }
            properties.setProperty(prefix + "." + table + ".mode", value);
        })));
    }

    private static Properties load(String file) {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(Path.of(file), StandardCharsets.UTF_8)) {
            properties.load(reader);
        } catch (IOException e) {
            throw new FencingConfigurationException("cannot read the file of " + FencingConfig.CONFIG + " (" + file + "): " + e,
                    "Point " + FencingConfig.CONFIG + " at a readable properties file, or remove the key", e);
        }
        return properties;
    }

    private static Duration positive(String key, Duration value) {
        if (value.isNegative() || value.isZero()) {
            throw new FencingConfigurationException("invalid value '" + value + "' for " + key,
                    "Set it to a positive duration, e.g. 30s");
        }
        return value;
    }

    static void rejectUnknownKeys(Environment environment) {
        List<String> unknown = new ArrayList<>();
        List<String> unknownNames = new ArrayList<>();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (!(source instanceof IterableConfigurationPropertySource iterable) || sharedWithOtherTools(source)) {
                continue;
            }
            iterable.stream().filter(ROOT::isAncestorOf).filter(name -> !known(name)).forEach(name -> {
                unknown.add(name + " (in " + describe(source) + ")");
                unknownNames.add(name.toString());
            });
        }
        if (!unknown.isEmpty()) {
            TreeSet<String> knownKeys = new TreeSet<>();
            FencingKeys.all().forEach(k -> knownKeys.add(k.map() ? k.name() + ".<table>.mode" : k.name()));
            List<String> guesses = unknownNames.stream().map(name -> KeySuggestion.nearest(name, knownKeys))
                    .filter(guess -> guess != null).distinct().toList();
            throw new FencingConfigurationException("unknown fencing configuration key" + (unknown.size() > 1 ? "s " : " ")
                    + String.join(", ", unknown),
                    "Correct the key" + (guesses.isEmpty() ? "" : " (did you mean " + String.join(", ", guesses) + "?)")
                    + " or remove it: a misspelt key would fence less than intended; known keys: "
                    + String.join(", ", knownKeys));
        }
    }

    private static boolean known(ConfigurationPropertyName name) {
        if (AGENT.isAncestorOf(name)) {
            return true; // the javaagent's keys, read by the agent
        }
        for (FencingKeys.Key key : FencingKeys.all()) {
            ConfigurationPropertyName keyName = ConfigurationPropertyName.of(key.name());
            if (key.map()) {
                if (keyName.isAncestorOf(name) && name.getNumberOfElements() == keyName.getNumberOfElements() + 2
                        && name.getLastElement(ConfigurationPropertyName.Form.UNIFORM).equals("mode")) {
                    return true;
                }
            } else if (keyName.equals(name) || keyName.isAncestorOf(name) && name.isLastElementIndexed()) {
                return true;
            }
        }
        return false;
    }

    private static boolean sharedWithOtherTools(ConfigurationPropertySource source) {
        Object underlying = source.getUnderlyingSource();
        if (underlying instanceof PropertySource<?> propertySource) {
            String name = propertySource.getName();
            return name.equals(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME)
                    || name.equals(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);
        }
        return false;
    }

    private static String describe(ConfigurationPropertySource source) {
        Object underlying = source.getUnderlyingSource();
        return underlying instanceof PropertySource<?> propertySource ? propertySource.getName()
                : String.valueOf(underlying).toLowerCase(Locale.ROOT);
    }
}
