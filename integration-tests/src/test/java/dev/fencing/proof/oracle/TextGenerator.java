package dev.fencing.proof.oracle;

import dev.fencing.proof.oracle.Setting.Database;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Generates texts from the risky pieces of a dialect around marker statements. Every quote and
 * comment form, backslashes, prefixed strings, dollar quotes with odd tags, nested and executable
 * comments, every white space and control character after {@code --} and {@code #}, compound
 * statement keywords and semicolons are put inside and around statements that advance a marker
 * sequence: a read ({@code SELECT}), a write (an {@code INSERT} into the sink) or dynamic SQL (a
 * {@code DO} block or {@code EXECUTE IMMEDIATE} holding the write). Marker statements are also
 * hidden inside strings and comments, quoted in each way a string can quote a quote, so that a
 * reader that ends a string or comment at the wrong place sees them as code, or misses them.
 * A few random characters are then inserted or removed to reach texts no grammar would write.
 */
final class TextGenerator {

    enum MarkerKind { READ, WRITE, DYNAMIC }

    private static final String[] LINE_COMMENT_FOLLOWERS = {
            " ", "\t", "\n", "\r", "\r\n", "\u000b", "\f", "\u0001", "\u0008", "\u001b", "\u001f", "\u007f",
            "\u0085", "\u00a0", "\u1680", "\u2000", "\u2003", "\u2007", "\u200b", "\u2028", "\u2029", "\u202f",
            "\u205f", "\u3000", "\ufeff", "x", "-", "*", "'", ";", "!", ""};
    private static final String[] LINE_ENDS = {"\n", "\r", "\r\n", "\u0085", "\u2028", "\u000b", "\f", ""};
    private static final String[] SPACES = {" ", " ", " ", "\n", "\t", "\r", "\r\n", "\f", "\u000b", "\u00a0",
            "\u2003", "\u3000", "\u0085", "\u2028", "\ufeff", "\u200b", ""};
    private static final String[] TAG_CHARS = {"a", "Z", "_", "1", "0", "\u00e9", "\u00df", "\u0663", "\u0967",
            "\u0301", "\uD835\uDC9C", "\u00b7", "\u200c", "\u2160", "\u00aa", "\u0430", "$", "\u00a0", "\u00d7", "\u20ac"};
    private static final String[] ATOMS = {"x", "a b", "''", "\\'", "\\\\", "\\", "\"\"", "\\\"", ";", " ; ", "--", "-- ",
            "#", "/*", "*/", "/* */", "$$", "$a$", "`", "\"", "'", "\n", "\r", "?", "\\n", "\u00a0", "E'", "e'", "U&'",
            "N'", "q'[", "]'", "(", ")", "\u2028", "\\\\'", "'\\'", "''''",
            // characters whose bytes another client encoding reads otherwise (issue 29): the yen sign and
            // overline (0x5C and 0x7E in EUC_JP and SJIS), CJK characters whose UTF-8 bytes end in a gbk,
            // big5 or sjis lead byte, and sjis characters whose second byte is a backslash; each also
            // right before a quote, a backtick, a backslash or a comment mark
            "\u00a5", "\u203e", "\u7e37", "\u7e01", "\u8868", "\u30bd", "\u5341", "\u80fd", "\u00a5'", "\u7e37`",
            "\u7e01`", "\u7e37\\", "\u7e37'", "\u00a5\\'", "\u7e01*/", "\u7e37--", "\u00e9\"", "\u8868$"};

    private final Database database;
    private final Random random;
    private List<Integer> freeMarkers;
    /**
     * Half the texts are wild (foreign forms, odd white space, unquoted hidden markers, random
     * edits); the other half keep to the dialect's own forms, so that most of them run and pass
     * the analyzer, and the comparison has something to compare.
     */
    private boolean wild;

    TextGenerator(Database database, Random random) {
        this.database = database;
        this.random = random;
    }

    /** A new text with up to {@link Server#MARKERS} markers, each named once. */
    String next() {
        List<Integer> markers = new ArrayList<>();
        for (int m = 0; m < Server.MARKERS; m++) {
            markers.add(m);
        }
        Collections.shuffle(markers, random);
        freeMarkers = markers;
        wild = random.nextBoolean();
        StringBuilder text = new StringBuilder();
        int statements = 1 + random.nextInt(4);
        for (int s = 0; s < statements; s++) {
            if (s > 0) {
                text.append(space(0.5)).append(';').append(space(0.6));
                if (random.nextInt(4) == 0) {
                    text.append(comment()).append(' ');
                }
            } else if (random.nextInt(6) == 0) {
                text.append(random.nextInt(4) == 0 ? piece() : comment()).append(' ');
            }
            text.append(random.nextInt(3) == 0 ? noiseStatement() : marker());
        }
        if (random.nextInt(3) == 0) {
            text.append(random.nextBoolean() ? ";" : " ").append(random.nextInt(4) == 0 ? piece() : comment());
        }
        return wild ? mutate(text.toString()) : text.toString();
    }

    /** A statement that advances a fresh marker sequence when the server runs it. */
    private String marker() {
        if (freeMarkers.isEmpty()) {
            return "SELECT 1";
        }
        int m = freeMarkers.remove(freeMarkers.size() - 1);
        int roll = random.nextInt(100);
        MarkerKind kind = roll < 55 ? MarkerKind.READ : roll < 92 ? MarkerKind.WRITE : MarkerKind.DYNAMIC;
        return markerStatement(kind, m);
    }

    private String markerStatement(MarkerKind kind, int m) {
        String next = nextValue(database, m);
        String write = "INSERT INTO " + Server.SINK + " (v) VALUES (" + next + ")";
        return switch (kind) {
            case READ -> random.nextInt(4) == 0 ? "SELECT " + value() + maybeComment() + ", " + next : "SELECT " + next;
            case WRITE -> write;
            case DYNAMIC -> switch (database) {
                case POSTGRESQL -> switch (random.nextInt(3)) {
                    case 0 -> "DO $$BEGIN " + write + "; END$$";
                    case 1 -> "DO " + dollarTag() + "BEGIN " + write + "; END" + lastTag;
                    default -> "DO 'BEGIN " + write.replace("'", "''") + "; END'";
                };
                case MARIADB -> switch (random.nextInt(6)) {
                    case 0 -> "EXECUTE IMMEDIATE '" + write + "'";
                    case 1 -> "BEGIN NOT ATOMIC " + write + "; END";
                    case 2 -> "IF 1 THEN " + write + "; END IF";
                    case 3 -> "WHILE 0 DO " + write + "; END WHILE; BEGIN NOT ATOMIC SELECT " + next + "; END";
                    case 4 -> "CASE WHEN 1 THEN " + write + "; END CASE";
                    default -> "PREPARE o_p FROM \"" + write + "\"; EXECUTE o_p";
                };
                case H2 -> "EXECUTE IMMEDIATE '" + write + "'";
            };
        };
    }

    static String nextValue(Database database, int m) {
        return database == Database.POSTGRESQL ? "nextval('o_m" + m + "')" : "NEXT VALUE FOR o_m" + m;
    }

    /**
     * A statement of risky pieces that, read right, runs no marker; its strings and comments may
     * hide some. Mostly well formed for the dialect (values, aliases and comments where they
     * belong), so that the server runs it and the analyzer lets it through.
     */
    private String noiseStatement() {
        StringBuilder statement = new StringBuilder("SELECT ");
        int values = 1 + random.nextInt(3);
        for (int p = 0; p < values; p++) {
            statement.append(p == 0 ? "" : ", ").append(maybeComment()).append(value()).append(maybeComment());
            if (random.nextInt(5) == 0) {
                statement.append(" AS ").append(alias());
            }
        }
        return statement.toString();
    }

    private String maybeComment() {
        return random.nextInt(3) == 0 ? " " + comment() + " " : "";
    }

    /** A string literal in one of the dialect's forms (now and then another dialect's form). */
    private String value() {
        boolean foreign = wild && random.nextInt(4) == 0;
        Database dialect = foreign ? Database.values()[random.nextInt(Database.values().length)] : database;
        return switch (dialect) {
            case POSTGRESQL -> switch (random.nextInt(6)) {
                case 0, 1 -> "'" + body('\'') + "'";
                case 2 -> pick(new String[] {"E", "e"}, 0) + "'" + body('\'') + "'";
                case 3 -> pick(new String[] {"U&", "u&"}, 0) + "'" + body('\'') + "'" + (random.nextInt(3) == 0 ? " UESCAPE '!'" : "");
                default -> {
                    String tag = dollarTag();
                    yield tag + body('$') + lastTag;
                }
            };
            case MARIADB -> switch (random.nextInt(5)) {
                case 0, 1 -> "'" + body('\'') + "'";
                case 2 -> "\"" + body('"') + "\"";
                case 3 -> pick(new String[] {"_utf8mb4", "_latin1", "N", "n", "_binary"}, 0) + "'" + body('\'') + "'";
                default -> "X'" + pick(new String[] {"00", "41", "", "4"}, 0) + "'";
            };
            case H2 -> switch (random.nextInt(5)) {
                case 0, 1 -> "'" + body('\'') + "'";
                case 2 -> "$$" + body('$') + "$$";
                case 3 -> pick(new String[] {"N", "U&", "X"}, 0) + "'" + body('\'') + "'";
                default -> String.valueOf(random.nextInt(100));
            };
        };
    }

    private String alias() {
        return switch (random.nextInt(4)) {
            case 0 -> "\"" + body('"') + "\"";
            case 1 -> "`" + body('`') + "`";
            case 2 -> "[" + body(']') + "]";
            default -> "U&\"" + body('"') + "\"";
        };
    }

    /** A comment in one of the forms some dialect knows. */
    private String comment() {
        if (!wild) {
            return switch (random.nextInt(database == Database.MARIADB ? 4 : 3)) {
                case 0 -> "-- " + body('\n') + "\n";
                case 1 -> "/*" + body('*') + "*/";
                case 2 -> database == Database.MARIADB ? "#" + body('\n') + "\n"
                        : database == Database.H2 ? "//" + body('\n') + "\n" : "/* /* " + body('*') + " */ */";
                default -> "/*!" + body('*') + "*/";
            };
        }
        return switch (random.nextInt(database == Database.MARIADB ? 7 : 5)) {
            case 0, 1 -> "--" + pick(LINE_COMMENT_FOLLOWERS, 0) + body('\n') + pick(LINE_ENDS, 0);
            case 2 -> random.nextInt(3) == 0 ? "/* /* " + body('*') + " */ " + body('*') + " */" : "/*" + body('*') + "*/";
            case 3 -> database == Database.H2 || random.nextInt(4) == 0 ? "//" + body('\n') + "\n"
                    : "#" + pick(LINE_COMMENT_FOLLOWERS, 0.3) + body('\n') + pick(LINE_ENDS, 0);
            case 4 -> "#" + pick(LINE_COMMENT_FOLLOWERS, 0.3) + body('\n') + pick(LINE_ENDS, 0);
            default -> (random.nextBoolean() ? "/*!" : random.nextBoolean() ? "/*M!" : "/*!100000 ") + body('*') + "*/";
        };
    }

    /** One risky piece: a value, a comment or a lone risky character. */
    private String piece() {
        return switch (random.nextInt(8)) {
            case 0, 1, 2 -> value();
            case 3, 4, 5 -> comment();
            case 6 -> alias();
            default -> pick(ATOMS, 0);
        };
    }

    private String lastTag = "$$";

    private String dollarTag() {
        StringBuilder tag = new StringBuilder("$");
        int length = random.nextInt(4);
        for (int i = 0; i < length; i++) {
            tag.append(pick(TAG_CHARS, 0));
        }
        tag.append('$');
        lastTag = random.nextInt(8) == 0 ? "$" + pick(TAG_CHARS, 0) + "$" : tag.toString();
        return tag.toString();
    }

    /**
     * The inside of a quoted run or comment that ends with {@code closer}: harmless text, risky
     * atoms and hidden marker statements. Mostly quoted as the dialect's standard rules want (the
     * closer doubled, a comment's end left out), now and then quoted another way or not at all,
     * with a prefix that ends the run early for some reader.
     */
    private String body(char closer) {
        StringBuilder body = new StringBuilder();
        int parts = random.nextInt(4);
        for (int p = 0; p < parts; p++) {
            int roll = random.nextInt(10);
            if (roll < 3 && !freeMarkers.isEmpty()) {
                String hidden = marker();
                boolean wellQuoted = !wild || random.nextInt(3) > 0;
                String quoted = wellQuoted ? quoteFor(hidden, closer) : switch (random.nextInt(3)) {
                    case 0 -> hidden;
                    case 1 -> hidden.replace("'", "\\'");
                    default -> hidden.replace("'", "''");
                };
                body.append(wellQuoted && random.nextBoolean() ? "; "
                                : pick(new String[] {"; ", "';", "\\'; ", "\";", "*/;", "$$;", "\n", "\r", "`;", "'';"}, 0))
                        .append(quoted).append(pick(new String[] {"; --", "; #", ";", " /*", "", "--'", "-- '"}, 0));
            } else if (roll < 5) {
                body.append(pick(ATOMS, 0));
            } else {
                body.append(pick(new String[] {"text", " ", ";", "a;b", "x y", "\u00e9", "--", "''"}, 0));
            }
        }
        return wild && random.nextInt(3) == 0 ? body.toString() : quoteFor(body.toString(), closer);
    }

    /** {@code text} made safe inside a run that ends with {@code closer}, by the standard rules. */
    private static String quoteFor(String text, char closer) {
        return switch (closer) {
            case '\'', '"', '`', ']' -> text.replace(String.valueOf(closer), String.valueOf(closer) + closer);
            case '*' -> text.replace("*/", "* /").replace("/*", "/ *");
            case '\n' -> text.replace("\n", " ").replace("\r", " ");
            case '$' -> text.replace("$", "");
            default -> text;
        };
    }

    /** Inserts, removes or duplicates a few characters. */
    private String mutate(String text) {
        int mutations = random.nextInt(10) < 8 ? 0 : 1 + random.nextInt(2);
        StringBuilder mutated = new StringBuilder(text);
        for (int k = 0; k < mutations && mutated.length() > 0; k++) {
            int at = random.nextInt(mutated.length() + 1);
            if (at < mutated.length() && Character.isLowSurrogate(mutated.charAt(at))) {
                continue; // never split a surrogate pair: the driver would send '?' for the halves
            }
            switch (random.nextInt(3)) {
                case 0 -> mutated.insert(at, pick(new String[] {"'", "\"", "`", "\\", "$", "$$", "--", "#", "/*", "*/", ";",
                        "\n", "\r", "E'", "e'"}, 0));
                case 1 -> {
                    if (at < mutated.length() && !Character.isSurrogate(mutated.charAt(at))) {
                        mutated.deleteCharAt(at);
                    }
                }
                default -> {
                    if (at < mutated.length() && !Character.isSurrogate(mutated.charAt(at))) {
                        mutated.insert(at, mutated.charAt(at));
                    }
                }
            }
        }
        return mutated.toString();
    }

    private String space(double emptyChance) {
        return wild ? pick(SPACES, emptyChance) : pick(new String[] {" ", "\n", "\t", "\r\n"}, emptyChance);
    }

    private String pick(String[] choices, double emptyChance) {
        if (emptyChance > 0 && random.nextDouble() < emptyChance) {
            return "";
        }
        return choices[random.nextInt(choices.length)];
    }
}
