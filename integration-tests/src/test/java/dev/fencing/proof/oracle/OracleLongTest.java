package dev.fencing.proof.oracle;

import dev.fencing.proof.oracle.Setting.Database;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import javax.sql.DataSource;

/**
 * The long oracle run ({@code mvn -Plong}): 100,000 generated texts per database and setting by
 * default ({@code -Dfencing.oracle.long.texts}), with a seed taken from the clock unless
 * {@code -Dfencing.oracle.seed} fixes one; every report line names its seed, so a run can be
 * repeated. Figures per setting are printed as {@code oracle: ...} lines.
 */
@EnabledIfSystemProperty(named = "fencing.long", matches = "true")
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
class OracleLongTest {

    private final DataSource postgres;
    private final DataSource mariaDb;

    OracleLongTest(DataSource postgres, @TestDatabase(TestDatabase.Kind.MARIADB) DataSource mariaDb) {
        this.postgres = postgres;
        this.mariaDb = mariaDb;
    }

    private static int texts() {
        return Integer.getInteger("fencing.oracle.long.texts", 100_000);
    }

    private static long seed() {
        return Long.getLong("fencing.oracle.seed", System.currentTimeMillis());
    }

    @Test
    void postgresql() throws Exception {
        OracleTest.run(Database.POSTGRESQL, postgres, texts(), seed());
    }

    @Test
    void mariaDb() throws Exception {
        OracleTest.run(Database.MARIADB, mariaDb, texts(), seed());
    }

    @Test
    void h2() throws Exception {
        OracleTest.run(Database.H2, null, texts(), seed());
    }
}
