package dev.fencing.agent;

import dev.fencing.FencingConfig;
import dev.fencing.internal.config.ConfigKey;
import dev.fencing.internal.config.ConfigSources;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * The agent's configuration: the driver's {@code fencing.*} keys, found the way the driver finds
 * them (the agent's {@code config=} argument counts as {@code fencing.config}), plus the agent's
 * own {@code fencing.agent.*} keys, which are taken out before the rest goes to
 * {@link FencingConfig} (which refuses keys it does not know).
 *
 * <p>A configuration that names no table is refused unless it says that the tables come from
 * {@code @Fenced} entities ({@value #TABLES_FROM}{@code =entities}): an agent started by a bare
 * {@code -javaagent:} would otherwise fence nothing while looking installed.
 */
final class AgentSettings {

    static final String AGENT_PREFIX = "fencing.agent.";
    static final String INCLUDE_URLS = AGENT_PREFIX + "include-urls";
    static final String EXCLUDE_URLS = AGENT_PREFIX + "exclude-urls";
    static final String TABLES_FROM = AGENT_PREFIX + "tables-from";
    /** {@link #TABLES_FROM}'s default: {@code fencing.tables} must name a table; entities add theirs. */
    static final String FROM_CONFIGURATION = "configuration";
    /** {@link #TABLES_FROM}: the tables may all come from {@code @Fenced} entity classes as they load. */
    static final String FROM_ENTITIES = "entities";
    private static final List<String> AGENT_KEYS = List.of(INCLUDE_URLS, EXCLUDE_URLS, TABLES_FROM);

    private final Properties fencingKeys;
    private final UrlFilter urls;

    private AgentSettings(Properties fencingKeys, UrlFilter urls) {
        this.fencingKeys = fencingKeys;
        this.urls = urls;
    }

    /**
     * Reads and validates the configuration.
     *
     * @throws IllegalArgumentException naming the key (or file) at fault
     */
    static AgentSettings resolve(String agentArguments, ConfigSources sources) {
        Properties explicit = new Properties();
        String file = AgentArguments.configFile(agentArguments);
        if (file != null) {
            explicit.setProperty(FencingConfig.CONFIG, file);
        }
        Properties merged = sources.merge(explicit);
        Properties fencing = new Properties();
        String includes = null;
        String excludes = null;
        String tablesFrom = FROM_CONFIGURATION;
        for (String key : merged.stringPropertyNames()) {
            String value = merged.getProperty(key);
            switch (key) {
                case INCLUDE_URLS -> includes = value;
                case EXCLUDE_URLS -> excludes = value;
                case TABLES_FROM -> tablesFrom = value.trim();
                default -> {
                    requireKnown(key);
                    fencing.setProperty(key, value);
                }
            }
        }
        validate(fencing);
        requireTables(fencing, tablesFrom, file);
        return new AgentSettings(fencing, UrlFilter.of(includes, excludes));
    }

    /** The driver's keys refuse unknown ones too, but only the agent's message can list both kinds. */
    private static void requireKnown(String key) {
        if (key.startsWith(AGENT_PREFIX) || ConfigKey.find(key) == null) {
            List<String> known = new ArrayList<>();
            for (ConfigKey candidate : ConfigKey.values()) {
                known.add(candidate.key());
            }
            known.addAll(AGENT_KEYS);
            throw new IllegalArgumentException("unknown fencing agent configuration key '" + key + "'; known keys: "
                    + String.join(", ", known));
        }
    }

    private static void requireTables(Properties fencing, String tablesFrom, String file) {
        if (tablesFrom.equals(FROM_ENTITIES)) {
            return;
        }
        if (!tablesFrom.equals(FROM_CONFIGURATION)) {
            throw new IllegalArgumentException("invalid value '" + tablesFrom + "' for " + TABLES_FROM + "; allowed: "
                    + FROM_CONFIGURATION + " (the default: " + FencingConfig.TABLES + " names the tables), "
                    + FROM_ENTITIES + " (@Fenced entity classes name them)");
        }
        String tables = fencing.getProperty(FencingConfig.TABLES);
        if (tables == null || tables.isBlank()) {
            throw new IllegalArgumentException("no fenced table configured, so the agent would fence nothing; set "
                    + FencingConfig.TABLES + " in " + (file != null ? file : "the configuration (-javaagent:fencing-agent.jar"
                    + "=config=<file>, the system property " + FencingConfig.CONFIG + ", the environment variable "
                    + ConfigSources.ENVIRONMENT_VARIABLE + " or the class path resource " + ConfigSources.CLASSPATH_RESOURCE
                    + ")") + ", or " + TABLES_FROM + "=" + FROM_ENTITIES + " when @Fenced entity classes name the tables");
        }
    }

    /**
     * For {@link FencingAgent}, which names only {@code java.base} types: resolves the
     * configuration before anything else happens, and before the bootstrap jar is in place, so
     * this class must not lead the JVM to load the agent's bridge or {@code dev.fencing.Fence}.
     */
    static Object configure(String agentArguments) {
        return resolve(agentArguments, ConfigSources.standard());
    }

    /** Checks every key now, whether or not a table is named yet (tables may come from entities). */
    private static void validate(Properties keys) {
        FencingConfig.Builder builder = FencingConfig.builder();
        for (String key : keys.stringPropertyNames()) {
            builder.set(key, keys.getProperty(key));
        }
        builder.table("fencing_agent_validation").build();
    }

    /** The {@code fencing.*} keys for {@link FencingConfig}, without the agent's own. */
    Properties fencingKeys() {
        Properties copy = new Properties();
        copy.putAll(fencingKeys);
        return copy;
    }

    UrlFilter urls() {
        return urls;
    }
}
