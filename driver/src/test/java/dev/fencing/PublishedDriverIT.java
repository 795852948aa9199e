package dev.fencing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * What a user of {@code fencing-driver} receives, read from the packaged artifacts after
 * {@code package} (failsafe): the jar carries JSqlParser relocated under
 * {@code dev.fencing.shaded.jsqlparser} and no class names {@code net.sf.jsqlparser}, so Spring
 * Data JPA cannot take it for its own parser and an application's own JSqlParser cannot clash
 * with it; the pom that {@code install} and {@code deploy} publish (the shade plugin's
 * dependency-reduced pom) declares no JSqlParser and nothing that is not optional.
 */
class PublishedDriverIT {

    private static final Pattern UNRELOCATED = Pattern.compile("net/sf/jsqlparser/|net\\.sf\\.jsqlparser\\.");

    private static Path artifact(String property) {
        Path file = Path.of(System.getProperty(property, "(unset)"));
        assertThat(file).as("%s, written by package (run the tests with verify)", property).isRegularFile();
        return file;
    }

    @Test
    void theJarCarriesJSqlParserRelocatedAndNamesItNowhereElse() throws IOException {
        for (Path jar : List.of(artifact("fencing.driver.jar"), artifact("fencing.driver.cli-jar"))) {
            assertThat(unrelocatedEntries(jar)).as("entries or classes naming net.sf.jsqlparser in %s", jar).isEmpty();
            try (JarFile file = new JarFile(jar.toFile())) {
                assertThat(file.getEntry("dev/fencing/shaded/jsqlparser/parser/CCJSqlParser.class")).as("%s", jar).isNotNull();
                assertThat(file.getEntry("META-INF/licenses/JSqlParser-LICENSE")).as("%s", jar).isNotNull();
            }
        }
    }

    @Test
    void thePublishedPomDeclaresNoJSqlParserAndNothingRequired() throws Exception {
        Element project = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(artifact("fencing.driver.pom").toFile()).getDocumentElement();
        Set<String> required = new TreeSet<>();
        Set<String> optional = new TreeSet<>();
        Element dependencies = child(project, "dependencies");
        for (Node node = dependencies.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element dependency && dependency.getTagName().equals("dependency")) {
                String scope = text(dependency, "scope");
                if ("test".equals(scope) || "provided".equals(scope)) {
                    continue;
                }
                String name = text(dependency, "groupId") + ":" + text(dependency, "artifactId");
                ("true".equals(text(dependency, "optional")) ? optional : required).add(name);
            }
        }
        assertThat(required).as("dependencies every user of fencing-driver receives").isEmpty();
        assertThat(optional).as("optional dependencies in the published pom").isEqualTo(RuntimeDependenciesTest.OPTIONAL);
    }

    private static List<String> unrelocatedEntries(Path jar) throws IOException {
        List<String> found = new ArrayList<>();
        try (JarFile file = new JarFile(jar.toFile())) {
            for (JarEntry entry : Collections.list(file.entries())) {
                String name = entry.getName();
                if (name.startsWith("net/sf/jsqlparser/")) {
                    found.add(name);
                } else if (name.endsWith(".class") && name.startsWith("dev/fencing/")) {
                    try (InputStream in = file.getInputStream(entry)) {
                        if (UNRELOCATED.matcher(new String(in.readAllBytes(), StandardCharsets.ISO_8859_1)).find()) {
                            found.add(name);
                        }
                    }
                }
            }
        }
        return found;
    }

    private static Element child(Element parent, String tag) {
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(tag)) {
                return element;
            }
        }
        throw new AssertionError("no <" + tag + "> in <" + parent.getTagName() + ">");
    }

    private static String text(Element parent, String tag) {
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(tag)) {
                return element.getTextContent().strip();
            }
        }
        return null;
    }
}
