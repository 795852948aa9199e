package dev.fencing.internal.sql;

import java.util.Locale;

/**
 * One object per database that owns what is peculiar to it (as Hibernate's {@code Dialect}
 * subclasses do): how its transaction texts read, and the SQL of the epoch guard table. The
 * lexer's rules are still asked of it by {@link SqlTokens} directly.
 */
public enum Dialect {
    POSTGRESQL {
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

        // ON CONFLICT DO NOTHING: a row that exists is not an error, so the transaction goes on
        @Override
        public String epochInsertIfAbsent(String table) {
            return "INSERT INTO " + table + " (lock_name, fence) VALUES (?, ?) ON CONFLICT (lock_name) DO NOTHING";
        }

        @Override
        public String epochTableDdl(String table) {
            return "CREATE TABLE IF NOT EXISTS " + table + " (lock_name VARCHAR(255) PRIMARY KEY, fence BIGINT NOT NULL)";
        }
    },
    H2 {
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
    },
    MARIADB {
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
    },
    /** Any other database: standard quoting; only the forms common to all dialects are fenced. */
    GENERIC {
        @Override
        public boolean knowsImplicitCommits() {
            return false;
        }
    };

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

    // ---- the epoch guard table ---------------------------------------------------------------

    /** The claim's row insert, doing nothing when the row exists (binds lock, fence); null when unsupported. */
    public String epochInsertIfAbsent(String table) {
        return null;
    }

    /** The guard table's DDL ({@code IF NOT EXISTS}); null when unsupported. */
    public String epochTableDdl(String table) {
        return null;
    }

    /** True when the guard's read after an unchanged raise must lock the row (MariaDB: InnoDB snapshots). */
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
}
