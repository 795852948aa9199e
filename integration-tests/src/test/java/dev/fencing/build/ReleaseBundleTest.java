package dev.fencing.build;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release check ({@code release/src/build/java}, run by the release profile) on staged
 * directories made here: a complete one passes, and each missing file or metadata, each SNAPSHOT
 * dependency outside the project and each publisher step left undone is named.
 */
class ReleaseBundleTest {

    private static final String VERSION = "1.0.0";
    private static final String PARENT = """
            <project><groupId>dev.fencing</groupId><artifactId>fencing-parent</artifactId><version>1.0.0</version>
            <packaging>pom</packaging><name>p</name><description>d</description><url>${fencing.project.url}</url>
            <licenses><license><name>Apache-2.0</name><url>https://www.apache.org/licenses/LICENSE-2.0.txt</url></license></licenses>
            <developers><developer><name>someone</name></developer></developers>
            <scm><url>${fencing.project.url}</url><connection>scm:git:${fencing.project.url}.git</connection></scm>
            <properties><fencing.project.url>%s</fencing.project.url></properties></project>
            """;
    private static final String MODULE = """
            <project><parent><groupId>dev.fencing</groupId><artifactId>fencing-parent</artifactId><version>1.0.0</version></parent>
            <artifactId>fencing-driver</artifactId><name>fencing-driver</name><description>d</description>
            <dependencies>%s</dependencies></project>
            """;

    @Test
    void aCompleteSignedStagingPasses(@TempDir Path staging) throws Exception {
        stage(staging, "https://github.com/acme/fencing-jdbc", "");
        assertThat(check(staging, false)).isEmpty();
    }

    @Test
    void aMissingJavadocJarChecksumOrSignatureIsNamed(@TempDir Path staging) throws Exception {
        Path version = stage(staging, "https://github.com/acme/fencing-jdbc", "");
        Files.delete(version.resolve("fencing-driver-1.0.0-javadoc.jar"));
        Files.delete(version.resolve("fencing-driver-1.0.0-sources.jar.sha1"));
        Files.delete(version.resolve("fencing-driver-1.0.0.jar.asc"));

        assertThat(check(staging, false)).containsExactlyInAnyOrder(
                "missing dev/fencing/fencing-driver/1.0.0/fencing-driver-1.0.0-sources.jar.sha1",
                "dev/fencing/fencing-driver/1.0.0/fencing-driver-1.0.0.jar is not signed: build with gpg (leave out -Dgpg.skip)",
                "missing dev/fencing/fencing-driver/1.0.0/fencing-driver-1.0.0-javadoc.jar");
    }

    @Test
    void aSnapshotDependencyOutsideTheProjectIsRefusedAndTheProjectsOwnIsNot(@TempDir Path staging) throws Exception {
        stage(staging, "https://github.com/acme/fencing-jdbc", """
                <dependency><groupId>io.lettuce</groupId><artifactId>lettuce-core</artifactId><version>7.0.0-SNAPSHOT</version></dependency>
                <dependency><groupId>dev.fencing</groupId><artifactId>fencing-parent</artifactId><version>${project.version}</version></dependency>
                """);
        assertThat(check(staging, false)).containsExactly("fencing-driver depends on io.lettuce:lettuce-core:7.0.0-SNAPSHOT, "
                + "a SNAPSHOT outside this project: depend on a release");
    }

    @Test
    void placeholderAddressesFailUnlessADryRunListsThem(@TempDir Path staging) throws Exception {
        stage(staging, "https://" + ReleaseBundle.PLACEHOLDER + "/fencing-jdbc", "");

        assertThat(check(staging, false)).isNotEmpty().allMatch(problem -> problem.contains("is still ") && problem.contains(ReleaseBundle.PLACEHOLDER));
        ReleaseBundle dryRun = new ReleaseBundle(staging, true);
        dryRun.check(staging.resolve("dev/fencing"));
        assertThat(dryRun.problems).isEmpty();
        assertThat(dryRun.publisherSteps).contains("fencing-driver: url is still https://example.invalid/fencing-jdbc: "
                + "set the fencing.project.url and fencing.scm.git-url properties of the root pom");
    }

    @Test
    void metadataMissingFromTheModuleAndItsParentIsNamed(@TempDir Path staging) throws Exception {
        Path version = stage(staging, "https://github.com/acme/fencing-jdbc", "");
        Path parentPom = staging.resolve("dev/fencing/fencing-parent/1.0.0/fencing-parent-1.0.0.pom");
        Files.writeString(parentPom, Files.readString(parentPom).replaceAll("<developers>.*</developers>", ""));

        assertThat(check(staging, false)).contains("fencing-parent: the pom names no developers/developer/name "
                + "(Maven Central requires it)", "fencing-driver: the pom names no developers/developer/name "
                + "(Maven Central requires it)");
        assertThat(version).isDirectory();
    }

    private static List<String> check(Path staging, boolean dryRun) throws Exception {
        ReleaseBundle check = new ReleaseBundle(staging, dryRun);
        check.check(staging.resolve("dev/fencing"));
        return check.problems;
    }

    /** Stages the parent and one jar module, every file with checksums and a signature; returns the module's directory. */
    private static Path stage(Path staging, String url, String dependencies) throws IOException {
        Path parent = Files.createDirectories(staging.resolve("dev/fencing/fencing-parent/" + VERSION));
        write(parent.resolve("fencing-parent-" + VERSION + ".pom"), PARENT.formatted(url));
        Path module = Files.createDirectories(staging.resolve("dev/fencing/fencing-driver/" + VERSION));
        write(module.resolve("fencing-driver-" + VERSION + ".pom"), MODULE.formatted(dependencies));
        for (String suffix : List.of(".jar", "-sources.jar", "-javadoc.jar")) {
            write(module.resolve("fencing-driver-" + VERSION + suffix), "jar");
        }
        return module;
    }

    private static void write(Path file, String content) throws IOException {
        Files.writeString(file, content);
        for (String extra : List.of(".md5", ".sha1", ".asc")) {
            Files.writeString(Path.of(file + extra), "x");
        }
    }
}
