package dev.fencing.internal.sql;

import java.sql.SQLException;
import java.util.Locale;

/**
 * One object per database that owns what is peculiar to it (as Hibernate's {@code Dialect}
 * subclasses do): how its transaction texts read, the SQL of the epoch table and the SQL of
 * {@code JdbcFencedLocks}' lock table (the lock package's dialect enum is merged in here), how its
 * lexer reads ({@link #lexing()}), how names and strings are quoted, the statement forms the
 * analysis must know ({@link StatementForms}) and how its sessions behave ({@link SessionRules}).
 * Code outside asks it a named fact, never which database it is.
 */
public enum Dialect implements StatementForms, SessionRules {
    POSTGRESQL("CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)", SqlLexing.STANDARD) {
        @Override
        public boolean transactionalDdl() {
            return true;
        }

        @Override
        public boolean postgresTransactionWords() {
            return true;
        }

        @Override
        public boolean serverSideAutocommit() {
            return false;
        }

        @Override
        public boolean writesLargeObjectsByFunction() {
            return true;
        }

        @Override
        public boolean hasSetConfig() {
            return true;
        }

        @Override
        public boolean starAfterTableNameMeansDescendants() {
            return true;
        }

        @Override
        public boolean truncateMayCascade() {
            return true;
        }

        @Override
        public boolean executeImmediateRunsAString() {
            return false;
        }

        @Override
        public boolean driverSendsDoubledQuestionMarkAsOne() {
            return true;
        }

        @Override
        public boolean statementCarriesTheFenceToTheGuard() {
            return true;
        }

        @Override
        public boolean errorFailsTheTransaction() {
            return true;
        }

        @Override
        public boolean savepointProbesTheTransaction() {
            return true;
        }

        @Override
        public boolean driverMayReportItsSession() {
            return true;
        }

        // ON CONFLICT DO NOTHING: a row that exists is not an error, so the transaction goes on
        @Override
        public String epochInsertIfAbsent(String table) {
            return "INSERT INTO " + table + " (lock_name, fence) VALUES (?, ?) ON CONFLICT (lock_name) DO NOTHING";
        }

        @Override
        public String epochTableDdl(String table) {
            return "CREATE TABLE IF NOT EXISTS " + table + " (lock_name VARCHAR(255) PRIMARY KEY, fence BIGINT NOT NULL)";
        }

        @Override
        public String lockClaim(String table) {
            return claimUpdate(table, "fence + 1") + " RETURNING fence";
        }

        @Override
        public String lockInsertIfAbsent(String table) {
            return insert(table) + " ON CONFLICT (lock_name) DO NOTHING";
        }

        @Override
        public String lockLimited(String statement, long timeoutMillis) {
            return "SELECT set_config('synchronous_commit', 'on', true), set_config('statement_timeout', '"
                    + timeoutMillis + "', true); " + statement;
        }

        @Override
        public boolean lockLimitLeadsWithAStatement() {
            return true;
        }

        // pgjdbc's own encoding: Java characters to UTF-8 bytes and back, one to one
        @Override
        public boolean readsClientEncodingExactly(String encoding) {
            return encoding.equalsIgnoreCase("UTF8") || encoding.equalsIgnoreCase("UTF-8");
        }

        @Override
        public String exactClientEncodings() {
            return "client_encoding UTF8";
        }

        @Override
        public String clientEncodingQuery() {
            return "SHOW client_encoding";
        }
    },
    H2("DATEDIFF(MILLISECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', CURRENT_TIMESTAMP(3))", SqlLexing.H2) {
        @Override
        public boolean backslashEscapingDependsOnSession() {
            return false;
        }

        @Override
        public boolean dataChangeDeltaTables() {
            return true;
        }

        @Override
        public boolean autoCommitReportsTextTransactions() {
            return true;
        }

        @Override
        public String sessionMigrationMark() {
            return "SELECT SET(@FENCING_MIGRATION, ?)";
        }

        // H2 rolls back only the failed statement on a duplicate key, never the transaction;
        // MERGE .. WHEN NOT MATCHED avoids the error in all but a concurrent insert
        @Override
        public String epochInsertIfAbsent(String table) {
            return "MERGE INTO " + table + " g USING (VALUES (CAST(? AS VARCHAR(255)), CAST(? AS BIGINT)))"
                    + " AS v (lock_name, fence) ON g.lock_name = v.lock_name"
                    + " WHEN NOT MATCHED THEN INSERT (lock_name, fence) VALUES (v.lock_name, v.fence)";
        }

        @Override
        public String epochTableDdl(String table) {
            return POSTGRESQL.epochTableDdl(table);
        }

        @Override
        public boolean epochDuplicateKeyIsAnError() {
            return true;
        }

        @Override
        public String lockClaim(String table) {
            return "SELECT fence FROM FINAL TABLE (" + claimUpdate(table, "fence + 1") + ")";
        }

        @Override
        public String lockInsertIfAbsent(String table) {
            return "INSERT INTO " + table + " (lock_name, owner, fence, expires_at)"
                    + " SELECT CAST(? AS VARCHAR(255)), CAST(? AS VARCHAR(64)), 1, " + lockNowMillis()
                    + " + CAST(? AS BIGINT) WHERE NOT EXISTS (SELECT 1 FROM " + table + " WHERE lock_name = ?)";
        }

        @Override
        public boolean lockInsertRepeatsName() {
            return true;
        }
    },
    MARIADB("(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)", SqlLexing.MARIADB) {
        @Override
        public boolean hashComments() {
            return true;
        }

        @Override
        public boolean executableComments() {
            return true;
        }

        @Override
        public boolean nestedBlockComments() {
            return false;
        }

        @Override
        public boolean implicitCommitDependsOnTheForm() {
            return true;
        }

        @Override
        public boolean describeExplains() {
            return true;
        }

        @Override
        public boolean rowChangeTailIsOrderByLimit() {
            return true;
        }

        @Override
        public boolean deleteMayNameItsTargetBeforeFrom() {
            return true;
        }

        @Override
        public boolean writesTakeModifierWords() {
            return true;
        }

        @Override
        public boolean compoundStatementsInTexts() {
            return true;
        }

        @Override
        public boolean setStatementForRunsAStatement() {
            return true;
        }

        @Override
        public String fenceCastType() {
            return "SIGNED";
        }

        @Override
        public boolean isLockWaitTimeout(SQLException failure) {
            return failure.getErrorCode() == 1205;
        }

        @Override
        public String inTransactionQuery() {
            return "SELECT @@in_transaction <> 0";
        }

        @Override
        public String sessionMigrationMark() {
            return "SET @fencing_migration = ?";
        }

        // INSERT IGNORE turns the duplicate key into a warning; the lock name's length is
        // checked before (IGNORE would also truncate a long one)
        @Override
        public String epochInsertIfAbsent(String table) {
            return "INSERT IGNORE INTO " + table + " (lock_name, fence) VALUES (?, ?)";
        }

        // binary collation: lock names compare exactly, as in the other databases
        @Override
        public String epochTableDdl(String table) {
            return "CREATE TABLE IF NOT EXISTS " + table
                    + " (lock_name VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PRIMARY KEY,"
                    + " fence BIGINT NOT NULL) ENGINE=InnoDB";
        }

        @Override
        public boolean epochReadLocks() {
            return true;
        }

        @Override
        public boolean countsChangedRowsOnly() {
            return true;
        }

        @Override
        public String lockTableDdl(String table) {
            return "CREATE TABLE IF NOT EXISTS " + table + " ("
                    + "lock_name VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PRIMARY KEY, "
                    + "owner VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL, "
                    + "fence BIGINT NOT NULL, "
                    + "expires_at BIGINT NOT NULL) ENGINE=InnoDB";
        }

        @Override
        public String lockClaim(String table) {
            return claimUpdate(table, "LAST_INSERT_ID(fence + 1)");
        }

        @Override
        public boolean lockClaimReportsGeneratedKey() {
            return true;
        }

        @Override
        public String lockInsertIfAbsent(String table) {
            return "INSERT IGNORE" + insert(table).substring("INSERT".length());
        }

        @Override
        public String lockLimited(String statement, long timeoutMillis) {
            return "SET STATEMENT max_statement_time = " + seconds(timeoutMillis) + " FOR " + statement;
        }

        // Connector/J sends UTF-8 whatever the session says: read as UTF-8 (utf8mb3 too, where a
        // four-byte character is invalid bytes, none of them ASCII) the bytes are the characters.
        // Not latin1: there byte 0xA0 of U+00A0 is white space, so one name to the lexer is two
        // to the server. Multi-byte sets whose second bytes include ASCII (sjis, cp932, gbk, big5)
        // swallow a quote or backslash.
        @Override
        public boolean readsClientEncodingExactly(String encoding) {
            String name = encoding.toLowerCase(Locale.ROOT);
            return name.equals("utf8mb4") || name.equals("utf8mb3") || name.equals("utf8");
        }

        @Override
        public String exactClientEncodings() {
            return "character_set_client utf8mb4 (or utf8mb3)";
        }

        @Override
        public String clientEncodingQuery() {
            return "SELECT @@character_set_client";
        }
    },
    /** Any other database: standard quoting; only the forms common to all dialects are fenced. */
    GENERIC(null, SqlLexing.STANDARD) {
        @Override
        public boolean knowsImplicitCommits() {
            return false;
        }
    };

