package dev.fencing.internal.txn;

import dev.fencing.internal.sql.Dialect;
import dev.fencing.internal.sql.SqlComments;
import dev.fencing.internal.sql.StatementHead;

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
public final class TransactionText {

    /** What a text does to the transaction. */
    public enum Effect {
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

    private TransactionText() {
    }

    /** The effect of {@code sql} on the transaction, on a database of {@code dialect}. Allocates nothing. */
    public static Effect of(String sql, Dialect dialect) {
        if (sql == null) {
            return Effect.NONE;
        }
        int start = skip(sql, 0, dialect);
        if (start < 0) {
            return Effect.MAY_END;   // a comment that does not end: the text is not what it seems
        }
        if (start == sql.length()) {
            return Effect.NONE;
        }
        int end = wordEnd(sql, start);
        if (!single(sql, end)) {
            return Effect.MAY_END;
        }
        if (sql.charAt(start) == '(') {
            return Effect.NONE;
        }
        if (end == start) {
            // not a word ({call ..}, a parameter, a stray quote): it may be anything
            return Effect.MAY_END;
        }
        if (StatementHead.leavesTransactionAlone(sql, start, end)) {
            return Effect.NONE;
        }
        return ofHead(sql, start, end, dialect);
    }

    /** The effect of a single statement headed by the word {@code sql[start, end)}, not a plain query or write. */
    private static Effect ofHead(String sql, int start, int end, Dialect dialect) {
        int next = skip(sql, end, dialect);
        int nextEnd = next < 0 ? next : wordEnd(sql, next);
        if (is(sql, start, end, "BEGIN")) {
            return begin(sql, next, nextEnd, dialect);
        }
        if (is(sql, start, end, "START")) {
            return next >= 0 && is(sql, next, nextEnd, "TRANSACTION") ? Effect.BEGIN : Effect.MAY_END;
        }
        boolean postgres = dialect.postgresTransactionWords();
        if (is(sql, start, end, "COMMIT") || (postgres && is(sql, start, end, "END"))) {
            return nothingMoreThanWork(sql, next, nextEnd, dialect) ? Effect.COMMIT : Effect.MAY_END;
        }
        if (postgres && is(sql, start, end, "ABORT")) {
            return nothingMoreThanWork(sql, next, nextEnd, dialect) ? Effect.ROLLBACK : Effect.MAY_END;
        }
        if (is(sql, start, end, "ROLLBACK")) {
            return rollback(sql, next, nextEnd, dialect);
        }
        if (is(sql, start, end, "SAVEPOINT")) {
            return Effect.SAVEPOINT;
        }
        if (is(sql, start, end, "RELEASE")) {
            return Effect.RELEASE_SAVEPOINT;
        }
        if (is(sql, start, end, "SET")) {
            // PostgreSQL has no server-side autocommit; MariaDB's and H2's SET AUTOCOMMIT may commit
            return !dialect.serverSideAutocommit() || !mentionsAutocommit(sql) ? Effect.NONE : Effect.MAY_END;
        }
        if (StatementHead.implicitlyCommits(sql, start, end)) {
            return ddl(sql, start, end, next, nextEnd, dialect);
        }
        return Effect.MAY_END;
    }

    /** {@code BEGIN [WORK | TRANSACTION | PostgreSQL's transaction modes]}; MariaDB's {@code BEGIN NOT ATOMIC} may do anything. */
    private static Effect begin(String sql, int next, int nextEnd, Dialect dialect) {
        if (next < 0) {
            return Effect.MAY_END;
        }
        if (next == nextEnd || is(sql, next, nextEnd, "WORK") || is(sql, next, nextEnd, "TRANSACTION")
                || (dialect.postgresTransactionWords() && (is(sql, next, nextEnd, "ISOLATION")
                        || is(sql, next, nextEnd, "READ") || is(sql, next, nextEnd, "DEFERRABLE")
                        || is(sql, next, nextEnd, "NOT")))) {
            return next == nextEnd && next < sql.length() && !trailing(sql, next) ? Effect.MAY_END : Effect.BEGIN;
        }
        // MariaDB's BEGIN NOT ATOMIC .. END is a compound statement that may do anything
        return Effect.MAY_END;
    }

