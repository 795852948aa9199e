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
 * Every relative link in README.md and docs/ leads to a file that exists, and to a heading in it;
 * the README opens with the two commands and stays short enough to scan.
 */
class DocumentationLinksTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
    private static final Pattern FENCE = Pattern.compile("^\\s*```");

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
    void theReadmeOpensWithTheTwoCommandsAndStaysScannable() throws IOException {
        List<String> lines = Files.readAllLines(ROOT.resolve("README.md"));
        assertThat(lines.subList(0, 4)).containsExactly("```", "./scripts/demo.sh", "./scripts/test.sh", "```");
        assertThat(lines).as("README.md lines: longer sections belong in docs/").hasSizeLessThanOrEqualTo(450);
    }

    private static List<Path> documents() throws IOException {
        List<Path> documents = new ArrayList<>();
        documents.add(ROOT.resolve("README.md"));
        Path docs = ROOT.resolve("docs");
        if (Files.isDirectory(docs)) {
            try (Stream<Path> files = Files.walk(docs)) {
                files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(documents::add);
            }
        }
        return documents;
    }

    /** Link targets outside fenced code blocks and inline code. */
    private static List<String> links(Path document) throws IOException {
        List<String> targets = new ArrayList<>();
        boolean inCode = false;
        for (String line : Files.readAllLines(document)) {
            if (FENCE.matcher(line).find()) {
                inCode = !inCode;
                continue;
            }
            if (inCode) {
                continue;
            }
            Matcher link = LINK.matcher(line.replaceAll("`[^`]*`", ""));
            while (link.find()) {
                targets.add(link.group(1));
            }
        }
        return targets;
    }

    /** GitHub's anchors for the headings of a Markdown file. */
    private static Set<String> anchors(Path document) throws IOException {
        Set<String> anchors = new HashSet<>();
        boolean inCode = false;
        for (String line : Files.readAllLines(document)) {
            if (FENCE.matcher(line).find()) {
                inCode = !inCode;
            } else if (!inCode && line.startsWith("#")) {
                String heading = line.replaceFirst("^#+\\s*", "").trim();
                String slug = heading.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
                String unique = slug;
                for (int i = 1; !anchors.add(unique); i++) {
                    unique = slug + "-" + i;
                }
            }
        }
        return anchors;
    }
}
