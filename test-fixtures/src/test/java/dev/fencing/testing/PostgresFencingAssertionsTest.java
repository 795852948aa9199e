package dev.fencing.testing;

import javax.sql.DataSource;

@TestDatabase(TestDatabase.Kind.POSTGRESQL)
class PostgresFencingAssertionsTest extends FencingAssertionsContract {
    PostgresFencingAssertionsTest(DataSource db) {
        super(db);
    }
}
