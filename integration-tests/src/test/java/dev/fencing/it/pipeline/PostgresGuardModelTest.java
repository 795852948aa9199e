package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.testing.TestDatabase;

import javax.sql.DataSource;
import java.util.List;

/** The guard's randomized model test on PostgreSQL, a pool straight to the server. */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
class PostgresGuardModelTest extends GuardModelContract {

    private final GuardModel.Target target;

    PostgresGuardModelTest(DataSource database) {
        String schema = ScratchAreas.name(database);
        target = new GuardModel.Target("PostgreSQL", GuardModel.Db.POSTGRESQL, database, database, false, schema,
                "SELECT set_config('fencing.migration', 'a raw script', false)", "SET lock_timeout = '3s'");
    }

    @Override
    GuardModel.Target target() {
        return target;
    }

    @Override
    List<String> markFunction() {
        return postgresMark(target.schema());
    }

    static List<String> postgresMark(String schema) {
        return List.of("CREATE OR REPLACE FUNCTION " + schema + ".mark(p_id BIGINT, p_status TEXT) RETURNS INT"
                + " LANGUAGE sql AS 'UPDATE " + schema + ".orders SET status = p_status WHERE id = p_id; SELECT 1'");
    }
}
