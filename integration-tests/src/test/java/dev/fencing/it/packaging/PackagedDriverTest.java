package dev.fencing.it.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The driver as users receive it: this module depends on {@code fencing-driver} the way an
 * application does, so its class path holds the driver's packaged jar (from the reactor after
 * {@code package}, or the installed one) and whatever that jar's published pom brings, never the
 * driver's {@code target/classes}. {@link JpaApplication} runs on that class path in a JVM of its
 * own: Spring Data JPA must not find a JSqlParser (the driver's is relocated inside its jar), and
 * with the application's own JSqlParser of another version added, both the application's parser
 * and the driver's fencing work.
 */
class PackagedDriverTest {

    private static final String FENCED = "FENCING unfenced=MissingFenceException fenced=1 row=paid/7";

    @Test
    void springDataJpaFindsNoJSqlParserBesideTheDriver() throws Exception {
        String output = run(applicationClassPath());

        assertThat(output).contains("SPRING_DATA_JSQLPARSER false")
                .contains("APPLICATION_JSQLPARSER none")
                .contains(FENCED)
                .doesNotContain("JSqlParser is in classpath");
    }

    @Test
    void anApplicationWithAnotherJSqlParserVersionKeepsItsOwnAndIsFenced() throws Exception {
        Path other = Path.of(System.getProperty("fencing.other-jsqlparser", "(unset)"));
        assertThat(other).as("copied by maven-dependency-plugin before the tests").isRegularFile();
        List<String> classPath = applicationClassPath();
        classPath.add(0, other.toString()); // first, so a class of the same name in the driver's jar would lose to it

        String output = run(classPath);

        assertThat(output).contains("SPRING_DATA_JSQLPARSER true") // the application's own parser, its choice
                .contains("APPLICATION_JSQLPARSER " + other.getFileName() + " parsed Update")
                .contains(FENCED);
    }

    /** This JVM's class path without the test framework; the driver must be a jar, not class files. */
    private static List<String> applicationClassPath() {
        List<String> entries = new ArrayList<>();
        List<String> drivers = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String path = entry.replace('\\', '/');
            if (path.contains("/junit") || path.contains("opentest4j") || path.contains("apiguardian")
                    || path.contains("assertj") || path.contains("surefire")
                    || path.endsWith("-tests.jar") || path.endsWith("driver/target/test-classes")) {
                // test libraries, and the driver's test-only hook (JdbcInternals): no application has them
                continue;
            }
            if (path.contains("fencing-driver") || path.endsWith("driver/target/classes")) {
                drivers.add(path);
            }
            entries.add(entry);
        }
        assertThat(drivers).as("fencing-driver on this module's class path: its packaged or installed jar "
                + "(run with verify across the reactor, not test)").singleElement()
                .satisfies(driver -> assertThat(driver).endsWith(".jar"));
        assertThat(entries).as("no module of the build may hand the application JSqlParser")
                .noneMatch(entry -> entry.contains("jsqlparser"));
        return entries;
    }

    private static String run(List<String> classPath) throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process process = new ProcessBuilder(java.toString(), "-cp", String.join(File.pathSeparator, classPath),
                JpaApplication.class.getName()).redirectErrorStream(true).start();
        process.getOutputStream().close();
        byte[] output = process.getInputStream().readAllBytes(); // ends when the process does
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String text = new String(output, StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as(text).isZero();
        return text;
    }
}
