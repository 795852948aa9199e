package dev.fencing.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.spring.FencingAutoConfiguration;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;

import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;

/**
 * What the shared tests beside this class run on: Spring Boot 3.5 and ShedLock 6 (the versions this
 * module's pom names), fencing-spring-boot3-starter, and fencing-shedlock's own build output
 * rather than a copy of its classes compiled here. Without this, a dependency slip would run them
 * on ShedLock 7 or Boot 4 and prove nothing about the Boot 3.5 line.
 */
class Boot3LineTest {

    @Test
    void springBootIsThePomsBoot3Version() {
        assertThat(SpringBootVersion.getVersion()).isEqualTo(expected("expected.spring-boot.version")).startsWith("3.5.");
    }

    @Test
    void shedLockIsThePomsShedLock6() throws IOException {
        String expected = expected("expected.shedlock.version");
        assertThat(expected).startsWith("6.");
        assertThat(versionsOnTheClassPath("shedlock-core")).containsExactly(expected);
        assertThat(versionsOnTheClassPath("shedlock-spring")).containsExactly(expected);
        assertThat(location(LockProvider.class).getFileName().toString()).isEqualTo("shedlock-core-" + expected + ".jar");
        assertThat(location(SchedulerLock.class).getFileName().toString()).isEqualTo("shedlock-spring-" + expected + ".jar");
    }

    @Test
    void theStarterIsTheBoot3One() {
        assertThat(location(FencingAutoConfiguration.class).toString()).contains("spring-boot3-starter");
    }

    @Test
    void theProviderComesFromFencingShedlocksBuildNotFromThisModule() {
        Path provider = location(FencedLockProvider.class);
        assertThat(provider).isNotEqualTo(location(Boot3LineTest.class));
        assertThat(provider.toString()).contains("shedlock").doesNotContain("shedlock-boot3-tests");
    }

    private static String expected(String property) {
        String value = System.getProperty(property);
        assertThat(value).as("system property %s (set by this module's surefire configuration)", property).isNotBlank();
        return value;
    }

    private static List<String> versionsOnTheClassPath(String artifact) throws IOException {
        String resource = "META-INF/maven/net.javacrumbs.shedlock/" + artifact + "/pom.properties";
        List<String> versions = new ArrayList<>();
        for (URL url : Collections.list(Boot3LineTest.class.getClassLoader().getResources(resource))) {
            Properties properties = new Properties();
            try (InputStream in = url.openStream()) {
                properties.load(in);
            }
            versions.add(properties.getProperty("version"));
        }
        return versions;
    }

    private static Path location(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
