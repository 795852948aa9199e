package dev.fencing.internal.sql;

/**
 * How a database's own lexer reads what {@link SqlTokens} must read the same way: which characters
 * make names and white space, which comments and quotes exist. Owned by {@link Dialect#lexing()};
 * PostgreSQL and any other database read the standard way. MariaDB's reading of strings, comments
 * and dollar signs is {@link Dialect#mysqlLexing()}, which JSqlParser is told too.
 */
public enum SqlLexing {
    /** PostgreSQL and the standard. */
    STANDARD,
    MARIADB {
        @Override
        boolean backtickQuotedNames() {
            return true;
        }
    },
    /** H2 2.x, in every compatibility mode. */
    H2 {
        @Override
        boolean nonAsciiNameCharacters() {
            return false;
        }

        @Override
        boolean unicodeSpacesAreWhiteSpace() {
            return true;
        }

        @Override
        boolean doubleSlashComments() {
            return true;
        }

        @Override
        boolean backtickQuotedNames() {
            return true;
        }

        @Override
        boolean onlyUntaggedDollarQuotes() {
            return true;
        }

        @Override
        boolean escapeStringPrefix() {
            return false;
        }

        @Override
        boolean squareBracketsMayQuoteNames() {
            return true;
        }
    };

    /**
     * True when every character above U+007F may start or continue an unquoted name (PostgreSQL,
     * MariaDB); H2 takes only Java letters and digits.
     */
    boolean nonAsciiNameCharacters() {
        return true;
    }

    /** True when Java's space characters (a no-break space too) are white space, not only ASCII ones (H2). */
    boolean unicodeSpacesAreWhiteSpace() {
        return false;
    }

    /** True when {@code //} starts a comment to the end of the line (H2). */
    boolean doubleSlashComments() {
        return false;
    }

    /** True when {@code `..`} quotes a name (MariaDB, H2). */
    boolean backtickQuotedNames() {
        return false;
    }

    /**
     * True when a dollar quote is {@code $$..$$} only and any other lone {@code $} is a parameter
     * (H2); PostgreSQL's quotes take a tag ({@code $fn$..$fn$}).
     */
    boolean onlyUntaggedDollarQuotes() {
        return false;
    }

    /** True when {@code E'..'} is a string whose backslashes escape (PostgreSQL); H2 reads it as a plain string. */
    boolean escapeStringPrefix() {
        return true;
    }

    /**
     * True when {@code [..]} may quote a name (H2 in MODE=MSSQLServer) where other modes read an
     * array or a subscript; the lexer cannot know the mode.
     */
    boolean squareBracketsMayQuoteNames() {
        return false;
    }
}
