package dev.fencing.internal.config;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/** Identifier rules shared by configuration and SQL analysis. */
public final class Identifiers {

    /**
     * What configuration accepts as a table, schema or column name: a plain SQL identifier that
     * needs no quoting in any supported database. Anything else could smuggle SQL into the text
     * the rewriter builds, so it is refused.
     */
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    private Identifiers() {
    }

    public static boolean isPlain(String identifier) {
        return identifier != null && PLAIN.matcher(identifier).matches();
    }

    /** Removes one pair of identifier quotes ({@code "x"}, {@code `x`}, {@code [x]}), undoubling inner quotes. */
    public static String unquote(String part) {
        int n = part.length();
        if (n >= 2) {
            char first = part.charAt(0);
            char last = part.charAt(n - 1);
            if (first == '"' && last == '"') {
                return part.substring(1, n - 1).replace("\"\"", "\"");
            }
            if (first == '`' && last == '`') {
                return part.substring(1, n - 1).replace("``", "`");
            }
            if (first == '[' && last == ']') {
                return part.substring(1, n - 1);
            }
        }
        return part;
    }

    /** Splits {@code a.b."c.d"} into {@code a}, {@code b}, {@code "c.d"}, keeping each part's quotes. */
    public static List<String> splitQualified(String written) {
        List<String> parts = new ArrayList<>(3);
        StringBuilder current = new StringBuilder();
        char quote = 0;
        for (int i = 0; i < written.length(); i++) {
            char c = written.charAt(i);
            if (quote != 0) {
                current.append(c);
                if (c == quote) {
                    quote = 0;
                }
            } else if (c == '"' || c == '`') {
                quote = c;
                current.append(c);
            } else if (c == '[') {
                quote = ']';
                current.append(c);
            } else if (c == '.') {
                parts.add(current.toString().trim());
                current.setLength(0);
            } else {
                current.append(c);
            }
        }
        parts.add(current.toString().trim());
        parts.removeIf(String::isEmpty);
        return parts;
    }
}
