package dev.fencing.build;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Checks the artifacts the {@code release} profile staged (a Maven repository layout, written by
 * {@code deploy} into the staging directory) and zips them into the bundle a publisher uploads
 * to Maven Central. Run as a source file: {@code java ReleaseBundle.java <staging> <group-path>
 * <bundle.zip> <dry-run>}; exits 1 listing every problem.
 *
 * <p>Always refused: a published module without its pom, jar, {@code -sources.jar} or
 * {@code -javadoc.jar}; a file without its {@code .md5} and {@code .sha1}; a pom (with what it
 * inherits from the staged parent) without name, description, url, license, scm or developer;
 * a SNAPSHOT dependency on anything but the project's own modules. Refused unless
 * {@code dry-run} is true (then printed as what a real release still needs): a SNAPSHOT version,
 * a file without its {@code .asc} signature, a URL still the placeholder the root pom ships with.
 */
public final class ReleaseBundle {

    /** The root pom's placeholder host: a publisher sets the real URLs (README, "Build"). */
    static final String PLACEHOLDER = "example.invalid";
    private static final Pattern PROPERTY = Pattern.compile("\\$\\{([^}]+)}");

    private final Path staging;
    private final boolean dryRun;
    final List<String> problems = new ArrayList<>();
    final List<String> publisherSteps = new ArrayList<>();

    ReleaseBundle(Path staging, boolean dryRun) {
        this.staging = staging;
        this.dryRun = dryRun;
    }

    public static void main(String[] args) throws Exception {
        Path staging = Path.of(args[0]);
        ReleaseBundle check = new ReleaseBundle(staging, Boolean.parseBoolean(args[3]));
        List<Path> versions = check.check(staging.resolve(args[1]));
        for (String step : check.publisherSteps) {
            System.out.println("release bundle (dry run): a real release still needs: " + step);
        }
        if (!check.problems.isEmpty()) {
            check.problems.forEach(problem -> System.err.println("release bundle: " + problem));
            System.exit(1);
        }
        Path bundle = Path.of(args[2]);
        zip(staging, versions, bundle);
        System.out.println("release bundle: " + versions.size() + " modules checked, written to " + bundle);
    }

    /** Checks every module staged under {@code group}; returns their version directories. */
    List<Path> check(Path group) throws Exception {
        List<Path> versions = new ArrayList<>();
        if (!Files.isDirectory(group)) {
            problems.add("nothing staged under " + group + " (run mvn -Prelease deploy)");
            return versions;
        }
        try (Stream<Path> artifacts = Files.list(group)) {
            for (Path artifact : artifacts.filter(Files::isDirectory).sorted().toList()) {
                try (Stream<Path> children = Files.list(artifact)) {
                    children.filter(Files::isDirectory).sorted().forEach(versions::add);
                }
            }
        }
        Map<String, Element> poms = new HashMap<>();
        Map<Path, String> names = new HashMap<>();
        for (Path version : versions) {
            String name = fileName(version);
            names.put(version, name);
            Path pom = version.resolve(name + ".pom");
            requireFile(pom);
            if (Files.isRegularFile(pom)) {
                poms.put(version.getParent().getFileName().toString(), read(pom));
            }
        }
        for (Path version : versions) {
            String artifact = version.getParent().getFileName().toString();
            String name = names.get(version);
            Element pom = poms.get(artifact);
            if (pom == null) {
                continue;
            }
            if (version.getFileName().toString().endsWith("-SNAPSHOT")) {
                publisherStep(artifact + " is version " + version.getFileName()
                        + ": set a release version first (mvn versions:set -DnewVersion=..)");
            }
            if (!"pom".equals(text(pom, "packaging"))) {
                for (String suffix : List.of(".jar", "-sources.jar", "-javadoc.jar")) {
                    requireFile(version.resolve(name + suffix));
                }
            }
            checkMetadata(artifact, pom, poms);
            checkDependencies(artifact, pom, poms);
        }
        return versions;
    }

