package dev.fencing.proof.oracle;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The oracle's corpus files: one shrunk text per line, {@code <setting id> TAB <escaped text>}
 * (an optional third column says what was found), {@code #} starts a comment line. Texts are
 * escaped so that every character survives an editor: {@code \\}, {@code \n}, {@code \r},
 * {@code \t} and {@code \}{@code uXXXX} for every other character outside printable ASCII.
 *
 * <ul>
 *   <li>{@code corpus.txt} is replayed by every build ({@link OracleCorpusTest});</li>
 *   <li>{@code pending-frontdoor.txt} holds texts of the classes issue 13 fixes in the lexer; it is
 *       replayed once that work is merged (see docs/oracle.md).</li>
 * </ul>
 */
final class OracleCorpus {

    static final String REPLAYED = "corpus.txt";
    static final String PENDING_FRONTDOOR = "pending-frontdoor.txt";
    private static final Path SOURCE_DIRECTORY = Path.of("src", "test", "resources", "dev", "fencing", "proof", "oracle");

    record Entry(Setting setting, String text, int line) {
    }

    private OracleCorpus() {
    }

    static List<Entry> read(String file) throws IOException {
        List<Entry> entries = new ArrayList<>();
        try (InputStream in = OracleCorpus.class.getResourceAsStream(file)) {
            if (in == null) {
                throw new IOException("corpus file " + file + " is not on the test class path");
            }
            String[] lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                String line = lines[i];
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] columns = line.split("\t", -1);
                if (columns.length < 2) {
                    throw new IOException(file + ":" + (i + 1) + ": expected <setting> TAB <text>");
                }
                entries.add(new Entry(Setting.byId(columns[0]), unescape(columns[1]), i + 1));
            }
        }
        return entries;
    }

    /**
     * Appends a shrunk text to {@code file} in the module's source tree (so that the next build
     * replays it) unless it is there already; when the build does not run in the module's
     * directory, to target/oracle instead. Returns where it was written.
     */
    static synchronized Path record(String file, Setting setting, String text, String note) throws IOException {
        Path directory = Files.isDirectory(SOURCE_DIRECTORY) ? SOURCE_DIRECTORY : Path.of("target", "oracle");
        Files.createDirectories(directory);
        Path path = directory.resolve(file);
        String line = setting.id() + "\t" + escape(text) + "\t" + note.replace('\t', ' ').replace('\n', ' ');
        String prefix = setting.id() + "\t" + escape(text) + "\t";
        if (Files.exists(path)) {
            for (String existing : Files.readAllLines(path, StandardCharsets.UTF_8)) {
                if (existing.startsWith(prefix)) {
                    return path;
                }
            }
        }
        Files.writeString(path, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        return path;
    }

    static String escape(String text) {
        StringBuilder escaped = new StringBuilder(text.length() + 8);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\\' -> escaped.append("\\\\");
                case '\n' -> escaped.append("\\n");
                case '\r' -> escaped.append("\\r");
                case '\t' -> escaped.append("\\t");
                default -> {
                    if (c >= 0x20 && c < 0x7f) {
                        escaped.append(c);
                    } else {
                        escaped.append(String.format("\\u%04x", (int) c));
                    }
                }
            }
        }
        return escaped.toString();
    }

    static String unescape(String escaped) {
        StringBuilder text = new StringBuilder(escaped.length());
        for (int i = 0; i < escaped.length(); i++) {
            char c = escaped.charAt(i);
            if (c != '\\') {
                text.append(c);
                continue;
            }
            if (i + 1 >= escaped.length()) {
                throw new IllegalArgumentException("a lone backslash ends " + escaped);
            }
            char next = escaped.charAt(++i);
            switch (next) {
                case '\\' -> text.append('\\');
                case 'n' -> text.append('\n');
                case 'r' -> text.append('\r');
                case 't' -> text.append('\t');
                case 'u' -> {
                    text.append((char) Integer.parseInt(escaped.substring(i + 1, i + 5), 16));
                    i += 4;
                }
                default -> throw new IllegalArgumentException("unknown escape \\" + next + " in " + escaped);
            }
        }
        return text.toString();
    }
}
