package dev.fencing.internal.sql;

import dev.fencing.internal.config.TableName;

import java.util.BitSet;
import java.util.Locale;
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

    /** The characters outside ASCII whose upper case, lower case or both hold an ASCII letter. */
    private static BitSet foldsIntoAscii() {
        BitSet folding = new BitSet(Character.MAX_VALUE + 1);
        for (char c = 0x80; c < Character.MAX_VALUE; c++) {
            if (Character.isSurrogate(c)) {
                continue;
            }
            String upper = String.valueOf(c).toUpperCase(Locale.ROOT);
            if (holdsAsciiLetter(upper) || holdsAsciiLetter(String.valueOf(c).toLowerCase(Locale.ROOT))
                    || holdsAsciiLetter(upper.toLowerCase(Locale.ROOT))) {
                folding.set(c);
            }
        }
        return folding;
    }

    private static boolean holdsAsciiLetter(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') {
                return true;
            }
        }
        return false;
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
