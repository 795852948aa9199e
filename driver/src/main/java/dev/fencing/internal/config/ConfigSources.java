package dev.fencing.internal.config;

import dev.fencing.FencingConfig;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Properties;
import java.util.function.Function;

/**
 * Finds the fencing configuration the way the {@code jdbc:fencing:} driver does, so that data
 * source users and the agent find it the same way. Sources, the first one that sets a key wins:
 * <ol>
 *   <li>explicit properties (connection properties, URL parameters);</li>
 *   <li>the properties file named by {@code fencing.config}: an explicit property, else the system
 *       property {@code fencing.config}, else the environment variable {@code FENCING_CONFIG};
 *       a named file that cannot be read is an error, not a silent fallback;</li>
 *   <li>when no file is named, the classpath resource {@code fencing.properties}, if present.</li>
 * </ol>
 * Only keys starting with {@code fencing.} are read. Invalid values fail with an
 * {@link IllegalArgumentException} whose message names the key (and, for a file, the file).
 */
public final class ConfigSources {

    /** The environment variable naming a configuration file. */
    public static final String ENVIRONMENT_VARIABLE = "FENCING_CONFIG";
    /** The classpath resource read when no file is named. */
    public static final String CLASSPATH_RESOURCE = "fencing.properties";

    private final Function<String, String> systemProperties;
    private final Function<String, String> environment;
    private final ClassLoader classLoader;

    /**
     * @param systemProperties how to read a system property (normally {@link System#getProperty(String)})
     * @param environment      how to read an environment variable (normally {@link System#getenv(String)})
     * @param classLoader      where to look for {@value #CLASSPATH_RESOURCE}; null for none
     */
    public ConfigSources(Function<String, String> systemProperties, Function<String, String> environment,
                         ClassLoader classLoader) {
        this.systemProperties = Objects.requireNonNull(systemProperties, "systemProperties");
        this.environment = Objects.requireNonNull(environment, "environment");
        this.classLoader = classLoader;
    }

    /** The real sources: system properties, the environment, the thread's context class loader. */
    public static ConfigSources standard() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        return new ConfigSources(System::getProperty, System::getenv,
                loader != null ? loader : ConfigSources.class.getClassLoader());
    }

    /** True for keys fencing-jdbc owns: they start with {@code fencing.} (in any case). */
    public static boolean isFencingKey(String key) {
        return key != null && key.regionMatches(true, 0, FencingConfig.KEY_PREFIX, 0, FencingConfig.KEY_PREFIX.length());
    }

    /** The fencing keys of {@code properties} (defaults included), in a new object. */
    public static Properties fencingKeys(Properties properties) {
        Properties keys = new Properties();
        for (String key : properties.stringPropertyNames()) {
            if (isFencingKey(key)) {
                keys.setProperty(key, properties.getProperty(key));
            }
        }
        return keys;
    }

    /**
     * The configuration from all sources, {@code explicit} first. A key that starts with
     * {@code fencing.} in another case ({@code Fencing.Tables}) is refused as unknown rather than
     * ignored: a key that silently configures nothing would leave writes unfenced.
     */
    public FencingConfig resolve(Properties explicit) {
        Properties merged = merge(explicit);
        FencingConfig.Builder builder = FencingConfig.builder();
        for (String key : merged.stringPropertyNames()) {
            builder.set(key, merged.getProperty(key));
        }
        return builder.build();
    }

    /** The fencing keys from all sources, {@code explicit} first, before validation. */
    public Properties merge(Properties explicit) {
        Properties own = fencingKeys(explicit == null ? new Properties() : explicit);
        Properties merged = new Properties();
        String file = configFile(own);
        if (file != null) {
            merged.putAll(readFile(file));
        } else {
            merged.putAll(readResource());
        }
        merged.putAll(own);
        merged.remove(FencingConfig.CONFIG);
        return merged;
    }

    /** The file named by {@code fencing.config}, from the first source that names one; else null. */
    private String configFile(Properties explicit) {
        String file = explicit.getProperty(FencingConfig.CONFIG);
        if (isBlank(file)) {
            file = systemProperties.apply(FencingConfig.CONFIG);
        }
        if (isBlank(file)) {
            file = environment.apply(ENVIRONMENT_VARIABLE);
        }
        return isBlank(file) ? null : file.trim();
    }

    private static Properties readFile(String name) {
        Path path;
        try {
            path = Path.of(name);
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("invalid value '" + name + "' for " + FencingConfig.CONFIG
                    + "; allowed: the path of a readable properties file", e);
        }
        try (Reader reader = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
            return fencingKeys(load(reader));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the file named by " + FencingConfig.CONFIG + " ("
                    + path + "): " + e, e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("malformed properties file named by " + FencingConfig.CONFIG
                    + " (" + path + "): " + e.getMessage(), e);
        }
    }

    private Properties readResource() {
        URL resource = classLoader == null ? null : classLoader.getResource(CLASSPATH_RESOURCE);
        if (resource == null) {
            return new Properties();
        }
        try (InputStream in = resource.openStream();
             Reader reader = new InputStreamReader(in, StandardCharsets.UTF_8)) {
            return fencingKeys(load(reader));
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException("cannot read the classpath resource " + CLASSPATH_RESOURCE + " ("
                    + resource + "): " + e.getMessage(), e);
        }
    }

    private static Properties load(Reader reader) throws IOException {
        Properties properties = new Properties();
        properties.load(reader);
        return properties;
    }

    private static boolean isBlank(String text) {
        return text == null || text.isBlank();
    }
}