    /**
     * The files' common name, {@code artifact-version}; a SNAPSHOT deployed has timestamped names
     * ({@code artifact-0.1.0-20260101.120000-1}): the newest pom's is taken.
     */
    private static String fileName(Path version) throws IOException {
        String plain = version.getParent().getFileName() + "-" + version.getFileName();
        if (!version.getFileName().toString().endsWith("-SNAPSHOT")) {
            return plain;
        }
        String base = plain.substring(0, plain.length() - "SNAPSHOT".length());
        try (Stream<Path> files = Files.list(version)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith(base) && n.endsWith(".pom"))
                    .map(n -> n.substring(0, n.length() - ".pom".length()))
                    .max(String::compareTo).orElse(plain);
        }
    }

    private void requireFile(Path file) {
        if (!Files.isRegularFile(file)) {
            problems.add("missing " + staging.relativize(file));
            return;
        }
        for (String checksum : List.of(".md5", ".sha1")) {
            if (!Files.isRegularFile(Path.of(file + checksum))) {
                problems.add("missing " + staging.relativize(file) + checksum);
            }
        }
        if (!Files.isRegularFile(Path.of(file + ".asc"))) {
            publisherStep(staging.relativize(file) + " is not signed: build with gpg (leave out -Dgpg.skip)");
        }
    }

    private void checkMetadata(String artifact, Element pom, Map<String, Element> poms) {
        for (String path : List.of("name", "description", "url", "licenses/license/name", "licenses/license/url",
                "scm/url", "scm/connection", "developers/developer/name")) {
            String value = inherited(pom, path, poms);
            if (value == null || value.isBlank()) {
                problems.add(artifact + ": the pom names no " + path + " (Maven Central requires it)");
            } else if (value.contains(PLACEHOLDER)) {
                publisherStep(artifact + ": " + path + " is still " + value
                        + ": set the fencing.project.url and fencing.scm.git-url properties of the root pom");
            }
        }
    }

    private void checkDependencies(String artifact, Element pom, Map<String, Element> poms) {
        Element dependencies = child(pom, "dependencies");
        if (dependencies == null) {
            return;
        }
        for (Element dependency : children(dependencies, "dependency")) {
            String group = interpolate(text(dependency, "groupId"), pom, poms);
            String version = interpolate(text(dependency, "version"), pom, poms);
            if (version != null && version.endsWith("-SNAPSHOT") && !poms.containsKey(text(dependency, "artifactId"))) {
                problems.add(artifact + " depends on " + group + ":" + text(dependency, "artifactId") + ":" + version
                        + ", a SNAPSHOT outside this project: depend on a release");
            }
        }
    }

    private void publisherStep(String step) {
        (dryRun ? publisherSteps : problems).add(step);
    }

    /** The value at {@code path} in this pom or, when it has none, in its parent's (when staged). */
    private static String inherited(Element pom, String path, Map<String, Element> poms) {
        for (Element current = pom; current != null; current = parentOf(current, poms)) {
            String value = at(current, path);
            if (value != null) {
                return interpolate(value, pom, poms);
            }
        }
        return null;
    }

    private static Element parentOf(Element pom, Map<String, Element> poms) {
        Element parent = child(pom, "parent");
        return parent == null ? null : poms.get(text(parent, "artifactId"));
    }

    /** Replaces {@code ${property}} with the value the pom or its staged parents define. */
    static String interpolate(String value, Element pom, Map<String, Element> poms) {
        if (value == null) {
            return null;
        }
        Matcher property = PROPERTY.matcher(value);
        StringBuilder result = new StringBuilder();
        while (property.find()) {
            String name = property.group(1);
            String replacement = name.equals("project.version") ? versionOf(pom) : null;
            for (Element current = pom; replacement == null && current != null; current = parentOf(current, poms)) {
                replacement = at(current, "properties/" + name);
            }
            property.appendReplacement(result, Matcher.quoteReplacement(replacement == null ? property.group() : replacement));
        }
        return property.appendTail(result).toString();
    }

    private static String versionOf(Element pom) {
        String own = text(pom, "version");
        return own != null ? own : at(pom, "parent/version");
    }

    private static String at(Element element, String path) {
        Element current = element;
        String[] steps = path.split("/");
        for (int i = 0; i < steps.length - 1 && current != null; i++) {
            current = child(current, steps[i]);
        }
        return current == null ? null : text(current, steps[steps.length - 1]);
    }

    private static Element read(Path pom) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile()).getDocumentElement();
    }

    private static List<Element> children(Element parent, String tag) {
        List<Element> found = new ArrayList<>();
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(tag)) {
                found.add(element);
            }
        }
        return found;
    }

    private static Element child(Element parent, String tag) {
        List<Element> found = children(parent, tag);
        return found.isEmpty() ? null : found.get(0);
    }

    private static String text(Element parent, String tag) {
        Element found = child(parent, tag);
        return found == null ? null : found.getTextContent().strip();
    }

    /** The staged modules' files, without Maven's repository metadata, in the layout Central expects. */
    private static void zip(Path staging, List<Path> versions, Path bundle) throws IOException {
        Files.createDirectories(bundle.getParent());
        try (OutputStream file = Files.newOutputStream(bundle); ZipOutputStream zip = new ZipOutputStream(file)) {
            for (Path version : versions) {
                try (Stream<Path> files = Files.list(version)) {
                    for (Path entry : files.filter(p -> !p.getFileName().toString().startsWith("maven-metadata")).sorted().toList()) {
                        zip.putNextEntry(new ZipEntry(staging.relativize(entry).toString().replace('\\', '/')));
                        Files.copy(entry, zip);
                        zip.closeEntry();
                    }
                }
            }
        }
    }
}
