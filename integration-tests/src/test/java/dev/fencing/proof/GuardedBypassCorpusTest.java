package dev.fencing.proof;

import dev.fencing.FencingConfig;
import dev.fencing.jdbc.DatabaseGuard;
import dev.fencing.proof.Corpus.Entry;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * The bypass corpus once more, with {@code fencing.database-guard=required}, the guard installed,
 * and the analyzer's rewrite switched off ({@link RewriteOff}, a test-only hook): every text is
 * sent as the application wrote it, with no front-door fence check, so the triggers alone must
 * hold every case. The property is the corpus's own: no unfenced write, judged from the rows. What
 * each entry throws is not checked here (the trigger's refusals replace the front door's).
 * TRUNCATE is still refused by the analyzer (MariaDB and H2 run no trigger for it; PostgreSQL's
 * guard refuses it itself).
 *
 * <p>Behind the {@code long} profile (about 90 s). The control: the same entries with the rewrite off and no guard must write unfenced, or the
 * switch would prove nothing. The admin connection that resets the tables is a sanctioned migration.
 */
@EnabledIfSystemProperty(named = "fencing.long", matches = "true")
class GuardedBypassCorpusTest extends BypassCorpusTest {

    GuardedBypassCorpusTest(@TestDatabase(TestDatabase.Kind.POSTGRESQL) DataSource pg,
                            @TestDatabase(TestDatabase.Kind.MARIADB) DataSource maria) throws SQLException {
        super(pg, maria);
    }

    @Override
    FencingConfig config(String schema) {
        return FencingConfig.builder().tables(schema + ".orders", schema + ".payments")
                .databaseGuard(FencingConfig.Guard.REQUIRED).build();
    }

    private FencingConfig unguarded(String schema) {
        return FencingConfig.builder().tables(schema + ".orders", schema + ".payments").build();
    }

    @BeforeAll
    void installGuard() throws SQLException {
        for (Database db : databases.values()) {
            Db.execute(db.admin, switch (db.target) {
                case PG -> "SELECT set_config('fencing.migration', 'corpus reset', false)";
                case MARIA -> "SET @fencing_migration = 'corpus reset'";
                case H2 -> "SET @FENCING_MIGRATION = 'corpus reset'";
            });
            DatabaseGuard.install(db.raw, config(db.schema));
        }
    }

    @Override
    DataSource fencedPath(DataSource raw, FencingConfig config) {
        return RewriteOff.over(raw, config);
    }

    @Override
    void expectations(Entry entry, Map<Run, Outcome> runs) {
        // only the rows are the oracle here (recorded for every run)
    }

    @Override
    DataSource controlPath(Database db) {
        return RewriteOff.over(db.raw, unguarded(db.schema));
    }

    @Override
    void control(Database db, List<Entry> entries) throws Exception {
        DatabaseGuard.remove(db.raw, config(db.schema));
        try {
            super.control(db, entries);
        } finally {
            DatabaseGuard.install(db.raw, config(db.schema));
        }
    }
}
