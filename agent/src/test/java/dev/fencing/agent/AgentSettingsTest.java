package dev.fencing.agent;

import dev.fencing.FencingConfig;
import dev.fencing.internal.config.ConfigSources;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AgentSettingsTest {

    private static ConfigSources sources(Map<String, String> systemProperties) {
        return new ConfigSources(systemProperties::get, name -> null, null);
    }

    @Test
    void theAgentArgumentNamesTheFileAndAgentKeysAreTakenOut(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("f, =.properties"),
                "fencing.tables=orders\nfencing.agent.exclude-urls=jdbc:h2:*\n");

        AgentSettings settings = AgentSettings.resolve("config=" + file, sources(Map.of()));

        assertThat(settings.fencingKeys()).containsOnlyKeys(FencingConfig.TABLES);
        assertThat(settings.urls().fences("jdbc:h2:mem:x")).isFalse();
        assertThat(settings.urls().fences("jdbc:postgresql://db/app")).isTrue();
    }

    @Test
    void withoutAnArgumentTheDriversSourcesAreRead(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("fencing.properties"), "fencing.tables=payments\n");

        AgentSettings settings = AgentSettings.resolve(null, sources(Map.of(FencingConfig.CONFIG, file.toString())));

        assertThat(settings.fencingKeys().getProperty(FencingConfig.TABLES)).isEqualTo("payments");
    }

    @Test
    void noTableIsRefusedUnlessEntitiesAreSaidToNameThem(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> AgentSettings.resolve("", sources(Map.of())))
                .hasMessageStartingWith("no fenced table configured, so the agent would fence nothing")
                .hasMessageContaining("fencing.tables").hasMessageContaining("fencing.agent.tables-from=entities");
        Path blank = Files.writeString(dir.resolve("blank.properties"), "fencing.tables= \nfencing.column=fence\n");
        assertThatThrownBy(() -> AgentSettings.resolve("config=" + blank, sources(Map.of())))
                .hasMessageContaining("set fencing.tables in " + blank);

        Path entities = Files.writeString(dir.resolve("entities.properties"), "fencing.agent.tables-from=entities\n");
        AgentSettings settings = AgentSettings.resolve("config=" + entities, sources(Map.of()));
        assertThat(settings.fencingKeys()).isEmpty();
        assertThat(new FencedTables(settings.fencingKeys()).describe()).isEmpty();

        Path misspelt = Files.writeString(dir.resolve("from.properties"), "fencing.agent.tables-from=entity\n");
        assertThatThrownBy(() -> AgentSettings.resolve("config=" + misspelt, sources(Map.of())))
                .hasMessageContaining("'entity' for fencing.agent.tables-from").hasMessageContaining("configuration")
                .hasMessageContaining("entities");
    }

    @Test
    void anUnknownKeyIsRefusedWithEveryKnownKeyTheAgentsIncluded(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("a.properties"), "fencing.tables=orders\nfencing.tabels=payments\n");
        assertThatThrownBy(() -> AgentSettings.resolve("config=" + file, sources(Map.of())))
                .hasMessageStartingWith("unknown fencing agent configuration key 'fencing.tabels'; known keys: fencing.tables,")
                .hasMessageContaining("fencing.column")
                .hasMessageEndingWith("fencing.agent.include-urls, fencing.agent.exclude-urls, fencing.agent.tables-from");
    }

    @Test
    void unknownAgentKeysAndBadValuesAreRefusedByName(@TempDir Path dir) throws Exception {
        Path misspelt = Files.writeString(dir.resolve("a.properties"),
                "fencing.tables=orders\nfencing.agent.include-url=jdbc:h2:*\n");
        assertThatThrownBy(() -> AgentSettings.resolve("config=" + misspelt, sources(Map.of())))
                .hasMessageContaining("fencing.agent.include-url").hasMessageContaining("fencing.agent.include-urls");

        Path badValue = Files.writeString(dir.resolve("b.properties"), "fencing.tables=orders\nfencing.comparison=sometimes\n");
        assertThatThrownBy(() -> AgentSettings.resolve("config=" + badValue, sources(Map.of())))
                .hasMessageContaining("fencing.comparison").hasMessageContaining("newer-or-equal");

        assertThatThrownBy(() -> AgentSettings.resolve("config=" + dir.resolve("missing"), sources(Map.of())))
                .hasMessageContaining("cannot read");
        assertThatThrownBy(() -> AgentSettings.resolve("tables=orders", sources(Map.of())))
                .hasMessageContaining("config=<path");
    }
}
