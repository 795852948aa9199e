package dev.fencing.internal.config;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A table name reduced to what matching compares: identifier quotes removed, case folded, and at
 * most a schema before the table. Catalog prefixes are dropped (over-matching only fences more).
 *
 * <p>The fold takes in every name a server may fold to the same one: upper case then lower case,
 * so that {@code orderſ}, {@code ORDERß} or {@code ﬁle} meet the names H2 makes of them
 * ({@code ORDERS}, {@code ORDERSS}, {@code FILE}: it upper-cases unquoted names with Java's own
 * rules), and cut to 63 bytes of UTF-8, as PostgreSQL cuts every name, so that a longer name that
 * starts with a fenced table's 63 is that table. Both only ever make more names match.
 */
public final class TableName {

    private final String schema;
    private final String table;

    private TableName(String schema, String table) {
        this.schema = schema;
        this.table = table;
    }

    /** Builds a name from parts as written in SQL (quotes allowed); {@code schema} may be null. */
    public static TableName of(String schema, String table) {
        return new TableName(schema == null ? null : fold(schema), fold(table));
    }

    /**
     * Reads a name as written in SQL: {@code t}, {@code s.t}, {@code c.s.t}, each part optionally
     * quoted with double quotes, backticks or brackets. Dots inside quotes are kept.
     */
    public static TableName parse(String written) {
        java.util.List<String> parts = Identifiers.splitQualified(written);
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("empty table name");
        }
        String table = parts.get(parts.size() - 1);
        String schema = parts.size() >= 2 ? parts.get(parts.size() - 2) : null;
        return of(schema, table);
    }

    /**
     * Reads a table name as configuration takes it ({@code table} or {@code schema.table}, each part
     * a plain identifier, quotes allowed), failing with a message that names {@code spelledKey}.
     */
    public static TableName parseConfigured(ConfigKey key, String spelledKey, String written) {
        if (written == null || written.isBlank()) {
            throw key.invalid(spelledKey, written);
        }
        List<String> parts = Identifiers.splitQualified(written.trim());
        if (parts.isEmpty() || parts.size() > 2) {
            throw key.invalid(spelledKey, written);
        }
        for (String part : parts) {
            if (!Identifiers.isPlain(Identifiers.unquote(part))) {
                throw new IllegalArgumentException("invalid value '" + written + "' for " + spelledKey
                        + "; allowed: table or schema.table, each part a plain SQL identifier "
                        + "(letters, digits, _; not starting with a digit)");
            }
        }
        return parse(written.trim());
    }

    static String fold(String part) {
        return truncated(Identifiers.unquote(part).toUpperCase(Locale.ROOT).toLowerCase(Locale.ROOT));
    }

    /** PostgreSQL's longest name, in bytes (NAMEDATALEN - 1): it cuts longer ones, at a character's end. */
    static final int LONGEST_NAME_BYTES = 63;

    private static String truncated(String name) {
        if (name.length() * 3 <= LONGEST_NAME_BYTES) {
            return name; // short enough in any encoding: the common case, checked without counting
        }
        int bytes = 0;
        for (int i = 0; i < name.length(); ) {
            int codePoint = name.codePointAt(i);
            int size = codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
            if (bytes + size > LONGEST_NAME_BYTES) {
                return name.substring(0, i);
            }
            bytes += size;
            i += Character.charCount(codePoint);
        }
        return name;
    }

    /** The schema, folded, or null when the name was not qualified. */
    public String schema() {
        return schema;
    }

    /** The table, folded. */
    public String table() {
        return table;
    }

    /**
     * True when a statement naming {@code target} may mean this configured table: the table parts
     * are equal and either side is unqualified or both schemas are equal.
     */
    public boolean matches(TableName target) {
        if (!table.equals(target.table)) {
            return false;
        }
        return schema == null || target.schema == null || schema.equals(target.schema);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof TableName that
                && table.equals(that.table) && Objects.equals(schema, that.schema);
    }

    @Override
    public int hashCode() {
        return Objects.hash(schema, table);
    }

    @Override
    public String toString() {
        return schema == null ? table : schema + "." + table;
    }
}
