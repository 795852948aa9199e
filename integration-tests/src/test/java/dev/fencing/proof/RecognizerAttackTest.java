package dev.fencing.proof;

import dev.fencing.FencingConfig;
import dev.fencing.internal.sql.AnalyzerOptions;
import dev.fencing.internal.sql.Dialect;
import dev.fencing.internal.sql.FencePlan;
import dev.fencing.internal.sql.StatementAnalyzer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An attack on the recognizer of common shapes (issue 32), from outside: texts at and just past
 * the edge of its grammar (every token of a recognized statement replaced, every gap between two
 * tokens filled with odd white space or comments, words put between tokens, tails added, and
 * random pairs of these), under PostgreSQL, H2, MariaDB and the generic dialect, planned with the
 * recognizer on and off. The two plans must be the same field by field ({@link PlanDump#describe}),
 * and every splice the token proof accepts is re-read by JSqlParser's lexer (the cross-check: an
 * AssertionError is a finding too).
 *
 * <p>Findings against r32's first cut (see {@link #FINDINGS}) are asserted separately, so that a
 * correct recognizer passes both tests.
 */
class RecognizerAttackTest {

    private static final AnalyzerOptions ON = new AnalyzerOptions(true, true);
    private static final AnalyzerOptions OFF = AnalyzerOptions.CHECKED.withoutRecognizer();
    private static final boolean LONG = Boolean.getBoolean("fencing.long");

    /**
     * Differences found on r32's first cut: the recognizer's keywords are matched with
     * {@code String.regionMatches(true, ..)}, which folds non-ASCII letters to ASCII ones
     * ({@code ſ} U+017F to S, {@code ı} U+0131 to I, {@code İ} U+0130 to i): it reads
     * {@code ſET} as SET where JSqlParser (and PostgreSQL and MariaDB) read a name, so it fences a
     * statement the full analysis refuses. A correct recognizer plans these as the full analysis.
     */
    static final List<String> FINDINGS = List.of(
            "UPDATE orders \u017fET status = ? WHERE id = ?",
            "\u0131NSERT INTO orders (id, status) VALUES (?, ?)",
            "INSERT \u0131NTO orders (id, status) VALUES (?, ?)",
            "INSERT INTO orders (id, status) VALUE\u017f (?, ?)",
            "\u0130NSERT INTO orders (id, status) VALUES (?, ?)");

    /** Configurations the recognizer serves (row mode, no guard), the fence column named plainly and oddly. */
    private static Map<String, FencingConfig> configurations(String schema) {
        Map<String, FencingConfig> configs = new LinkedHashMap<>();
        configs.put("row", FencingConfig.builder().tables("orders", schema + ".payments").parseTimeoutMillis(60_000)
                .build());
        configs.put("strict", FencingConfig.builder().tables("orders", schema + ".payments").parseTimeoutMillis(60_000)
                .onZeroRows(FencingConfig.ZeroRows.RAISE).comparison(FencingConfig.Comparison.STRICTLY_NEWER).build());
        configs.put("column", FencingConfig.builder().tables("orders", "\"Payments\"").column("version")
                .parseTimeoutMillis(60_000).build());
        return configs;
    }

    private enum Where { PG, H2, MARIA, GENERIC }

    private static Dialect dialect(Where where) {
        return switch (where) {
            case PG -> Dialect.POSTGRESQL;
            case H2 -> Dialect.H2;
            case MARIA -> Dialect.MARIADB;
            case GENERIC -> Dialect.GENERIC;
        };
    }

    @Test
    void theRecognizerPlansEveryAdversarialTextAsTheFullAnalysis() {
        List<String> problems = new ArrayList<>();
        long analysed = 0;
        long recognized = 0;
        for (Where where : Where.values()) {
            Set<String> texts = texts(where, new Random(3232 + where.ordinal()));
            texts.removeAll(FINDINGS);
            texts.removeIf(RecognizerAttackTest::foldsToAsciiKeyword);
            String schema = where == Where.H2 ? "PUBLIC" : "fx_schema";
            long started = System.nanoTime();
            // where the recognizer does not read a text, the two analyses are one: only the texts
            // it reads under the first configuration are planned under the others
            Set<String> read = new LinkedHashSet<>();
            boolean first = true;
            for (Map.Entry<String, FencingConfig> config : configurations(schema).entrySet()) {
                StatementAnalyzer on = new StatementAnalyzer(config.getValue(), dialect(where), ON);
                StatementAnalyzer off = new StatementAnalyzer(config.getValue(), dialect(where), OFF);
                for (String sql : first ? texts : read) {
                    if (compare(where + " " + config.getKey(), sql, on, off, problems)) {
                        read.add(sql);
                    }
                    analysed++;
                }
                recognized += on.recognizedStatements();
                first = false;
            }
            System.out.println("RECOGNIZER ATTACK " + where + ": " + texts.size() + " texts, " + read.size()
                    + " recognized, " + (System.nanoTime() - started) / 1_000_000 + " ms");
        }
        System.out.println("RECOGNIZER ATTACK: " + analysed + " analyses, " + recognized + " recognized, "
                + problems.size() + " differences");
        problems.stream().limit(60).forEach(System.out::println);
        assertTrue(problems.isEmpty(), problems.size() + " differences:\n"
                + String.join("\n", problems.subList(0, Math.min(20, problems.size()))));
        assertTrue(recognized > 2_000, "the recognizer read too few texts: " + recognized);
    }

    /** The findings: planned as the full analysis plans them (fails on r32's first cut). */
    @Test
    void keywordsSpelledWithNonAsciiLettersArePlannedAsTheFullAnalysis() {
        List<String> problems = new ArrayList<>();
        for (Where where : Where.values()) {
            String schema = where == Where.H2 ? "PUBLIC" : "fx_schema";
            FencingConfig config = configurations(schema).get("row");
            StatementAnalyzer on = new StatementAnalyzer(config, dialect(where), ON);
            StatementAnalyzer off = new StatementAnalyzer(config, dialect(where), OFF);
            Set<String> family = new LinkedHashSet<>(FINDINGS);
            for (String sql : texts(where, new Random(3232 + where.ordinal()))) {
                if (foldsToAsciiKeyword(sql)) {
                    family.add(sql);
                }
            }
            for (String sql : family) {
                compare(where + " row", sql, on, off, problems);
            }
        }
        problems.forEach(System.out::println);
        assertTrue(problems.isEmpty(), problems.size() + " differences:\n" + String.join("\n", problems));
    }

    /** A text with a letter Java folds to an ASCII letter of a keyword: the findings' family. */
    private static boolean foldsToAsciiKeyword(String sql) {
        return sql.indexOf('\u017f') >= 0 || sql.indexOf('\u0131') >= 0 || sql.indexOf('\u0130') >= 0
                || sql.indexOf('\u212a') >= 0;
    }

    /**
     * Plans {@code sql} with the recognizer on and, when it read the text, off; a difference (or the
     * cross-check's AssertionError) goes to {@code problems}. True when the recognizer read it.
     */
    private static boolean compare(String where, String sql, StatementAnalyzer on, StatementAnalyzer off,
                                   List<String> problems) {
        String actual;
        long before = on.recognizedStatements();
        try {
            actual = PlanDump.describe(on.fullAnalysis(sql));
        } catch (RuntimeException | AssertionError e) {
            actual = "THROWS " + e;
        }
        boolean read = on.recognizedStatements() > before;
        if (!read && !actual.startsWith("THROWS")) {
            return false; // the recognizer did not read it: the analysis with it on is the full analysis
        }
        String expected;
        try {
            expected = PlanDump.describe(off.fullAnalysis(sql));
        } catch (RuntimeException | AssertionError e) {
            expected = "THROWS " + e;
        }
        if (!expected.equals(actual)) {
            problems.add(where + (read ? " [recognized]" : "") + ": " + PlanDump.escape(sql) + "\n  parser:     "
                    + expected + "\n  recognizer: " + actual);
        } else if (read) {
            // and through the analyzer's caches and shapes
            String cachedOff = PlanDump.describe(off.plan(sql));
            String cachedOn = PlanDump.describe(on.plan(sql));
            if (!cachedOff.equals(cachedOn) || !cachedOn.equals(actual)) {
                problems.add(where + " [recognized, plan()]: " + PlanDump.escape(sql) + "\n  parser:     " + cachedOff
                        + "\n  recognizer: " + cachedOn + "\n  full:       " + actual);
            }
        }
        return read;
    }

    // ---- the texts ---------------------------------------------------------------------------

    /** Statements the recognizer reads, as tokens joined by one space. */
    private static List<String[]> bases(Where where) {
        String q = where == Where.MARIA ? "`" : "\"";
        List<String[]> bases = new ArrayList<>();
        bases.add(new String[] {"UPDATE", "orders", "SET", "status", "=", "?", "WHERE", "id", "=", "?"});
        bases.add(new String[] {"UPDATE", "orders", "SET", "status", "=", "'x'", ",", "amount", "=", "1.5", "WHERE",
                "id", "=", "42", "AND", "version", "<>", "3"});
        bases.add(new String[] {"UPDATE", "orders", "SET", "status", "=", "NULL"});
        bases.add(new String[] {"update", q + "orders" + q, "set", q + "status" + q, "=", "?", "where", q + "id" + q,
                ">=", "?"});
        bases.add(new String[] {"UPDATE", "payments", "SET", "amount", "=", "?", "WHERE", "order_id", "!=", "?"});
        bases.add(new String[] {"DELETE", "FROM", "orders", "WHERE", "id", "=", "?"});
        bases.add(new String[] {"DELETE", "FROM", "orders"});
        bases.add(new String[] {"DELETE", "FROM", "orders", "WHERE", "id", "<", "10", "AND", "status", "=", "'a'"});
        bases.add(new String[] {"INSERT", "INTO", "orders", "(", "id", ",", "status", ")", "VALUES", "(", "?", ",", "?",
                ")"});
        bases.add(new String[] {"INSERT", "INTO", "orders", "(", "id", ",", "status", ")", "VALUES", "(", "1", ",",
                "'a'", ")", ",", "(", "2", ",", "NULL", ")"});
        bases.add(new String[] {"insert", "into", "payments", "(", "id", ")", "values", "(", "?", ")"});
        return bases;
    }

    private static final String[] KEYWORD_FORMS = {"%s", "%l", "%c", "%fold"};

    /** Names: quoting of every dialect, qualification, keywords of the databases, the fence column, look-alikes. */
    private static final String[] NAMES = {"orders", "ORDERS", "Orders", "\"orders\"", "\"ORDERS\"", "`orders`",
            "[orders]", "U&\"orders\"", "\"ord\"\"ers\"", "orders_archive", "fx_schema.orders", "public.orders",
            "PUBLIC.orders", "\"fx_schema\".\"orders\"", "db.fx_schema.orders", "orders t", "orders AS t", "ONLY orders",
            "orders *", "ord\u00e9rs", "orders$", "o$1", "_orders", "orders1", "payments", "\"payments\"", "Payments",
            "\"Payments\"", "last_fence", "LAST_FENCE", "\"last_fence\"", "`last_fence`", "\"LAST_FENCE\"", "version",
            "VERSION", "\"version\"", "t.last_fence", "orders.last_fence", "x", "id", "user", "current_user",
            "session_user", "current_date", "current_time", "localtime", "localtimestamp", "current_role",
            "current_schema", "current_catalog", "system_user", "default", "DEFAULT", "null", "true", "false",
            "unknown", "all", "any", "some", "only", "only_", "low_priority", "ignore", "quick", "delayed",
            "high_priority", "partition", "returning", "limit", "order", "offset", "fetch", "using", "from", "where",
            "set", "values", "value", "into", "and", "or", "not", "is", "in", "like", "ilike", "similar", "between",
            "escape", "collate", "at", "overlaps", "isnull", "notnull", "row", "rownum", "rowid", "_rowid_", "oid",
            "ctid", "xmin", "tableoid", "sel", "zone", "time", "date", "timestamp", "interval", "next", "current",
            "nextval", "array", "e", "n", "x", "b", "u", "r", "q", "rb", "_utf8", "_latin1", "_binary", "binary",
            "div", "mod", "xor", "regexp", "rlike", "sounds", "straight_join", "natural", "lateral", "with", "table",
            "top", "key", "type", "name", "text", "int", "integer", "char", "character", "varchar", "national",
            "nchar", "bit", "boolean", "json", "jsonb", "k", "a1", "\u212aey", "or\u0434ers", "ORDERS\u200b",
            "orders\u00a0", "\"orders \"", "\" orders\"", "`orders `", "\"\"", "``"};

    /** Values of every spelling, including ones the recognizer must not take. */
    private static final String[] VALUES = {"?", "??", "?1", "$1", ":v", ":1", "@v", "@@v", "1", "42", "0", "00",
            "1.5", ".5", "5.", "1e5", "1E+5", "1e-5", "0x1F", "0b1", "1_000", "X'1F'", "x'1f'", "B'01'", "b'01'",
            "E'a'", "e'a'", "N'a'", "n'a'", "U&'a'", "_utf8'a'", "_utf8mb4 'a'", "'a' 'b'", "'a'\n'b'", "'it''s'",
            "'a\\'", "'a\\b'", "'\\''", "''", "' '", "'--'", "'/*'", "'#'", "'$$'", "'?'", "'\"'", "'`'", "'\u00e9'",
            "'a\u2028b'", "$$a$$", "$t$a$t$", "\"a\"", "`a`", "NULL", "null", "NuLl", "\\N", "DEFAULT", "TRUE", "FALSE",
            "UNKNOWN", "-1", "+1", "- 1", "1 + 1", "(1)", "(?)", "?::int", "1::int", "CAST(? AS INT)", "now()",
            "CURRENT_TIMESTAMP", "DATE '2020-01-01'", "TIMESTAMP '2020-01-01 00:00:00'", "INTERVAL '1' DAY",
            "123456789012345678", "1234567890123456789", "99999999999999999999", "1.123456789012345678",
            "1.1234567890123456789", "0.0", "1.2.3", "1..2", "{d '2020-01-01'}", "ARRAY[1]", "ROW(1)", "last_fence",
            "(SELECT 1)", "id", "\"id\"", "1 OR 1 = 1", "1 AND 1 = 1", "1 -- c", "1 /* c */", "1 #c"};

    private static final String[] OPERATORS = {"=", "<>", "!=", "<", ">", "<=", ">=", "< =", "> =", "! =", "< >",
            "=>", "=<", "<=>", "==", "!==", "=!", "^=", "~=", "!<", "!>", ":=", "= =", "IS", "IS NOT", "LIKE", "IN",
            "=ANY", "= ANY", "*=", "=*", "#", "##", "-", "||", "&&", "IS NOT DISTINCT FROM", "@>", "~", "?|", "?&",
            "=?"};

    /** Gaps between two tokens. */
    private static final String[] GAPS = {"", " ", "  ", "\t", "\n", "\r", "\r\n", "\f", "\u000b", "\u00a0",
            "\u2028", "\u2029", "\u3000", "\u0085", "\u200b", "\ufeff", "\u0000", "\u001c", "/**/", "/* c */",
            "/*!*/", "/*! */", "/*!50000 */", "/*M!*/", "/*M!100000 */", "/*+ h */", "-- c\n", "--\n", "-- c\r",
            "--c\n", "--\t\n", "// c\n", "#c\n", "# c\n", " /* /* */ */ ", "/* -- */", "{}", "\\\n", ";", " ; ", "\u00a0 ",
            " \u2028"};

    /** Words and pieces put between two tokens. */
    private static final String[] INSERTS = {"ONLY", "ONLY ", "LOW_PRIORITY", "IGNORE", "QUICK", "DELAYED",
            "HIGH_PRIORITY", "AS", "AS t", "t", "*", ".", "fx_schema.", "PUBLIC.", "(", ")", ",", "=", "?", "1", "'x'",
            "NULL", "NOT", "OR", "AND", "WHERE", "SET", "FROM", "INTO", "VALUES", "DEFAULT", "::int", "COLLATE \"C\"",
            "COLLATE utf8mb4_bin", "OR 1 = 1", "OR id = 1", "AND 1 = 1", "OR TRUE", "LIMIT 1", "ORDER BY id",
            "ORDER BY id LIMIT 1", "RETURNING id", "RETURNING *", "ON CONFLICT DO NOTHING",
            "ON DUPLICATE KEY UPDATE last_fence = 0", "ON DUPLICATE KEY UPDATE status = 'x'", "PARTITION (p0)",
            "USING customers", "JOIN customers c ON 1=1", ", customers", "WHERE CURRENT OF c", "FOR UPDATE",
            "; DELETE FROM orders", "; UPDATE orders SET status = 'x'", "\\g", "GO", "last_fence = 0,",
            ", last_fence = 0", ", last_fence = ?", ", version = 0", "SELECT 1", "WITH x AS (SELECT 1)", "TABLE orders",
            "DEFAULT VALUES", "OVERRIDING SYSTEM VALUE", "SET status = 'x'", "IS NULL", "IS NOT NULL", "BETWEEN 1 AND 2",
            "IN (1, 2)", "::text", "[1]", "{fn now()}", "{escape '\\'}", "$$", "U&", "E", "_utf8", "N", "X", "B"};

    /** Endings. */
    private static final String[] TAILS = {";", " ;", ";;", "; ", ";\n", "; -- c", " -- c", "--", " #c", " /* c */",
            " /*! OR 1=1 */", " /*M! OR 1=1 */", "/*", " RETURNING id", " RETURNING last_fence", " LIMIT 1",
            " ORDER BY id", " ORDER BY id LIMIT 1", " OR 1=1", " OR TRUE", " AND 1=1", " ON CONFLICT DO NOTHING",
            " ON CONFLICT (id) DO UPDATE SET status = 'x'", " ON DUPLICATE KEY UPDATE status = 'x'",
            " ON DUPLICATE KEY UPDATE last_fence = 0", " FOR UPDATE", " WHERE id = 1", " WHERE id = 1 OR 1=1",
            " AND last_fence = 0", ", last_fence = 0", " \\g", "\nGO", " UNION SELECT 1", "; SELECT 1",
            "; DELETE FROM orders", " \u00a0", "\u2028", "\f", "\u0000", " ESCAPE '\\'", " COLLATE \"C\"", "::int",
            " IS NULL", " IS NOT TRUE", " BETWEEN 1 AND 2", " IN (1)", " = 1", " ?", " 1", " 'x'"};

    private static Set<String> texts(Where where, Random random) {
        Set<String> texts = new LinkedHashSet<>();
        List<String[]> bases = bases(where);
        texts.addAll(FINDINGS);
        for (String[] base : bases) {
            texts.add(String.join(" ", base));
            for (int i = 0; i < base.length; i++) {
                for (String replacement : replacements(base[i])) {
                    String[] changed = base.clone();
                    changed[i] = replacement;
                    texts.add(String.join(" ", changed));
                }
            }
            for (int gap = 0; gap <= base.length; gap++) {
                for (String filler : GAPS) {
                    texts.add(withGap(base, gap, filler));
                }
                if (gap > 0 && gap < base.length) {
                    for (String inserted : INSERTS) {
                        texts.add(withGap(base, gap, " " + inserted + " "));
                        texts.add(withGap(base, gap, inserted));
                    }
                }
            }
            for (String tail : TAILS) {
                texts.add(String.join(" ", base) + tail);
            }
        }
        int doubles = LONG ? 60_000 : where == Where.GENERIC ? 500 : 3_000;
        for (int n = 0; n < doubles; n++) {
            String[] base = bases.get(random.nextInt(bases.size())).clone();
            for (int k = 1 + random.nextInt(3); k > 0; k--) {
                int i = random.nextInt(base.length);
                List<String> replacements = replacements(base[i]);
                base[i] = replacements.get(random.nextInt(replacements.size()));
            }
            StringBuilder sql = new StringBuilder();
            for (int i = 0; i < base.length; i++) {
                if (i > 0) {
                    sql.append(random.nextInt(4) == 0 ? GAPS[random.nextInt(GAPS.length)] : " ");
                }
                sql.append(base[i]);
            }
            if (random.nextInt(5) == 0) {
                sql.append(TAILS[random.nextInt(TAILS.length)]);
            }
            texts.add(sql.toString());
        }
        return texts;
    }

    private static String withGap(String[] tokens, int gap, String filler) {
        StringBuilder sql = new StringBuilder();
        for (int i = 0; i < tokens.length; i++) {
            if (i == gap) {
                sql.append(filler);
            } else if (i > 0) {
                sql.append(' ');
            }
            sql.append(tokens[i]);
        }
        if (gap == tokens.length) {
            sql.append(filler);
        }
        return sql.toString();
    }

    private static final Set<String> GRAMMAR = Set.of("UPDATE", "SET", "WHERE", "AND", "DELETE", "FROM", "INSERT",
            "INTO", "VALUES");

    /** What may stand in a token's place, by what the token is. */
    private static List<String> replacements(String token) {
        String upper = token.toUpperCase(Locale.ROOT);
        List<String> out = new ArrayList<>();
        if (token.isEmpty()) {
            out.add(token);
            return out;
        }
        if (GRAMMAR.contains(upper)) {
            out.add(upper);
            out.add(token.toLowerCase(Locale.ROOT));
            out.add(Character.toUpperCase(token.charAt(0)) + token.substring(1).toLowerCase(Locale.ROOT));
            out.add(fold(upper));
            out.add(upper + "_");
            out.add(upper.substring(0, upper.length() - 1));
            out.add("\"" + upper + "\"");
            out.add(upper.replace('E', '\u0415')); // Cyrillic IE
            switch (upper) {
                case "UPDATE" -> out.addAll(List.of("UPDATE LOW_PRIORITY", "UPDATE IGNORE", "UPDATE ONLY", "REPLACE",
                        "UPSERT", "MERGE", "WITH x AS (SELECT 1) UPDATE", "EXPLAIN ANALYZE UPDATE", "/*!UPDATE*/"));
                case "DELETE" -> out.addAll(List.of("DELETE LOW_PRIORITY", "DELETE QUICK", "DELETE IGNORE",
                        "DELETE orders", "TRUNCATE", "EXPLAIN ANALYZE DELETE"));
                case "INSERT" -> out.addAll(List.of("INSERT IGNORE", "INSERT LOW_PRIORITY", "INSERT DELAYED", "REPLACE",
                        "UPSERT", "MERGE", "EXPLAIN ANALYZE INSERT"));
                case "INTO" -> out.addAll(List.of("", "INTO TABLE", "OVERWRITE"));
                case "FROM" -> out.addAll(List.of("", "FROM ONLY"));
                case "VALUES" -> out.addAll(List.of("VALUE", "SELECT", "DEFAULT VALUES", "VALUES ROW"));
                case "AND" -> out.addAll(List.of("OR", "&&", "||", "AND NOT", "XOR", ","));
                case "WHERE" -> out.addAll(List.of("WHERE NOT", "HAVING", "WHERE CURRENT OF", "USING t WHERE"));
                case "SET" -> out.addAll(List.of("AS t SET", "t SET", "SET ROW", "SET (status) = ROW", "* SET"));
                default -> { }
            }
            return out;
        }
        if (token.equals("NULL")) {
            out.addAll(List.of(VALUES));
            return out;
        }
        if (token.equals("?") || token.startsWith("'") || Character.isDigit(token.charAt(0))) {
            out.addAll(List.of(VALUES));
            return out;
        }
        if (List.of("=", "<>", "!=", "<", ">", "<=", ">=").contains(token)) {
            out.addAll(List.of(OPERATORS));
            return out;
        }
        if (token.equals("(") || token.equals(")") || token.equals(",")) {
            out.addAll(List.of("(", ")", ",", "[", "]", "{", "}", "((", "))", ",,", "", ";", ".", "(SELECT", "ROW("));
            return out;
        }
        out.addAll(List.of(NAMES));
        return out;
    }

    /** {@code word} with each S, I and K written as a letter that Java's case-insensitive comparison folds to it. */
    private static String fold(String word) {
        return word.replace('S', '\u017f').replace('I', '\u0131').replace('K', '\u212a');
    }
}
