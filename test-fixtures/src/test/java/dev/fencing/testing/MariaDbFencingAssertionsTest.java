package dev.fencing.testing;

import javax.sql.DataSource;

@TestDatabase(TestDatabase.Kind.MARIADB)
class MariaDbFencingAssertionsTest extends FencingAssertionsContract {
    MariaDbFencingAssertionsTest(DataSource db) {
        super(db);
    }
}
