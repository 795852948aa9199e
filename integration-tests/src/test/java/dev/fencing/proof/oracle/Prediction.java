package dev.fencing.proof.oracle;

import dev.fencing.proof.oracle.Setting.Database;
import dev.fencing.internal.sql.SqlReading;
import dev.fencing.internal.sql.SqlReading.Token;
import dev.fencing.internal.sql.SqlReading.TokenKind;

import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the analyzer's lexer predicts a text does: which marker calls it reads as code (they must
 * run when the text runs without error), which markers it sees inside an executable comment or
 * inside the strings of a statement it treats as dynamic SQL (they may run), how many
 * statements it splits the text into, and how many results the driver reports for them.
 */
final class Prediction {

    private static final Pattern MARKER_NAME = Pattern.compile("(?i)o_m(\\d)");

    final SqlReading reading;
    final BitSet code = new BitSet();
    final BitSet mayRun = new BitSet();
    final int statements;
    /** The number of results the driver should report when the text runs without an error. */
    final int results;

    private Prediction(SqlReading reading, Setting setting) {
        Database database = setting.database();
        // H2 in MSSQLServer mode reads [..] as a quoted name: code the lexer sees inside brackets
        // is a name there. The lexer reading more code than the server can only over-fence (and
        // brackets where quotes or comments could hide code are refused), so such markers may run.
        boolean bracketsAreNames = database == Database.H2 && setting.name().equals("MODE=MSSQLServer");
        this.reading = reading;
        this.statements = reading.statements().size();
        // A text with no statement at all still returns one empty result (pgjdbc and MariaDB both)
        this.results = statements == 0 ? 1
                : statements + (database == Database.MARIADB && endsWithCommentStatement(reading) ? 1 : 0);
        for (SqlReading.Statement statement : reading.statements()) {
            List<Token> tokens = statement.tokens();
            int brackets = 0;
            for (int i = 0; i < tokens.size(); i++) {
                brackets += tokens.get(i).text().equals("[") ? 1 : tokens.get(i).text().equals("]") ? -1 : 0;
                int marker = markerCallAt(tokens, i, database);
                if (marker >= 0) {
                    (bracketsAreNames && brackets > 0 ? mayRun : code).set(marker);
                }
                int escaped = escapedMarkerCallAt(tokens, i, database);
                if (escaped >= 0) {
                    mayRun.set(escaped);
                }
                if (tokens.get(i).kind() == TokenKind.EXECUTABLE_COMMENT) {
                    mentioned(tokens.get(i).text(), mayRun);
                }
            }
            if (statement.dynamic()) {
                mentioned(statement.text(), mayRun);
            }
        }
    }

    static Prediction of(String text, Setting setting) {
        return new Prediction(SqlReading.of(text, setting.database().dialect), setting);
    }

    /**
     * MariaDB runs a comment after the last semicolon as an empty statement that returns one
     * result (more semicolons and white space alone return none; an empty statement elsewhere is
     * an error); it runs nothing, so the analyzer need not count it, but the oracle counts results.
     */
    private static boolean endsWithCommentStatement(SqlReading reading) {
        List<SqlReading.Statement> statements = reading.statements();
        if (statements.isEmpty()) {
            return false;
        }
        String sql = reading.sql();
        int end = statements.get(statements.size() - 1).end();
        if (end >= sql.length()) {
            return false;
        }
        for (int i = end + 1; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (!(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0x0B || c == ';')) {
                return true;
            }
        }
        return false;
    }

    boolean readable() {
        return reading.readable();
    }

