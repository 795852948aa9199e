package dev.fencing.proof;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The bypass corpus, {@code dev/fencing/proof/bypass-corpus.tsv}: its format is described at the
 * top of that file.
 */
final class Corpus {

    static final String RESOURCE = "/dev/fencing/proof/bypass-corpus.tsv";
    /** Separates the statements of a batch in the sql column. */
    static final String BATCH_SEPARATOR = "{;}";

    enum Target {
        PG("pg"), H2("h2"), MARIA("maria");

        final String tag;

        Target(String tag) {
            this.tag = tag;
        }

        dev.fencing.internal.sql.Dialect dialect() {
            return switch (this) {
                case PG -> dev.fencing.internal.sql.Dialect.POSTGRESQL;
                case H2 -> dev.fencing.internal.sql.Dialect.H2;
                case MARIA -> dev.fencing.internal.sql.Dialect.MARIADB;
            };
        }
    }

    enum Mode {
        STATEMENT, STATEMENT_EXECUTE, STATEMENT_LARGE, STATEMENT_QUERY, STATEMENT_KEYS, STATEMENT_COLUMNS,
        PREPARED, PREPARED_EXECUTE, PREPARED_LARGE, PREPARED_QUERY, PREPARED_KEYS, CALL,
        BATCH, BATCH_LARGE, PBATCH,
        VIA_GETCONNECTION, VIA_UNWRAP, VIA_METADATA,
        RS_UPDATE, RS_INSERT, RS_DELETE,
        PREPARED_STRING, PREPARED_ADDBATCH_STRING;

        static Mode parse(String text) {
            return valueOf(text.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
        }

        /** True when the sql column is one PreparedStatement's text. */
        boolean prepared() {
            return switch (this) {
                case PREPARED, PREPARED_EXECUTE, PREPARED_LARGE, PREPARED_QUERY, PREPARED_KEYS, CALL, PBATCH -> true;
                default -> false;
            };
        }
    }

    enum Expect { FENCED, INSERT, REFUSED, BLOCKED }

    /** One parameter value: a Long, a String, or null. */
    record Entry(int line, String id, Set<Target> targets, Mode mode, Expect expect, List<List<Object>> parameterRows,
                 String rawSql, String session) {

        /** The SQL for a database whose scratch schema is {@code schema}. */
        String sql(String schema) {
            return rawSql.replace("${schema}", schema);
        }

        /** The batch's statements (batch modes), else the one statement. */
        List<String> statements(String schema) {
            return Arrays.asList(sql(schema).split(java.util.regex.Pattern.quote(BATCH_SEPARATOR), -1));
        }

        @Override
        public String toString() {
            return id + " (line " + line + ", " + mode + ", " + expect + ")";
        }
    }

    private Corpus() {
    }

    /**
     * The corpus, and the entries of the file named by the environment variable
     * {@code FENCING_PROOF_EXTRA_CORPUS} (same format) when it is set: a way to try new entries,
     * or to replay reported bypasses, without editing the corpus.
     */
    static List<Entry> load() {
        List<Entry> entries = new ArrayList<>();
        try (InputStream in = Corpus.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + RESOURCE);
            }
            entries.addAll(read(in, RESOURCE));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String extra = System.getenv("FENCING_PROOF_EXTRA_CORPUS");
        if (extra != null && !extra.isBlank()) {
            try (InputStream in = java.nio.file.Files.newInputStream(java.nio.file.Path.of(extra))) {
                entries.addAll(read(in, extra));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        Set<String> ids = new HashSet<>();
        for (Entry entry : entries) {
            if (!ids.add(entry.id())) {
                throw new IllegalStateException("duplicate corpus id " + entry.id());
            }
        }
        return entries;
    }

    private static List<Entry> read(InputStream in, String source) throws IOException {
        {
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            List<Entry> entries = new ArrayList<>();
            String line;
            int number = 0;
            while ((line = reader.readLine()) != null) {
                number++;
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] columns = line.split("\t", -1);
                if (columns.length != 7) {
                    throw new IllegalStateException(source + " line " + number + ": expected 7 tab-separated columns, found "
                            + columns.length + ": " + line);
                }
                Entry entry = new Entry(number, columns[0].trim(), targets(columns[1], number), Mode.parse(columns[2]),
                        Expect.valueOf(columns[3].trim()), parameters(columns[4].trim(), number), unescape(columns[5]),
                        columns[6].trim().equals("-") ? null : unescape(columns[6]));
                entries.add(entry);
            }
            return entries;
        }
    }

    private static Set<Target> targets(String text, int line) {
        Set<Target> targets = EnumSet.noneOf(Target.class);
        for (String tag : text.split(",")) {
            String t = tag.trim();
            if (t.equals("all")) {
                targets.addAll(EnumSet.allOf(Target.class));
                continue;
            }
            Target found = null;
            for (Target target : Target.values()) {
                if (target.tag.equals(t)) {
                    found = target;
                }
            }
            if (found == null) {
                throw new IllegalStateException(RESOURCE + " line " + line + ": unknown dialect " + t);
            }
            targets.add(found);
        }
        return targets;
    }

    private static List<List<Object>> parameters(String text, int line) {
        List<List<Object>> rows = new ArrayList<>();
        if (text.equals("-")) {
            return rows;
        }
        for (String rowText : text.split("\\|")) {
            List<Object> row = new ArrayList<>();
            for (String value : rowText.split(",")) {
                String v = value.trim();
                if (v.equals("null")) {
                    row.add(null);
                } else if (v.startsWith("'") && v.endsWith("'") && v.length() >= 2) {
                    row.add(v.substring(1, v.length() - 1));
                } else {
                    try {
                        row.add(Long.parseLong(v));
                    } catch (NumberFormatException e) {
                        throw new IllegalStateException(RESOURCE + " line " + line + ": bad parameter " + v);
                    }
                }
            }
            rows.add(row);
        }
        return rows;
    }

    /** Decodes \t \r \n and \\; any other backslash stays as it is. */
    static String unescape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\' && i + 1 < text.length()) {
                char next = text.charAt(i + 1);
                switch (next) {
                    case 't' -> { out.append('\t'); i++; continue; }
                    case 'r' -> { out.append('\r'); i++; continue; }
                    case 'n' -> { out.append('\n'); i++; continue; }
                    case '\\' -> { out.append('\\'); i++; continue; }
                    default -> { }
                }
            }
            out.append(c);
        }
        return out.toString();
    }
}