    /** The database clock in epoch milliseconds, as SQL; null where locks are not supported. */
    private final String nowMillis;
    private final SqlLexing lexing;

    Dialect(String nowMillis, SqlLexing lexing) {
        this.nowMillis = nowMillis;
        this.lexing = lexing;
    }

    /** How this database's lexer reads a text, as far as {@link SqlTokens} must read it the same way. */
    SqlLexing lexing() {
        return lexing;
    }

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

    // ---- the bytes a server reads ---------------------------------------------------------------

    /**
     * True when the session's client encoding decides which bytes the server reads, so a text
     * the analysis could misread is checked against it (PostgreSQL and MariaDB); H2 receives
     * Java strings, and for other databases the encoding is not known.
     */
    public boolean checksClientEncoding() {
        return clientEncodingQuery() != null;
    }

    /**
     * True when a server reading the JDBC driver's bytes in {@code encoding} reads exactly the
     * characters the analysis read: no quote, backslash, backtick or comment mark appears,
     * disappears or moves.
     */
    public boolean readsClientEncodingExactly(String encoding) {
        return true;
    }

    /** The encodings {@link #readsClientEncodingExactly} accepts, as a user would set them. */
    public String exactClientEncodings() {
        return "";
    }

    /** The query that answers the session's client encoding now; null where it is not checked. */
    public String clientEncodingQuery() {
        return null;
    }

