package dev.fencing.agent;

import dev.fencing.FencingConfig;
import dev.fencing.internal.config.ConfigSources;

import java.util.Properties;

/**
 * The agent's configuration: the driver's {@code fencing.*} keys, found the way the driver finds
 * them (the agent's {@code config=} argument counts as {@code fencing.config}), plus the agent's
 * own {@code fencing.agent.*} keys, which are taken out before the rest goes to
 * {@link FencingConfig} (which refuses keys it does not know).
 */
final class AgentSettings {

    static final String AGENT_PREFIX = "fencing.agent.";
    static final String INCLUDE_URLS = AGENT_PREFIX + "include-urls";
    static final String EXCLUDE_URLS = AGENT_PREFIX + "exclude-urls";

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
        for (String key : merged.stringPropertyNames()) {
            String value = merged.getProperty(key);
            if (key.startsWith(AGENT_PREFIX)) {
                switch (key) {
                    case INCLUDE_URLS -> includes = value;
                    case EXCLUDE_URLS -> excludes = value;
                    default -> throw new IllegalArgumentException("unknown fencing agent configuration key '" + key
                            + "'; known keys: " + INCLUDE_URLS + ", " + EXCLUDE_URLS);
                }
            } else {
                fencing.setProperty(key, value);
            }
        }
        validate(fencing);
        return new AgentSettings(fencing, UrlFilter.of(includes, excludes));
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
