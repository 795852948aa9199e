package dev.fencing.lock;

import org.junit.jupiter.api.BeforeAll;

/** {@link JdbcFencedLocks} on an in-memory H2 database. */
class H2JdbcFencedLocksTest extends JdbcFencedLocksContract {

    @BeforeAll
    void start() throws Exception {
        setUp("jdbc:h2:mem:" + table + ";DB_CLOSE_DELAY=-1");
    }

    @Override
    protected String label() {
        return "JDBC H2 in-memory";
    }
}
