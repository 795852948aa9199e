package dev.fencing.lock;

import org.junit.jupiter.api.BeforeAll;

/** {@link JdbcFencedLocks} on the PostgreSQL at {@code FENCING_PG_URL}, in a table of its own. */
class PostgresJdbcFencedLocksTest extends JdbcFencedLocksContract {

    @BeforeAll
    void start() throws Exception {
        setUp(TestServices.PG_URL);
    }

    @Override
    protected String label() {
        return "JDBC PostgreSQL";
    }
}
