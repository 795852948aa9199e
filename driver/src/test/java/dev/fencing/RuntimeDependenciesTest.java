package dev.fencing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Holds the driver's declared runtime dependencies to what the README promises: nothing that is
 * not optional, JSqlParser bundled (relocated into the jar, so declared optional and left out of
 * the installed pom). JSqlParser 5.3's own POM declares JMH, jopt-simple and commons-math3 at
 * compile scope; without the exclusions in the parent POM they would end up in the {@code cli}
 * jar. What users receive from the packaged jar and its installed pom is checked after
 * {@code package} by {@code PublishedDriverIT}.
 *
 * <p>The tree comes from {@code maven-dependency-plugin:tree} (runtime scope), written to
 * {@code target/runtime-dependency-tree.txt} before the tests run.
 */
class RuntimeDependenciesTest {

    static final String JSQLPARSER = "com.github.jsqlparser:jsqlparser";
    /** Optional for users: Lettuce for RedisFencedLocks, the JDBC drivers for the cli jar. */
    static final Set<String> OPTIONAL = Set.of(
            "io.lettuce:lettuce-core", "com.h2database:h2", "org.postgresql:postgresql",
            "org.mariadb.jdbc:mariadb-java-client");
    private static final Pattern TOP_LEVEL = Pattern.compile("^[+\\\\]- ([^:]+):([^:]+):.*$");

    @Test
    void nothingIsRequiredAndTheBundledJSqlParserBringsNothingElse() throws IOException {
        Map<String, List<String>> tree = topLevelDependencies(Path.of("target/runtime-dependency-tree.txt"));
        Set<String> declaredOptional = optionalDependenciesDeclaredIn(Path.of("pom.xml"));

        Set<String> required = new TreeSet<>(tree.keySet());
        required.removeAll(declaredOptional);

        assertThat(required).as("non-optional runtime dependencies of fencing-driver").isEmpty();
        Set<String> expectedOptional = new TreeSet<>(OPTIONAL);
        expectedOptional.add(JSQLPARSER); // bundled: optional so that no module of the build sees it unrelocated
        assertThat(declaredOptional).as("optional dependencies of fencing-driver").isEqualTo(expectedOptional);
        assertThat(tree.get(JSQLPARSER))
                .as("what JSqlParser brings along (its POM declares its benchmark libraries at compile scope)")
                .isEmpty();
    }

    @Test
    void theReadmeNamesTheSameRuntimeDependencies() throws IOException {
        String readme = Files.readString(Path.of("../README.md"));
        assertThat(readme).contains("Runtime dependencies of the driver: Lettuce, only for")
                .contains("JSqlParser is inside its jar, relocated under `dev.fencing.shaded.jsqlparser`");
        assertThat(readme).contains("The JDBC drivers are optional dependencies");
    }

    /** Maps each direct dependency ("group:artifact") to the lines of its subtree. */
    private static Map<String, List<String>> topLevelDependencies(Path treeFile) throws IOException {
        assertThat(treeFile).as("written by maven-dependency-plugin before the tests").exists();
        Map<String, List<String>> tree = new LinkedHashMap<>();
        List<String> current = null;
        List<String> lines = Files.readAllLines(treeFile);
        for (String line : lines.subList(1, lines.size())) {
            Matcher topLevel = TOP_LEVEL.matcher(line);
            if (topLevel.matches()) {
                current = new ArrayList<>();
                tree.put(topLevel.group(1) + ":" + topLevel.group(2), current);
            } else if (current != null && !line.isBlank()) {
                current.add(line.strip());
            }
        }
        return tree;
    }

    static Set<String> optionalDependenciesDeclaredIn(Path pom) {
        try {
            var document = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
            Element dependencies = (Element) document.getDocumentElement().getElementsByTagName("dependencies").item(0);
            NodeList declared = dependencies.getElementsByTagName("dependency");
            Set<String> optional = new TreeSet<>();
            for (int i = 0; i < declared.getLength(); i++) {
                Element dependency = (Element) declared.item(i);
                if ("true".equals(text(dependency, "optional"))) {
                    optional.add(text(dependency, "groupId") + ":" + text(dependency, "artifactId"));
                }
            }
            return optional;
        } catch (Exception e) {
            throw new AssertionError("cannot read " + pom, e);
        }
    }

    private static String text(Element parent, String tag) {
        NodeList nodes = parent.getElementsByTagName(tag);
        return nodes.getLength() == 0 ? null : nodes.item(0).getTextContent().strip();
    }
}
