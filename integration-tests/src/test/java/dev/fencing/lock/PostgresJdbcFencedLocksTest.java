package dev.fencing.lock;

import dev.fencing.testing.TestDatabase;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;

/** {@link JdbcFencedLocks} on the PostgreSQL at {@code FENCING_PG_URL}, in a schema of its own. */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
class PostgresJdbcFencedLocksTest extends JdbcFencedLocksContract {

    @BeforeAll
    void start(DataSource database) throws Exception {
        setUp(database);
    }

    @Override
    protected String label() {
        return "JDBC PostgreSQL";
    }
}
