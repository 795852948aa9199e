package dev.fencing.lock;

import java.util.Locale;

/**
 * The SQL that differs between the databases {@link JdbcFencedLocks} supports: the table's
 * DDL, the database clock in epoch milliseconds, how the claiming statement reports the
 * fence it set, and how a row is inserted only when absent.
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
            // ON CONFLICT DO NOTHING: a waiter's attempt on an existing row is not an error
            // (which PostgreSQL would log each time).
            return insert(table) + " ON CONFLICT (lock_name) DO NOTHING";
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
     * Creates the row of a lock never taken before, taken by the caller with fence 1.
     * Parameters: lock name, owner, TTL millis. Changes no row, or fails with an integrity
     * violation, when the row exists.
     */
    String insertIfAbsent(String table) {
        return insert(table);
    }

    final String insert(String table) {
        return "INSERT INTO " + table + " (lock_name, owner, fence, expires_at) VALUES (?, ?, 1, " + nowMillis + " + ?)";
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
}
