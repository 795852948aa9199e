package dev.fencing.lock;

import org.junit.jupiter.api.BeforeAll;

/** {@link JdbcFencedLocks} on the MariaDB at {@code FENCING_MARIADB_URL}, in a table of its own. */
class MariaDbJdbcFencedLocksTest extends JdbcFencedLocksContract {

    @BeforeAll
    void start() throws Exception {
        setUp(TestServices.MARIADB_URL);
    }

    @Override
    protected String label() {
        return "JDBC MariaDB";
    }
}