    /** True when backslash escapes characters inside '...' strings and "..." is a string too. */
    boolean mysqlLexing() {
        return this == MARIADB;
    }

    // ---- names and texts in the SQL the driver writes itself (the database guard's DDL) --------

    /** {@code name} as a quoted identifier: in backticks on MariaDB, else in double quotes; the quote doubled inside. */
    public String quoteIdentifier(String name) {
        return mysqlLexing() ? "`" + name.replace("`", "``") + "`" : "\"" + name.replace("\"", "\"\"") + "\"";
    }

    /** {@code text} as a string literal: quotes doubled, and backslashes too where they escape ({@link #mysqlLexing}). */
    public String quoteLiteral(String text) {
        return "'" + (mysqlLexing() ? text.replace("\\", "\\\\") : text).replace("'", "''") + "'";
    }

    // ---- transaction texts -------------------------------------------------------------------

    /** True when DDL runs inside the transaction (PostgreSQL); else MariaDB and H2 commit before it. */
    public boolean transactionalDdl() {
        return false;
    }

    /** True when {@code END} commits, {@code ABORT} rolls back and {@code BEGIN} takes transaction modes (PostgreSQL). */
    public boolean postgresTransactionWords() {
        return false;
    }

    /** True when {@code #} starts a comment to the end of the line (MariaDB). */
    public boolean hashComments() {
        return false;
    }

    /** True when {@code /*!..*}{@code /} is SQL to the server, not a comment (MariaDB). */
    public boolean executableComments() {
        return false;
    }

    /** True when block comments nest (every database here but MariaDB). */
    public boolean nestedBlockComments() {
        return true;
    }

    /** True when {@code SET autocommit} exists on the server and may commit (every database here but PostgreSQL). */
    public boolean serverSideAutocommit() {
        return true;
    }

    /**
     * True when whether DDL commits implicitly depends on its form (MariaDB: DDL of temporary tables
     * commits nothing, {@code CREATE OR REPLACE} is read as "may").
     */
    public boolean implicitCommitDependsOnTheForm() {
        return false;
    }

    /** True when which DDL commits implicitly is known (PostgreSQL, MariaDB, H2). */
    public boolean knowsImplicitCommits() {
        return true;
    }

    // ---- the epoch table (epoch mode) --------------------------------------------------------

    /** The claim's row insert, doing nothing when the row exists (binds lock, fence); null when unsupported. */
    public String epochInsertIfAbsent(String table) {
        return null;
    }

    /** The epoch table's DDL ({@code IF NOT EXISTS}); null when unsupported. */
    public String epochTableDdl(String table) {
        return null;
    }

    /** True when the epoch row's read after an unchanged raise must lock the row (MariaDB: InnoDB snapshots). */
    public boolean epochReadLocks() {
        return false;
    }

