package dev.fencing.proof.oracle;

import dev.fencing.proof.oracle.Setting.Database;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The classes of disagreement that issue 13 ("frontdoor") fixes in the lexer and analyzer at the
 * same time as this oracle is built. A shrunk text of one of these classes goes to
 * {@link OracleCorpus#PENDING_FRONTDOOR} instead of failing the run; every other disagreement
 * fails it. Once issue 13 is merged, {@link #MERGED} turns true, these texts fail like any other,
 * and the pending file is replayed with the corpus.
 */
final class FrontdoorClasses {

    /** Set to true when the fixes of issue 13 are on the branch (see docs/oracle.md). */
    static final boolean MERGED = true;

    private static final Pattern H2_ESCAPE_STRING = Pattern.compile("(?i)(?<![a-z0-9_$])e'");

    private FrontdoorClasses() {
    }

    /** The issue-13 class {@code text} belongs to under {@code setting}, or null. */
    static String of(Setting setting, String text) {
        Database database = setting.database();
        String upper = text.toUpperCase(Locale.ROOT);
        if (database == Database.POSTGRESQL && setting.name().endsWith("=off") && text.indexOf('\\') >= 0) {
            return "PostgreSQL standard_conforming_strings=off: backslash strings";
        }
        if (database == Database.POSTGRESQL && dollarThenNonAscii(text)) {
            return "PostgreSQL dollar-quote tag starting with a non-ASCII character";
        }
        if (database == Database.MARIADB && upper.contains("EXECUTE IMMEDIATE") && upper.contains("BEGIN")) {
            return "MariaDB compound statement with EXECUTE IMMEDIATE";
        }
        if (database == Database.MARIADB && dashDashThenUnicodeSpace(text)) {
            return "MariaDB -- followed by a Unicode space";
        }
        if (database == Database.H2 && H2_ESCAPE_STRING.matcher(text).find()) {
            return "H2 E'..' strings";
        }
        if (database == Database.H2 && text.replace("$$", "").indexOf('$') >= 0) {
            return "H2 lone $";
        }
        return null;
    }

    private static boolean dollarThenNonAscii(String text) {
        for (int i = text.indexOf('$'); i >= 0 && i + 1 < text.length(); i = text.indexOf('$', i + 1)) {
            if (text.charAt(i + 1) >= 0x80) {
                return true;
            }
        }
        return false;
    }

    private static boolean dashDashThenUnicodeSpace(String text) {
        for (int i = text.indexOf("--"); i >= 0 && i + 2 < text.length(); i = text.indexOf("--", i + 1)) {
            char c = text.charAt(i + 2);
            if (c >= 0x80 && (Character.isWhitespace(c) || Character.isSpaceChar(c))) {
                return true;
            }
        }
        return false;
    }
}
