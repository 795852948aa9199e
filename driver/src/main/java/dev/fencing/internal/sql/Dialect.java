package dev.fencing.internal.sql;

import java.util.Locale;

/** The SQL dialects whose lexical rules and write forms the analyzer knows. */
public enum Dialect {
    POSTGRESQL,
    H2,
    MARIADB,
    /** Any other database: standard quoting; only the forms common to all dialects are fenced. */
    GENERIC;

    /** The dialect of a database, from {@link java.sql.DatabaseMetaData#getDatabaseProductName()}. */
    public static Dialect fromProductName(String productName) {
        String name = productName == null ? "" : productName.toLowerCase(Locale.ROOT);
        if (name.contains("postgres")) {
            return POSTGRESQL;
        }
        if (name.equals("h2")) {
            return H2;
        }
        if (name.contains("mariadb") || name.contains("mysql")) {
            return MARIADB;
        }
        return GENERIC;
    }

    /** True when backslash escapes characters inside '...' strings and "..." is a string too. */
    boolean mysqlLexing() {
        return this == MARIADB;
    }
}
