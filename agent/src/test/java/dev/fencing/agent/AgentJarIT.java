package dev.fencing.agent;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent jar holds only {@code dev/fencing/**} (the driver's API and internals, the agent) and
 * relocated third-party code under {@code dev/fencing/shaded/**}, plus {@code META-INF}: nothing
 * it bundles can clash with the application's own copies.
 */
class AgentJarIT {

    @Test
    void everyEntryIsOnTheAllowList() throws IOException {
        List<String> outside = new ArrayList<>();
        try (JarFile jar = new JarFile(ChildJvm.agentJar().toFile())) {
            for (JarEntry entry : Collections.list(jar.entries())) {
                String name = entry.getName();
                boolean allowed = name.equals("META-INF/") || name.startsWith("META-INF/")
                        || name.equals("dev/") || name.startsWith("dev/fencing/");
                if (!allowed) {
                    outside.add(name);
                }
            }
        }
        assertThat(outside).isEmpty();
    }

    @Test
    void thirdPartyCodeIsRelocatedAndTheApiIsNot() throws IOException {
        try (JarFile jar = new JarFile(ChildJvm.agentJar().toFile())) {
            List<String> names = Collections.list(jar.entries()).stream().map(JarEntry::getName).toList();
            assertThat(names).contains(
                    "dev/fencing/Fence.class", "dev/fencing/Fenced.class", "dev/fencing/FencingConfig.class",
                    "dev/fencing/StaleFenceException.class", "dev/fencing/jdbc/FencingDataSource.class",
                    "dev/fencing/internal/jdbc/ConnectionFencing.class", "dev/fencing/agent/FencingAgent.class",
                    "dev/fencing/agent/bootstrap/AgentBridge.class",
                    "dev/fencing/shaded/bytebuddy/agent/builder/AgentBuilder.class",
                    "dev/fencing/shaded/jsqlparser/parser/CCJSqlParser.class");
            assertThat(names).noneMatch(n -> n.startsWith("dev/fencing/internal/cli/"));
            assertThat(names).noneMatch(n -> n.startsWith("META-INF/versions/"));
            assertThat(names).doesNotContain("META-INF/services/java.sql.Driver");

            // no class still names a third-party package by its own name (in a message text is harmless:
            // Byte Buddy quotes one property name in an error message, 'net.bytebuddy.naming')
            Pattern unrelocated = Pattern.compile("net/bytebuddy/|net/sf/jsqlparser/|(?<!')net\\.bytebuddy\\.|net\\.sf\\.jsqlparser\\.");
            List<String> leaks = new ArrayList<>();
            for (JarEntry entry : Collections.list(jar.entries())) {
                if (entry.getName().endsWith(".class")) {
                    try (InputStream in = jar.getInputStream(entry)) {
                        String bytes = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
                        if (unrelocated.matcher(bytes).find()) {
                            leaks.add(entry.getName());
                        }
                    }
                }
            }
            assertThat(leaks).isEmpty();
        }
    }

    @Test
    void theManifestMakesItAnAgentAndACommand() throws IOException {
        try (JarFile jar = new JarFile(ChildJvm.agentJar().toFile())) {
            Attributes main = jar.getManifest().getMainAttributes();
            assertThat(main.getValue("Premain-Class")).isEqualTo("dev.fencing.agent.FencingAgent");
            assertThat(main.getValue("Agent-Class")).isEqualTo("dev.fencing.agent.FencingAgent");
            assertThat(main.getValue("Main-Class")).isEqualTo("dev.fencing.agent.FencingAgent");
            assertThat(main.getValue("Can-Retransform-Classes")).isEqualTo("true");
            assertThat(main.getValue("Can-Redefine-Classes")).isEqualTo("true");
        }
    }
}
