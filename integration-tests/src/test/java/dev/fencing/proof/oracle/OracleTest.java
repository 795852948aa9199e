package dev.fencing.proof.oracle;

import dev.fencing.proof.oracle.Setting.Database;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bounded, seeded oracle run of every build: a fixed number of generated texts per database
 * and setting (about two minutes for all three on a loaded two-core machine), the same texts every
 * time unless {@code -Dfencing.oracle.seed} says otherwise. A disagreement is shrunk, written to
 * the corpus and fails the test (unless issue 13 is still fixing its class; see
 * {@link FrontdoorClasses}). The long run is {@link OracleLongTest}.
 */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
class OracleTest {

    static final long DEFAULT_SEED = 20261201L;

    private final DataSource postgres;
    private final DataSource mariaDb;

    OracleTest(DataSource postgres, @TestDatabase(TestDatabase.Kind.MARIADB) DataSource mariaDb) {
        this.postgres = postgres;
        this.mariaDb = mariaDb;
    }

    @Test
    void postgresqlReadsTextsAsTheLexerPredicts() throws Exception {
        run(Database.POSTGRESQL, postgres, texts(800));
    }

    @Test
    void mariaDbReadsTextsAsTheLexerPredicts() throws Exception {
        run(Database.MARIADB, mariaDb, texts(800));
    }

    @Test
    void h2ReadsTextsAsTheLexerPredicts() throws Exception {
        run(Database.H2, null, texts(400));
    }

    static int texts(int byDefault) {
        return Integer.getInteger("fencing.oracle.texts", byDefault);
    }

    /**
     * {@code -Dfencing.oracle.settings=postgresql/standard_conforming_strings=on,h2/MODE=Oracle} runs only
     * the settings named (ids as in the corpus files), so that a long run can be split across processes.
     */
    private static boolean selected(Setting setting) {
        String only = System.getProperty("fencing.oracle.settings", "").strip();
        return only.isEmpty() || List.of(only.split("\\s*,\\s*")).contains(setting.id());
    }

    /** Runs every setting of {@code database}, then fails with every disagreement not left to issue 13. */
    static List<OracleRunner.Report> run(Database database, DataSource scratch, int textsPerSetting) throws Exception {
        return run(database, scratch, textsPerSetting, Long.getLong("fencing.oracle.seed", DEFAULT_SEED));
    }

    static List<OracleRunner.Report> run(Database database, DataSource scratch, int textsPerSetting, long seed)
            throws Exception {
        List<OracleRunner.Report> reports = new ArrayList<>();
        for (Setting setting : Setting.of(database)) {
            if (!selected(setting)) {
                continue;
            }
            try (Server server = Databases.server(setting, scratch)) {
                OracleRunner.Report report = OracleRunner.run(server, seed, textsPerSetting);
                System.out.println("oracle: " + report);
                reports.add(report);
            }
        }
        List<OracleRunner.Found> failures = reports.stream().flatMap(r -> r.failures().stream()).toList();
        assertTrue(failures.isEmpty(), () -> failures.size() + " disagreement(s) between the lexer and " + database
                + " (shrunk and recorded in the corpus):\n" + String.join("\n", failures.stream().map(f -> f.shrunk().toString()).toList()));
        return reports;
    }
}
