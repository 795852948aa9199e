package dev.fencing.it.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in the project's Markdown (README.md, docs/, BENCHMARKS.md, CHANGELOG.md,
 * the modules' READMEs) leads to a file that exists, and to a heading in it; so does every
 * reference in prose such as {@code README, "Limits"} or {@code docs/epoch.md, "Claims are durable"}
 * (the quoted text begins a heading of that file); the README opens with the two commands and
 * stays short enough to scan.
 */
class DocumentationLinksTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
    private static final Pattern FENCE = Pattern.compile("^\\s*```");
    /** {@code README, "X"}, {@code README's 'X'}, {@code docs/x.md, section "X"}, {@code BENCHMARKS.md, "X"}. */
    private static final Pattern PROSE_REFERENCE = Pattern.compile(
            "\\b((?:docs/)?[A-Za-z0-9_-]+\\.md|README)(?:'s)?,?\\s+(?:section\\s+)?[\"\u201c']([^\"\u201d']+)[\"\u201d']");

    @Test
    void everyRelativeLinkResolves() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path document : documents()) {
            for (String target : links(document)) {
                if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
                    continue; // http:, https:, mailto:
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                String anchor = hash < 0 ? null : target.substring(hash + 1);
                Path linked = file.isEmpty() ? document : document.getParent().resolve(file).normalize();
                if (!Files.exists(linked)) {
                    broken.add(ROOT.relativize(document) + ": " + target + " (no such file)");
                } else if (anchor != null && Files.isRegularFile(linked) && linked.toString().endsWith(".md")
                        && !anchors(linked).contains(anchor)) {
                    broken.add(ROOT.relativize(document) + ": " + target + " (no such heading)");
                }
            }
        }
        assertThat(broken).isEmpty();
    }

    @Test
    void everyProseReferenceNamesARealHeading() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path document : documents()) {
            Matcher reference = PROSE_REFERENCE.matcher(prose(document));
            while (reference.find()) {
                Path file = referencedFile(document, reference.group(1));
                String quoted = headingText(reference.group(2));
                if (file == null) {
                    broken.add(ROOT.relativize(document) + ": " + reference.group() + " (no such file)");
                } else if (headings(file).stream().noneMatch(heading -> heading.startsWith(quoted))) {
                    broken.add(ROOT.relativize(document) + ": " + reference.group() + " (no heading of "
                            + ROOT.relativize(file) + " begins so)");
                }
            }
        }
        assertThat(broken).isEmpty();
    }

    @Test
    void theReadmeOpensWithTheTwoCommandsAndStaysScannable() throws IOException {
        List<String> lines = Files.readAllLines(ROOT.resolve("README.md"));
        assertThat(lines.subList(0, 4)).containsExactly("```", "./scripts/demo.sh", "./scripts/test.sh", "```");
        assertThat(lines).as("README.md lines: longer sections belong in docs/").hasSizeLessThanOrEqualTo(450);
    }

    private static List<Path> documents() throws IOException {
        List<Path> documents = new ArrayList<>();
        documents.add(ROOT.resolve("README.md"));
        for (String other : List.of("BENCHMARKS.md", "CHANGELOG.md")) {
            if (Files.isRegularFile(ROOT.resolve(other))) {
                documents.add(ROOT.resolve(other));
            }
        }
        Path docs = ROOT.resolve("docs");
        if (Files.isDirectory(docs)) {
            try (Stream<Path> files = Files.walk(docs)) {
                files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(documents::add);
            }
        }
        try (Stream<Path> modules = Files.walk(ROOT, 3)) { // agent/README.md, examples/spring-boot-orders/README.md
            modules.filter(p -> p.getFileName().toString().equals("README.md") && !p.getParent().equals(ROOT)
                    && !ROOT.relativize(p).toString().contains("target") && !ROOT.relativize(p).startsWith("docs"))
                    .sorted().forEach(documents::add);
        }
        return documents;
    }

    /** The file a prose reference names: README is the project's; a bare name is beside the document, else at the root. */
    private static Path referencedFile(Path document, String name) {
        List<Path> candidates = name.equals("README") ? List.of(ROOT.resolve("README.md"))
                : name.startsWith("docs/") ? List.of(ROOT.resolve(name))
                : List.of(document.getParent().resolve(name), ROOT.resolve(name));
        return candidates.stream().filter(Files::isRegularFile).findFirst().orElse(null);
    }

    /** The document's lines outside fenced code blocks, inline code removed. */
    private static List<String> proseLines(Path document) throws IOException {
        List<String> lines = new ArrayList<>();
        boolean inCode = false;
        for (String line : Files.readAllLines(document)) {
            if (FENCE.matcher(line).find()) {
                inCode = !inCode;
            } else if (!inCode) {
                lines.add(line.replaceAll("`[^`]*`", ""));
            }
        }
        return lines;
    }

    /** The document's prose joined into one line (a reference may wrap). */
    private static String prose(Path document) throws IOException {
        return String.join(" ", proseLines(document));
    }

    /** The headings' texts (read before inline code is removed: a heading may be code). */
    private static List<String> headingLines(Path document) throws IOException {
        List<String> headings = new ArrayList<>();
        boolean inCode = false;
        for (String line : Files.readAllLines(document)) {
            if (FENCE.matcher(line).find()) {
                inCode = !inCode;
            } else if (!inCode && line.startsWith("#")) {
                headings.add(line.replaceFirst("^#+\\s*", "").trim());
            }
        }
        return headings;
    }

    private static List<String> headings(Path document) throws IOException {
        return headingLines(document).stream().map(DocumentationLinksTest::headingText).toList();
    }

    /** A heading or a quoted reference to one, compared without case, Markdown emphasis or code marks. */
    private static String headingText(String text) {
        return text.replaceAll("[`*_]", "").trim().toLowerCase(Locale.ROOT);
    }

    /** Link targets outside fenced code blocks and inline code. */
    private static List<String> links(Path document) throws IOException {
        List<String> targets = new ArrayList<>();
        for (String line : proseLines(document)) {
            Matcher link = LINK.matcher(line);
            while (link.find()) {
                targets.add(link.group(1));
            }
        }
        return targets;
    }

    /** GitHub's anchors for the headings of a Markdown file. */
    private static Set<String> anchors(Path document) throws IOException {
        Set<String> anchors = new HashSet<>();
        for (String heading : headingLines(document)) {
            String slug = heading.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
            String unique = slug;
            for (int i = 1; !anchors.add(unique); i++) {
                unique = slug + "-" + i;
            }
        }
        return anchors;
    }
}
