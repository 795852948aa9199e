package dev.fencing.jdbc;

import dev.fencing.sql.Dialect;

/**
 * What a statement text does to the transaction it is sent in, read from its leading words.
 * Decided once per text (at prepare time for prepared statements); the hot path of an ordinary
 * statement is one keyword comparison and one {@code indexOf(';')}.
 *
 * <p>It is deliberately coarse: a text it cannot place with certainty is {@link Effect#MAY_END}, and
 * {@link TransactionState} treats that as "the transaction may have ended, committed or rolled
 * back, and whether one is open now is unknown". Being wrong in that direction costs a check again;
 * the other direction (believing a transaction goes on when the server ended it) never happens here.
 */
final class TransactionText {

    /** What a text does to the transaction. */
    enum Effect {
        /** Cannot begin, end or roll back anything (SELECT, INSERT, UPDATE, DELETE, PostgreSQL DDL ..). */
        NONE,
        /** {@code BEGIN}, {@code START TRANSACTION}: opens a transaction, also under JDBC auto-commit. */
        BEGIN,
        /** {@code COMMIT}, PostgreSQL {@code END}. */
        COMMIT,
        /** {@code ROLLBACK}, PostgreSQL {@code ABORT}. */
        ROLLBACK,
        /** {@code SAVEPOINT name}. */
        SAVEPOINT,
        /** {@code ROLLBACK TO [SAVEPOINT] name}. */
        ROLLBACK_TO_SAVEPOINT,
        /** {@code RELEASE [SAVEPOINT] name}. */
        RELEASE_SAVEPOINT,
        /** DDL that MariaDB and H2 commit implicitly (the open transaction is committed before it runs). */
        IMPLICIT_COMMIT,
        /**
         * Anything else that is not known to leave the transaction alone: several statements in one
         * text, procedure calls, dynamic SQL, {@code SET autocommit}, {@code COMMIT AND CHAIN}, ..
         */
        MAY_END
    }

    /** First words after which a single statement cannot end the transaction. */
    private static final String[] LEAVES_TRANSACTION_ALONE = {"SELECT", "INSERT", "UPDATE", "DELETE", "WITH",
            "VALUES", "TABLE", "SHOW", "EXPLAIN", "MERGE", "REPLACE", "DESCRIBE", "DESC"};
    /** First words of DDL that MariaDB and H2 commit implicitly. */
    private static final String[] IMPLICITLY_COMMITTING = {"CREATE", "ALTER", "DROP", "RENAME", "TRUNCATE",
            "GRANT", "REVOKE", "COMMENT", "ANALYZE", "OPTIMIZE", "REPAIR"};

    private TransactionText() {
    }

    /** The effect of {@code sql} on the transaction, on a database of {@code dialect}. */
    static Effect of(String sql, Dialect dialect) {
        if (sql == null) {
            return Effect.NONE;
        }
        Words words = new Words(sql, dialect);
        String first = words.next();
        if (first == null) {
            // blank is nothing; anything else that does not start with a word ({call ..}, a
            // parameter, a stray quote) may be anything
            return words.unreadable || words.position < sql.length() ? Effect.MAY_END : Effect.NONE;
        }
        if (!single(sql, words.position)) {
            return Effect.MAY_END;
        }
        if (first.equals("(") || isAny(first, LEAVES_TRANSACTION_ALONE)) {
            return Effect.NONE;
        }
        switch (first) {
            case "BEGIN" -> {
                String second = words.next();
                if (second == null || second.equals("WORK") || second.equals("TRANSACTION")
                        || (dialect == Dialect.POSTGRESQL && (second.equals("ISOLATION") || second.equals("READ")
                                || second.equals("DEFERRABLE") || second.equals("NOT")))) {
                    return Effect.BEGIN;
                }
                // MariaDB's BEGIN NOT ATOMIC .. END is a compound statement that may do anything
                return Effect.MAY_END;
            }
            case "START" -> {
                return "TRANSACTION".equals(words.next()) ? Effect.BEGIN : Effect.MAY_END;
            }
            case "COMMIT", "END" -> {
                if (first.equals("END") && dialect != Dialect.POSTGRESQL) {
                    return Effect.MAY_END;
                }
                return endsWithOptional(words) ? Effect.COMMIT : Effect.MAY_END;
            }
            case "ABORT" -> {
                return dialect == Dialect.POSTGRESQL && endsWithOptional(words) ? Effect.ROLLBACK : Effect.MAY_END;
            }
            case "ROLLBACK" -> {
                String second = words.next();
                if (second != null && (second.equals("WORK") || second.equals("TRANSACTION"))) {
                    second = words.next();
                }
                if (second == null) {
                    return Effect.ROLLBACK;
                }
                if (second.equals("TO")) {
                    return Effect.ROLLBACK_TO_SAVEPOINT;
                }
                return Effect.MAY_END;
            }
            case "SAVEPOINT" -> {
                return Effect.SAVEPOINT;
            }
            case "RELEASE" -> {
                return Effect.RELEASE_SAVEPOINT;
            }
            case "SET" -> {
                // PostgreSQL has no server-side autocommit; MariaDB's and H2's SET AUTOCOMMIT may commit
                return dialect == Dialect.POSTGRESQL || !mentionsAutocommit(sql) ? Effect.NONE : Effect.MAY_END;
            }
            default -> {
                if (isAny(first, IMPLICITLY_COMMITTING)) {
                    if (dialect == Dialect.POSTGRESQL) {
                        return Effect.NONE;   // transactional DDL
                    }
                    String second = words.next();
                    if (dialect == Dialect.MARIADB && ("TEMPORARY".equals(second)
                            || (first.equals("CREATE") && "OR".equals(second)))) {
                        // temporary tables commit nothing on MariaDB; CREATE OR REPLACE: say "may"
                        return Effect.MAY_END;
                    }
                    return dialect == Dialect.GENERIC ? Effect.MAY_END : Effect.IMPLICIT_COMMIT;
                }
                return Effect.MAY_END;
            }
        }
    }