    /**
     * True when an update count counts changed rows only (MariaDB with {@code useAffectedRows=true}):
     * an UPDATE that set a value to what it was matched (and locked) a row yet counts none.
     */
    public boolean countsChangedRowsOnly() {
        return false;
    }

    /** True when a duplicate key on the insert-if-absent can still surface as an error to ignore (H2). */
    public boolean epochDuplicateKeyIsAnError() {
        return false;
    }

    // ---- the lock table of JdbcFencedLocks -------------------------------------------------------
    // All times come from the database's clock, so application servers whose clocks disagree
    // still agree on when a lock expires.

    /** True when {@code JdbcFencedLocks} runs on this database (PostgreSQL, MariaDB/MySQL, H2). */
    public boolean supportsLocks() {
        return nowMillis != null;
    }

    /** The database clock in epoch milliseconds, as SQL. */
    public final String lockNowMillis() {
        return nowMillis;
    }

    /** The statement that creates the lock table if it does not exist. */
    public String lockTableDdl(String table) {
        return "CREATE TABLE IF NOT EXISTS " + table + " ("
                + "lock_name VARCHAR(255) PRIMARY KEY, "
                + "owner VARCHAR(64) NULL, "
                + "fence BIGINT NOT NULL, "
                + "expires_at BIGINT NOT NULL)";
    }

    /**
     * Takes an existing lock row if it is free or expired and increments its fence, in one
     * statement, which also reports the new fence: as its result set, or (when
     * {@link #lockClaimReportsGeneratedKey()}) as its generated key. Parameters: owner, TTL
     * millis, lock name.
     */
    public String lockClaim(String table) {
        throw new UnsupportedOperationException("no lock table on " + this);
    }

    /** Whether {@link #lockClaim} reports the new fence as a generated key instead of a row. */
    public boolean lockClaimReportsGeneratedKey() {
        return false;
    }

    final String claimUpdate(String table, String newFence) {
        return "UPDATE " + table + " SET owner = ?, fence = " + newFence + ", expires_at = " + nowMillis + " + ?"
                + " WHERE lock_name = ? AND (owner IS NULL OR expires_at <= " + nowMillis + ")";
    }

    /**
     * How long the current holder's TTL still runs, in milliseconds, or no row when the lock
     * has never been taken. Parameter: lock name.
     */
    public final String lockRemainingTtl(String table) {
        return "SELECT expires_at - " + nowMillis + " FROM " + table + " WHERE lock_name = ?";
    }

    /**
     * Creates the row of a lock never taken before, taken by the caller with fence 1, without
     * an error when it exists (0 rows). Parameters: lock name, owner, TTL millis (and the lock
     * name again when {@link #lockInsertRepeatsName()}).
     */
    public String lockInsertIfAbsent(String table) {
        throw new UnsupportedOperationException("no lock table on " + this);
    }

    /** Whether {@link #lockInsertIfAbsent} takes the lock name a second time, last. */
    public boolean lockInsertRepeatsName() {
        return false;
    }

    final String insert(String table) {
        return "INSERT INTO " + table + " (lock_name, owner, fence, expires_at) VALUES (?, ?, 1, " + nowMillis + " + ?)";
    }

    /**
     * {@code statement} made to commit durably (where the database lets a session choose)
     * and to give up after {@code timeoutMillis} at the server (where it can be said per
     * statement). The parameters stay those of {@code statement}.
     */
    public String lockLimited(String statement, long timeoutMillis) {
        return statement;
    }

    /** Whether {@link #lockLimited} puts a statement of its own (one result) before the caller's. */
    public boolean lockLimitLeadsWithAStatement() {
        return false;
    }

    /** Frees the lock if the caller still holds it. Parameters: lock name, owner, fence. */
    public String lockRelease(String table) {
        return "UPDATE " + table + " SET owner = NULL WHERE lock_name = ? AND owner = ? AND fence = ?";
    }

    /**
     * Resets the expiry if the caller still holds the lock and it has not expired.
     * Parameters: TTL millis, lock name, owner, fence.
     */
    public String lockExtend(String table) {
        return "UPDATE " + table + " SET expires_at = " + nowMillis + " + ?"
                + " WHERE lock_name = ? AND owner = ? AND fence = ? AND expires_at > " + nowMillis;
    }

    static String seconds(long millis) {
        millis = Math.max(1, millis); // 0 would mean no limit at all
        return String.format(Locale.ROOT, "%d.%03d", millis / 1000, millis % 1000);
    }
}
