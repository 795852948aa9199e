package dev.fencing.internal.sql;

import dev.fencing.internal.config.TableName;

import java.util.Set;

/**
 * The pre-filter: decides, without parsing and without allocating, whether a SQL text could name
 * a fenced table at all. It looks for each fenced table's name anywhere in the text, ignoring
 * case, so it over-matches (a longer name, a comment, a string) but never misses a plain or
 * quoted mention. Unicode-escaped identifiers ({@code U&"..."}) can spell any name, so any text
 * that has one is taken to name a fenced table.
 */
final class FencedNameFilter {

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
        return containsIgnoreCase(sql, "u&\"");
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