    /** {@code ROLLBACK [WORK | TRANSACTION] [TO [SAVEPOINT] name]}. */
    private static Effect rollback(String sql, int next, int nextEnd, Dialect dialect) {
        if (next < 0) {
            return Effect.MAY_END;
        }
        if (is(sql, next, nextEnd, "WORK") || is(sql, next, nextEnd, "TRANSACTION")) {
            next = skip(sql, nextEnd, dialect);
            if (next < 0) {
                return Effect.MAY_END;
            }
            nextEnd = wordEnd(sql, next);
        }
        if (trailing(sql, next)) {
            return Effect.ROLLBACK;
        }
        return is(sql, next, nextEnd, "TO") ? Effect.ROLLBACK_TO_SAVEPOINT : Effect.MAY_END;
    }

    /** DDL: transactional on PostgreSQL, committed implicitly by MariaDB and H2. */
    private static Effect ddl(String sql, int start, int end, int next, int nextEnd, Dialect dialect) {
        if (dialect.transactionalDdl()) {
            return Effect.NONE;
        }
        if (dialect.implicitCommitDependsOnTheForm() && next >= 0 && (is(sql, next, nextEnd, "TEMPORARY")
                || (is(sql, start, end, "CREATE") && is(sql, next, nextEnd, "OR")))) {
            // temporary tables commit nothing on MariaDB; CREATE OR REPLACE: say "may"
            return Effect.MAY_END;
        }
        return dialect.knowsImplicitCommits() ? Effect.IMPLICIT_COMMIT : Effect.MAY_END;
    }

    /** True when, from {@code next} on, there is at most {@code WORK} or {@code TRANSACTION}. */
    private static boolean nothingMoreThanWork(String sql, int next, int nextEnd, Dialect dialect) {
        if (next < 0) {
            return false;
        }
        if (trailing(sql, next)) {
            return true;
        }
        if (!is(sql, next, nextEnd, "WORK") && !is(sql, next, nextEnd, "TRANSACTION")) {
            return false;
        }
        int after = skip(sql, nextEnd, dialect);
        return after >= 0 && trailing(sql, after);
    }

    /** True when only semicolons and white space are left from {@code from}. */
    private static boolean trailing(String sql, int from) {
        for (int i = from; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (c != ';' && !Character.isWhitespace(c)) {
                return false;
            }
        }
        return true;
    }

    /** True when the text holds one statement: no semicolon other than trailing ones. */
    private static boolean single(String sql, int from) {
        int semicolon = sql.indexOf(';', from);
        return semicolon < 0 || trailing(sql, semicolon);
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

    private static boolean is(String sql, int start, int end, String word) {
        return end - start == word.length() && sql.regionMatches(true, start, word, 0, word.length());
    }

    /** The end of the word (ASCII letters and '_') at {@code start}. */
    private static int wordEnd(String sql, int start) {
        int i = start;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')) {
                break;
            }
            i++;
        }
        return i;
    }

    /**
     * The position of the first character from {@code position} that is neither white space nor
     * inside a comment; -1 when a comment does not end, or an executable comment (SQL to MariaDB)
     * starts.
     */
    private static int skip(String sql, int position, Dialect dialect) {
        int n = sql.length();
        int i = position;
        while (i < n) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if ((c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') || (c == '#' && dialect.hashComments())) {
                while (i < n && sql.charAt(i) != '\n' && sql.charAt(i) != '\r') {
                    i++;
                }
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                if (dialect.executableComments() && SqlComments.opensExecutableComment(sql, i)) {
                    return -1;
                }
                i = skipBlock(sql, i, dialect.nestedBlockComments());
                if (i < 0) {
                    return -1;
                }
            } else {
                return i;
            }
        }
        return i;
    }

    /** The position after the block comment at {@code start}, or -1 when it does not end. */
    private static int skipBlock(String sql, int start, boolean nests) {
        int n = sql.length();
        int depth = 0;
        int i = start;
        while (i < n) {
            if (sql.startsWith("/*", i)) {
                if (depth == 0 || nests) {
                    depth++;
                }
                i += 2;
            } else if (sql.startsWith("*/", i)) {
                depth--;
                i += 2;
                if (depth == 0) {
                    return i;
                }
            } else {
                i++;
            }
        }
        return -1;
    }
}