    /** True when nothing but {@code WORK}/{@code TRANSACTION} follows the first word. */
    private static boolean endsWithOptional(Words words) {
        String next = words.next();
        if (next != null && (next.equals("WORK") || next.equals("TRANSACTION"))) {
            next = words.next();
        }
        return next == null && !words.unreadable;
    }

    /** True when the text holds one statement: no semicolon other than trailing ones. */
    private static boolean single(String sql, int from) {
        int semicolon = sql.indexOf(';', from);
        if (semicolon < 0) {
            return true;
        }
        for (int i = semicolon; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (c != ';' && !Character.isWhitespace(c)) {
                return false;
            }
        }
        return true;
    }

    private static boolean mentionsAutocommit(String sql) {
        int n = sql.length() - "AUTOCOMMIT".length();
        for (int i = 0; i <= n; i++) {
            if (sql.regionMatches(true, i, "AUTOCOMMIT", 0, "AUTOCOMMIT".length())) {
                return true;
            }
        }
        return false;
    }

    private static boolean isAny(String word, String[] words) {
        for (String candidate : words) {
            if (candidate.equals(word)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The leading words of a text, upper-cased, past white space and comments. Only words are
     * read: anything else ends the reading (a '(' is returned as a word of its own).
     */
    private static final class Words {
        private final String sql;
        private final Dialect dialect;
        int position;
        /** True when a comment does not end: the text is not what it seems. */
        boolean unreadable;

        Words(String sql, Dialect dialect) {
            this.sql = sql;
            this.dialect = dialect;
        }

        String next() {
            skipBlanksAndComments();
            int n = sql.length();
            if (unreadable || position >= n) {
                return null;
            }
            char c = sql.charAt(position);
            if (c == '(') {
                position++;
                return "(";
            }
            int start = position;
            while (position < n && isWordChar(sql.charAt(position))) {
                position++;
            }
            if (position == start) {
                return null;
            }
            return sql.substring(start, position).toUpperCase(java.util.Locale.ROOT);
        }

        private static boolean isWordChar(char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
        }

        private void skipBlanksAndComments() {
            int n = sql.length();
            while (position < n) {
                char c = sql.charAt(position);
                if (Character.isWhitespace(c)) {
                    position++;
                } else if (c == '-' && position + 1 < n && sql.charAt(position + 1) == '-') {
                    skipLine();
                } else if (c == '#' && dialect == Dialect.MARIADB) {
                    skipLine();
                } else if (c == '/' && position + 1 < n && sql.charAt(position + 1) == '*') {
                    if (dialect == Dialect.MARIADB && position + 2 < n && sql.charAt(position + 2) == '!') {
                        // an executable comment is SQL to MariaDB
                        unreadable = true;
                        return;
                    }
                    skipBlock();
                    if (unreadable) {
                        return;
                    }
                } else {
                    return;
                }
            }
        }

        private void skipLine() {
            int n = sql.length();
            while (position < n && sql.charAt(position) != '\n' && sql.charAt(position) != '\r') {
                position++;
            }
        }

        private void skipBlock() {
            int n = sql.length();
            boolean nests = dialect != Dialect.MARIADB;
            int depth = 0;
            while (position < n) {
                if (sql.startsWith("/*", position)) {
                    if (depth == 0 || nests) {
                        depth++;
                    }
                    position += 2;
                } else if (sql.startsWith("*/", position)) {
                    depth--;
                    position += 2;
                    if (depth == 0) {
                        return;
                    }
                } else {
                    position++;
                }
            }
            unreadable = true;
        }
    }
}
