package dev.fencing.internal.config;

import dev.fencing.FencingConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Where the configuration comes from, in order: explicit keys, a named file, the classpath resource. */
class ConfigSourcesTest {

    @TempDir
    Path directory;

    private Path file(String name, String text) throws IOException {
        Path file = directory.resolve(name);
        Files.writeString(file, text);
        return file;
    }

    private ClassLoader classpathWith(String resourceText) throws IOException {
        Path root = Files.createDirectories(directory.resolve("classpath"));
        Files.writeString(root.resolve(ConfigSources.CLASSPATH_RESOURCE), resourceText);
        return new URLClassLoader(new URL[] {root.toUri().toURL()}, null);
    }

    private static Properties properties(String... keyValues) {
        Properties properties = new Properties();
        for (int i = 0; i < keyValues.length; i += 2) {
            properties.setProperty(keyValues[i], keyValues[i + 1]);
        }
        return properties;
    }

    private static ConfigSources sources(Map<String, String> system, Map<String, String> environment, ClassLoader loader) {
        return new ConfigSources(system::get, environment::get, loader);
    }

    @Test
    void explicitKeysAloneAreEnough() {
        FencingConfig config = sources(Map.of(), Map.of(), null).resolve(properties("fencing.tables", "orders",
                "user", "ignored"));
        assertThat(config.tables()).hasSize(1);
    }

    @Test
    void explicitKeysWinOverTheNamedFile() throws IOException {
        Path file = file("a.properties", "fencing.tables=orders\nfencing.comparison=strictly-newer\n"
                + "fencing.on-zero-rows=raise\n");
        FencingConfig config = sources(Map.of(), Map.of(), null).resolve(
                properties("fencing.config", file.toString(), "fencing.on-zero-rows", "diagnose"));
        assertThat(config.comparison()).isEqualTo(FencingConfig.Comparison.STRICTLY_NEWER);
        assertThat(config.onZeroRows()).isEqualTo(FencingConfig.ZeroRows.DIAGNOSE);
    }

    @Test
    void theFileIsNamedByPropertyThenSystemPropertyThenEnvironment() throws IOException {
        Path fromProperty = file("p.properties", "fencing.tables=p\n");
        Path fromSystem = file("s.properties", "fencing.tables=s\n");
        Path fromEnvironment = file("e.properties", "fencing.tables=e\n");
        Map<String, String> system = Map.of(FencingConfig.CONFIG, fromSystem.toString());
        Map<String, String> environment = Map.of(ConfigSources.ENVIRONMENT_VARIABLE, fromEnvironment.toString());
        assertThat(sources(system, environment, null).resolve(properties("fencing.config", fromProperty.toString()))
                .tables().iterator().next()).isEqualTo("p");
        assertThat(sources(system, environment, null).resolve(new Properties())
                .tables().iterator().next()).isEqualTo("s");
        assertThat(sources(Map.of(), environment, null).resolve(new Properties())
                .tables().iterator().next()).isEqualTo("e");
    }

    @Test
    void theClasspathResourceIsReadWhenNoFileIsNamed() throws IOException {
        ClassLoader loader = classpathWith("fencing.tables=from_classpath\nfencing.comparison=strictly-newer\n");
        FencingConfig config = sources(Map.of(), Map.of(), loader).resolve(new Properties());
        assertThat(config.tables().iterator().next()).isEqualTo("from_classpath");
        FencingConfig overridden = sources(Map.of(), Map.of(), loader)
                .resolve(properties("fencing.comparison", "newer-or-equal"));
        assertThat(overridden.comparison()).isEqualTo(FencingConfig.Comparison.NEWER_OR_EQUAL);
        // a named file replaces the classpath resource
        Path file = file("f.properties", "fencing.tables=from_file\n");
        FencingConfig named = sources(Map.of(), Map.of(), loader).resolve(properties("fencing.config", file.toString()));
        assertThat(named.tables().iterator().next()).isEqualTo("from_file");
        assertThat(named.comparison()).isEqualTo(FencingConfig.Comparison.NEWER_OR_EQUAL);
    }

    @Test
    void aNamedFileThatCannotBeReadIsAnErrorNotAFallback() throws IOException {
        ClassLoader loader = classpathWith("fencing.tables=orders\n");
        assertThatThrownBy(() -> sources(Map.of(), Map.of(), loader)
                .resolve(properties("fencing.config", directory.resolve("missing").toString())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fencing.config");
    }

    @Test
    void invalidValuesAndMiscasedKeysNameTheKey() {
        ConfigSources sources = sources(Map.of(), Map.of(), null);
        assertThatThrownBy(() -> sources.resolve(properties("fencing.tables", "orders", "fencing.column", "x y")))
                .hasMessageContaining("fencing.column");
        assertThatThrownBy(() -> sources.resolve(properties("fencing.tables", "orders", "FENCING.COLUMN", "c")))
                .hasMessageContaining("FENCING.COLUMN");
        assertThatThrownBy(() -> sources.resolve(new Properties())).hasMessageContaining("fencing.tables");
    }
}
