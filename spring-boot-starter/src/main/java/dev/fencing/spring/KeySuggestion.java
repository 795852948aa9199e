package dev.fencing.spring;

import java.util.Collection;

/** The known key a misspelt one most likely meant, by edit distance. */
final class KeySuggestion {

    /** Beyond this many single-character edits a key is not taken for a misspelling of another. */
    private static final int MAX_EDITS = 3;

    private KeySuggestion() {
    }

    /** The key of {@code known} nearest to {@code written} within {@value #MAX_EDITS} edits, or null. */
    static String nearest(String written, Collection<String> known) {
        String best = null;
        int bestDistance = MAX_EDITS + 1;
        for (String candidate : known) {
            int distance = distance(written, candidate);
            if (distance < bestDistance) {
                best = candidate;
                bestDistance = distance;
            }
        }
        return best;
    }

    /** Levenshtein distance: insertions, deletions and substitutions of one character each cost one. */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
