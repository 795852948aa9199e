package dev.fencing.proof;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The SQL texts harvested from the string literals of every module's test sources, kept in
 * {@code dev/fencing/proof/plan-dump-texts.txt} (one text a line, {@code \n \r \t \\} escaped) so
 * that the plan dump does not change when a test is added. Harvested again, on purpose, by
 * {@code PlanDumpTest} with {@code -Dfencing.plan-dump.harvest=true}.
 */
final class PlanDumpTexts {

    static final String RESOURCE = "/dev/fencing/proof/plan-dump-texts.txt";
    /** A literal (or a concatenation of literals) is SQL when its first word is one of these. */
    private static final Set<String> SQL_HEADS = Set.of("SELECT", "INSERT", "UPDATE", "DELETE", "WITH", "MERGE",
            "REPLACE", "UPSERT", "CALL", "EXEC", "EXECUTE", "DO", "PREPARE", "CREATE", "ALTER", "DROP", "RENAME",
            "TRUNCATE", "SET", "RESET", "BEGIN", "START", "COMMIT", "ROLLBACK", "END", "ABORT", "SAVEPOINT", "RELEASE",
            "EXPLAIN", "ANALYZE", "DESCRIBE", "COPY", "LOCK", "UNLOCK", "GRANT", "REVOKE", "VALUES", "TABLE", "SHOW",
            "COMMENT", "LOAD", "HANDLER", "RUNSCRIPT", "DECLARE", "IF", "CASE", "LOOP", "WHILE", "REPEAT", "FOR",
            "VACUUM", "REFRESH", "REINDEX", "CLUSTER", "LISTEN", "NOTIFY", "DISCARD", "CHECKPOINT", "XA", "FLUSH");
    private static final Pattern FIRST_WORD = Pattern.compile("^[\\s(]*([A-Za-z_]+)");

    private PlanDumpTexts() {
    }

    /** The committed texts. */
    static List<String> load() {
        try (var in = PlanDumpTexts.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + RESOURCE);
            }
            List<String> texts = new ArrayList<>();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!line.isEmpty()) {
                    texts.add(PlanDump.unescape(line));
                }
            }
            return texts;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Harvests the texts of every {@code src/test/java} under the working directory into the resource file. */
    public static void main(String[] args) throws IOException {
        Path root = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
        if (!Files.isDirectory(root.resolve("integration-tests"))) {
            root = root.getParent(); // run from the module's directory
        }
        TreeSet<String> texts = new TreeSet<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : (Iterable<Path>) files.filter(PlanDumpTexts::isTestSource)::iterator) {
                for (String literal : literals(Files.readString(file))) {
                    if (isSql(literal)) {
                        texts.add(literal);
                    }
                }
            }
        }
        StringBuilder out = new StringBuilder();
        for (String text : texts) {
            out.append(PlanDump.escape(text)).append('\n');
        }
        Path target = root.resolve("integration-tests/src/test/resources" + RESOURCE);
        Files.writeString(target, out.toString(), StandardCharsets.UTF_8);
        System.out.println(texts.size() + " texts -> " + target);
    }

    private static boolean isTestSource(Path file) {
        String path = file.toString().replace('\\', '/');
        return path.endsWith(".java") && path.contains("/src/test/java/") && !path.contains("/target/")
                && !path.contains("/.git/");
    }

    private static boolean isSql(String literal) {
        var matcher = FIRST_WORD.matcher(literal);
        if (literal.strip().startsWith("{call") || literal.strip().startsWith("{ call")
                || literal.strip().startsWith("{?")) {
            return true;
        }
        return literal.length() >= 8 && literal.indexOf(' ') > 0 && matcher.find()
                && SQL_HEADS.contains(matcher.group(1).toUpperCase(Locale.ROOT));
    }

    /**
     * The string literals and text blocks of a Java source, adjacent literals joined by {@code +}
     * read as one (a statement written over several lines).
     */
    static List<String> literals(String source) {
        List<String> out = new ArrayList<>();
        StringBuilder pending = null;
        int i = 0;
        int n = source.length();
        while (i < n) {
            char c = source.charAt(i);
            if (c == '/' && i + 1 < n && source.charAt(i + 1) == '/') {
                i = source.indexOf('\n', i) < 0 ? n : source.indexOf('\n', i);
            } else if (c == '/' && i + 1 < n && source.charAt(i + 1) == '*') {
                int end = source.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else if (c == '\'') {
                i = skipCharLiteral(source, i);
            } else if (c == '"') {
                StringBuilder value = new StringBuilder();
                i = source.startsWith("\"\"\"", i) ? readTextBlock(source, i, value) : readString(source, i, value);
                pending = pending == null ? value : pending.append(value);
                int next = i;
                while (next < n && Character.isWhitespace(source.charAt(next))) {
                    next++;
                }
                if (next < n && source.charAt(next) == '+') {
                    int after = next + 1;
                    while (after < n && Character.isWhitespace(source.charAt(after))) {
                        after++;
                    }
                    if (after < n && source.charAt(after) == '"') {
                        i = after;
                        continue;
                    }
                }
                out.add(pending.toString());
                pending = null;
            } else {
                i++;
            }
        }
        return out;
    }

    private static int skipCharLiteral(String source, int i) {
        int j = i + 1;
        while (j < source.length() && source.charAt(j) != '\'') {
            j += source.charAt(j) == '\\' ? 2 : 1;
        }
        return j + 1;
    }

    private static int readString(String source, int i, StringBuilder value) {
        int j = i + 1;
        while (j < source.length() && source.charAt(j) != '"' && source.charAt(j) != '\n') {
            j = source.charAt(j) == '\\' ? escapeAt(source, j, value) : append(value, source.charAt(j), j);
        }
        return j + 1;
    }

    private static int readTextBlock(String source, int i, StringBuilder value) {
        int end = source.indexOf("\"\"\"", i + 3);
        if (end < 0) {
            return source.length();
        }
        String body = source.substring(source.indexOf('\n', i) + 1, end);
        value.append(body.stripIndent());
        return end + 3;
    }

    private static int append(StringBuilder value, char c, int j) {
        value.append(c);
        return j + 1;
    }

    private static int escapeAt(String source, int j, StringBuilder value) {
        char e = j + 1 < source.length() ? source.charAt(j + 1) : '\\';
        switch (e) {
            case 'n' -> value.append('\n');
            case 't' -> value.append('\t');
            case 'r' -> value.append('\r');
            case 'b' -> value.append('\b');
            case 'f' -> value.append('\f');
            case 's' -> value.append(' ');
            case '0' -> value.append('\0');
            case 'u' -> {
                int k = j + 1;
                while (k < source.length() && source.charAt(k) == 'u') {
                    k++;
                }
                value.append((char) Integer.parseInt(source.substring(k, k + 4), 16));
                return k + 4;
            }
            default -> value.append(e);
        }
        return j + 2;
    }
}
