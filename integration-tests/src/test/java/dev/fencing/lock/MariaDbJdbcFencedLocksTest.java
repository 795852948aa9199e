package dev.fencing.lock;

import dev.fencing.testing.TestDatabase;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;

/** {@link JdbcFencedLocks} on the MariaDB at {@code FENCING_MARIADB_URL}, in a database of its own. */
@TestDatabase(TestDatabase.Kind.MARIADB)
class MariaDbJdbcFencedLocksTest extends JdbcFencedLocksContract {

    @BeforeAll
    void start(DataSource database) throws Exception {
        setUp(database);
    }

    @Override
    protected String label() {
        return "JDBC MariaDB";
    }
}