    /** The marker whose call starts at token {@code i} ({@code nextval('o_mN')} or {@code NEXT VALUE FOR o_mN}), else -1. */
    private static int markerCallAt(List<Token> tokens, int i, Database database) {
        if (i + 3 >= tokens.size()) {
            return -1;
        }
        if (database == Database.POSTGRESQL) {
            if (!isWord(tokens.get(i), "nextval") || !tokens.get(i + 1).text().equals("(")) {
                return -1;
            }
            // nextval(('o_m1')) is the same call: the argument may sit in any number of parentheses
            int extra = 0;
            while (i + 2 + extra < tokens.size() && tokens.get(i + 2 + extra).text().equals("(")) {
                extra++;
            }
            int string = i + 2 + extra;
            if (string >= tokens.size() || tokens.get(string).kind() != TokenKind.STRING) {
                return -1;
            }
            for (int close = 1; close <= extra + 1; close++) {
                if (string + close >= tokens.size() || !tokens.get(string + close).text().equals(")")) {
                    return -1;
                }
            }
            // nextval's argument is read as a regclass: white space around the name is dropped
            String literal = tokens.get(string).text();
            return literal.startsWith("'") ? markerIn("'" + trimPostgresSpace(literal.substring(1, literal.length() - 1)) + "'", "'o_m", "'") : -1;
        }
        if (isWord(tokens.get(i), "next") && isWord(tokens.get(i + 1), "value") && isWord(tokens.get(i + 2), "for")
                && tokens.get(i + 3).kind() == TokenKind.WORD) {
            return markerIn(tokens.get(i + 3).text(), "o_m", "");
        }
        return -1;
    }

    /**
     * PostgreSQL with standard_conforming_strings=off reads {@code 'o_m\9'} as {@code o_m9}: the
     * call is code either way, only the sequence it names depends on the setting.
     */
    private static int escapedMarkerCallAt(List<Token> tokens, int i, Database database) {
        if (database != Database.POSTGRESQL || i + 3 >= tokens.size() || !isWord(tokens.get(i), "nextval")
                || tokens.get(i + 2).kind() != TokenKind.STRING || tokens.get(i + 2).text().indexOf('\\') < 0) {
            return -1;
        }
        String literal = tokens.get(i + 2).text();
        if (!literal.startsWith("'")) {
            return -1;
        }
        String inside = literal.substring(1, literal.length() - 1).replaceAll("\\\\(.)", "$1");
        return markerIn("'" + trimPostgresSpace(inside) + "'", "'o_m", "'");
    }

    /** PostgreSQL's scanner_isspace: space, tab, newline, carriage return, form feed. */
    private static String trimPostgresSpace(String text) {
        int from = 0;
        int to = text.length();
        while (from < to && " \t\n\r\f".indexOf(text.charAt(from)) >= 0) {
            from++;
        }
        while (to > from && " \t\n\r\f".indexOf(text.charAt(to - 1)) >= 0) {
            to--;
        }
        return text.substring(from, to);
    }

    private static int markerIn(String text, String prefix, String suffix) {
        String lower = text.toLowerCase(Locale.ROOT);
        if (lower.length() == prefix.length() + 1 + suffix.length() && lower.startsWith(prefix) && lower.endsWith(suffix)) {
            char digit = lower.charAt(prefix.length());
            return digit >= '0' && digit <= '9' ? digit - '0' : -1;
        }
        return -1;
    }

    private static boolean isWord(Token token, String word) {
        return token.kind() == TokenKind.WORD && token.text().equalsIgnoreCase(word);
    }

    private static void mentioned(String text, BitSet into) {
        Matcher matcher = MARKER_NAME.matcher(text);
        while (matcher.find()) {
            into.set(matcher.group(1).charAt(0) - '0');
        }
    }

    @Override
    public String toString() {
        if (!readable()) {
            return "unreadable (" + reading.unreadable() + ")";
        }
        return "code " + names(code) + ", may run " + names(mayRun) + ", " + statements + " statement(s), " + results + " result(s)";
    }

    static String names(BitSet markers) {
        StringBuilder names = new StringBuilder("[");
        markers.stream().forEach(m -> names.append(names.length() > 1 ? "," : "").append("o_m").append(m));
        return names.append(']').toString();
    }
}
