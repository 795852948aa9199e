package dev.fencing.internal.sql;

import dev.fencing.internal.config.TableName;

import java.util.BitSet;
import java.util.Set;

/**
 * The pre-filter: decides, without parsing and without allocating, whether a SQL text could name
 * a fenced table at all. It looks for each fenced table's name anywhere in the text, ignoring
 * case, so it over-matches (a longer name, a comment, a string) but never misses a plain or
 * quoted mention. Unicode-escaped identifiers ({@code U&"..."}) can spell any name, so any text
 * that has one is taken to name a fenced table; so is any text with a letter outside ASCII that a
 * case fold turns into ASCII letters ({@code ſ}, {@code ı}, {@code ß}, {@code ﬁ}, the Kelvin sign):
 * H2 upper-cases unquoted names with Java's rules, so {@code orderſ} is its {@code ORDERS}.
 */
final class FencedNameFilter {

    private static final BitSet FOLDS_INTO_ASCII = foldsIntoAscii();

    private final String[] names;

    FencedNameFilter(Set<TableName> tables) {
        this.names = tables.stream().map(TableName::table).distinct().toArray(String[]::new);
    }

    boolean mayNameFencedTable(String sql) {
        for (String name : names) {
            if (containsIgnoreCase(sql, name)) {
                return true;
            }
        }
        return containsIgnoreCase(sql, "u&\"") || hasLetterFoldingIntoAscii(sql);
    }

    private static boolean hasLetterFoldingIntoAscii(String sql) {
        for (int i = 0, n = sql.length(); i < n; i++) {
            char c = sql.charAt(i);
            if (c >= 0x80 && FOLDS_INTO_ASCII.get(c)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The characters outside ASCII whose upper case, lower case or both hold an ASCII letter
     * ({@code ß}, {@code İ}, {@code ı}, {@code ŉ}, {@code ſ}, {@code ǰ}, five Latin letters with a
     * ring or a line below, the Kelvin sign, the seven Latin ligatures). Written out, not computed
     * at start-up (that took 55 ms); {@code ServerFoldedNamesTest} computes it from the JDK's own
     * case rules and fails when the two differ.
     */
    static final String FOLDING_INTO_ASCII = "\u00df\u0130\u0131\u0149\u017f\u01f0\u1e96\u1e97\u1e98\u1e99\u1e9a"
            + "\u212a\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06";

    private static BitSet foldsIntoAscii() {
        BitSet folding = new BitSet(Character.MAX_VALUE + 1);
        FOLDING_INTO_ASCII.chars().forEach(folding::set);
        return folding;
    }

    private static boolean containsIgnoreCase(String text, String lowerCaseNeedle) {
        int n = lowerCaseNeedle.length();
        char first = lowerCaseNeedle.charAt(0);
        char firstUpper = Character.toUpperCase(first);
        for (int i = 0, last = text.length() - n; i <= last; i++) {
            char c = text.charAt(i);
            if ((c == first || c == firstUpper) && text.regionMatches(true, i, lowerCaseNeedle, 0, n)) {
                return true;
            }
        }
        return false;
    }
}
