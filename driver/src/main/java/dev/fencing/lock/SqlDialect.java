package dev.fencing.lock;

import java.util.Locale;

/**
 * The SQL that differs between the databases {@link JdbcFencedLocks} supports: the table's
 * DDL, the database clock in epoch milliseconds, how the claiming statement reports the
 * fence it set, how a row is inserted only when absent, and how one statement gets a durable
 * commit and a time limit of its own.
 *
 * <p>All times come from the database's clock, so application servers whose clocks disagree
 * still agree on when a lock expires.
 */
enum SqlDialect {

    POSTGRESQL("CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)") {
        @Override
        String createTable(String table) {
            return "CREATE TABLE IF NOT EXISTS " + table + " ("
                    + "lock_name VARCHAR(255) PRIMARY KEY, "
                    + "owner VARCHAR(64) NULL, "
                    + "fence BIGINT NOT NULL, "
                    + "expires_at BIGINT NOT NULL)";
        }

        @Override
        String claim(String table) {
            return claimUpdate(table, "fence + 1") + " RETURNING fence";
        }

        @Override
        String insertIfAbsent(String table) {
            // ON CONFLICT DO NOTHING: a racing first acquire is not an error (which
            // PostgreSQL would log each time).
            return insert(table) + " ON CONFLICT (lock_name) DO NOTHING";
        }

        @Override
        String limited(String statement, long timeoutMillis) {
            // A leading statement in the same implicit transaction (the extended protocol
            // commits at Sync, after both): the commit waits for the WAL flush even on a server
            // running with synchronous_commit = off, and the statement after it runs under its
            // own statement_timeout. set_config(.., true) is SET LOCAL without its warning.
            return "SELECT set_config('synchronous_commit', 'on', true), set_config('statement_timeout', '"
                    + timeoutMillis + "', true); " + statement;
        }

        @Override
        boolean leadingStatement() {
            return true;
        }
    },

    MARIADB("(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)") {
        @Override
        String createTable(String table) {
            // A binary collation: lock names compare exactly, as in the other databases
            // (the default collation would make 'Order:1' and 'order:1' one lock).
            return "CREATE TABLE IF NOT EXISTS " + table + " ("
                    + "lock_name VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PRIMARY KEY, "
                    + "owner VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL, "
                    + "fence BIGINT NOT NULL, "
                    + "expires_at BIGINT NOT NULL) ENGINE=InnoDB";
        }

        @Override
        String claim(String table) {
            // UPDATE has no RETURNING here. LAST_INSERT_ID(expr) returns expr and makes the
            // server report it in the update's own reply, as the insert id: read back as the
            // generated key, without a second statement or a transaction.
            return claimUpdate(table, "LAST_INSERT_ID(fence + 1)");
        }

        @Override
        boolean reportsFenceAsGeneratedKey() {
            return true;
        }

        @Override
        String insertIfAbsent(String table) {
            // IGNORE turns the duplicate key of a racing first acquire into a warning instead
            // of an error that the driver logs. The values are the store's own (a checked
            // name, a UUID, numbers), so no other error can be ignored with it.
            return "INSERT IGNORE" + insert(table).substring("INSERT".length());
        }

        @Override
        String limited(String statement, long timeoutMillis) {
            // Durability cannot be chosen per session here (innodb_flush_log_at_trx_commit is
            // global; the store warns when it is not 1). The time limit can, per statement.
            return "SET STATEMENT max_statement_time = " + seconds(timeoutMillis) + " FOR " + statement;
        }
    },

    H2("DATEDIFF(MILLISECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', CURRENT_TIMESTAMP(3))") {
        @Override
        String createTable(String table) {
            return POSTGRESQL.createTable(table);
        }

        @Override
        String claim(String table) {
            return "SELECT fence FROM FINAL TABLE (" + claimUpdate(table, "fence + 1") + ")";
        }

        @Override
        String insertIfAbsent(String table) {
            // Only a first acquire racing another one can still meet the primary key.
            return "INSERT INTO " + table + " (lock_name, owner, fence, expires_at)"
                    + " SELECT CAST(? AS VARCHAR(255)), CAST(? AS VARCHAR(64)), 1, " + nowMillis() + " + CAST(? AS BIGINT)"
                    + " WHERE NOT EXISTS (SELECT 1 FROM " + table + " WHERE lock_name = ?)";
        }

        @Override
        boolean insertRepeatsName() {
            return true;
        }

        @Override
        String limited(String statement, long timeoutMillis) {
            // Neither durability nor a time limit can be chosen per statement. H2 commits as its
            // WRITE_DELAY says. The waits a time limit would cut short are row-lock waits,
            // which H2's own LOCK_TIMEOUT (1 s by default) ends; a JDBC query timeout would
            // cost more than the statement. The network timeout bounds a remote H2.
            return statement;
        }
    };

    private final String nowMillis;

    SqlDialect(String nowMillis) {
        this.nowMillis = nowMillis;
    }

    /** The dialect of a database, by its JDBC product name; null when it is not supported. */
    static SqlDialect forProductName(String productName) {
        String name = productName == null ? "" : productName.toLowerCase(Locale.ROOT);
        if (name.contains("postgresql")) {
            return POSTGRESQL;
        }
        if (name.contains("mariadb") || name.contains("mysql")) {
            return MARIADB;
        }
        if (name.equals("h2")) {
            return H2;
        }
        return null;
    }

    final String nowMillis() {
        return nowMillis;
    }

    /** The statement that creates the lock table if it does not exist. */
    abstract String createTable(String table);

    /**
     * Takes an existing lock row if it is free or expired and increments its fence, in one
     * statement, which also reports the new fence: as its result set, or (when
     * {@link #reportsFenceAsGeneratedKey()}) as its generated key. Parameters: owner, TTL
     * millis, lock name.
     */
    abstract String claim(String table);

    /** Whether {@link #claim} reports the new fence as a generated key instead of a row. */
    boolean reportsFenceAsGeneratedKey() {
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
    final String remainingTtl(String table) {
        return "SELECT expires_at - " + nowMillis + " FROM " + table + " WHERE lock_name = ?";
    }

    /**
     * Creates the row of a lock never taken before, taken by the caller with fence 1, without
     * an error when it exists (0 rows). Parameters: lock name, owner, TTL millis (and the lock
     * name again when {@link #insertRepeatsName()}).
     */
    abstract String insertIfAbsent(String table);

    /** Whether {@link #insertIfAbsent} takes the lock name a second time, last. */
    boolean insertRepeatsName() {
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
    abstract String limited(String statement, long timeoutMillis);

    /** Whether {@link #limited} puts a statement of its own (one result) before the caller's. */
    boolean leadingStatement() {
        return false;
    }

    /** Frees the lock if the caller still holds it. Parameters: lock name, owner, fence. */
    String release(String table) {
        return "UPDATE " + table + " SET owner = NULL WHERE lock_name = ? AND owner = ? AND fence = ?";
    }

    /**
     * Resets the expiry if the caller still holds the lock and it has not expired.
     * Parameters: TTL millis, lock name, owner, fence.
     */
    String extend(String table) {
        return "UPDATE " + table + " SET expires_at = " + nowMillis + " + ?"
                + " WHERE lock_name = ? AND owner = ? AND fence = ? AND expires_at > " + nowMillis;
    }

    private static String seconds(long millis) {
        millis = Math.max(1, millis); // 0 would mean no limit at all
        return String.format(Locale.ROOT, "%d.%03d", millis / 1000, millis % 1000);
    }
}
