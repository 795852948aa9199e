package dev.fencing.proof;

import dev.fencing.FencingConfig;
import dev.fencing.jdbc.DatabaseGuard;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The fuzzer once more with {@code fencing.database-guard=required}, the guard installed and the
 * analyzer's rewrite switched off ({@link RewriteOff}, test-only): the triggers alone must keep
 * every change of the fenced table within the check. The control runs the same statements with the
 * rewrite off and no guard, and must find violations. Behind the {@code long} profile.
 */
@EnabledIfSystemProperty(named = "fencing.long", matches = "true")
class GuardedFuzzTest extends FuzzTest {

    GuardedFuzzTest(DataSource pgScratch, @TestDatabase(TestDatabase.Kind.MARIADB) DataSource mariaScratch)
            throws SQLException {
        super(pgScratch, mariaScratch);
    }

    @Override
    FencingConfig config(String schema) {
        return FencingConfig.builder().tables(schema + ".orders").databaseGuard(FencingConfig.Guard.REQUIRED).build();
    }

    @Override
    DataSource controlPath(DataSource raw, String schema) {
        return RewriteOff.over(raw, FencingConfig.builder().tables(schema + ".orders").build());
    }

    @Override
    DataSource fencedPath(DataSource raw, FencingConfig config) {
        return RewriteOff.over(raw, config);
    }

    @Override
    void prepareAdmin(Connection admin, SqlFuzzer.Flavor flavor) throws SQLException {
        Db.execute(admin, switch (flavor) {
            case POSTGRESQL -> "SELECT set_config('fencing.migration', 'fuzz reset', false)";
            case MARIADB -> "SET @fencing_migration = 'fuzz reset'";
            case H2 -> "SET @FENCING_MIGRATION = 'fuzz reset'";
        });
    }

    @BeforeAll
    void installGuard() throws SQLException {
        install();
    }

    private void install() throws SQLException {
        DatabaseGuard.install(pgScratch, config(pgSchema));
        DatabaseGuard.install(maria, config(mariaSchema));
        DatabaseGuard.install(h2, config("PUBLIC"));
    }

    @Test
    @Override
    void withoutTheDriverTheSameStatementsViolate() throws Exception {
        DatabaseGuard.remove(pgScratch, config(pgSchema));
        DatabaseGuard.remove(maria, config(mariaSchema));
        DatabaseGuard.remove(h2, config("PUBLIC"));
        try {
            super.withoutTheDriverTheSameStatementsViolate();
        } finally {
            install();
        }
    }
}
