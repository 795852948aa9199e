package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.testing.TestDatabase;

import javax.sql.DataSource;
import java.util.List;

/** The guard's randomized model test on MariaDB (the pool reads committed, so that no gap lock makes a step wait). */
@TestDatabase(TestDatabase.Kind.MARIADB)
class MariaDbGuardModelTest extends GuardModelContract {

    private final GuardModel.Target target;

    MariaDbGuardModelTest(DataSource database) {
        String schema = ScratchAreas.name(database);
        target = new GuardModel.Target("MariaDB", GuardModel.Db.MARIADB, database, database, false, schema,
                "SET @fencing_migration = 'a raw script'", "SET SESSION innodb_lock_wait_timeout = 3");
    }

    @Override
    GuardModel.Target target() {
        return target;
    }

    @Override
    List<String> markFunction() {
        String schema = target.schema();
        return List.of("DROP FUNCTION IF EXISTS " + schema + ".mark",
                "CREATE FUNCTION " + schema + ".mark(p_id BIGINT, p_status VARCHAR(40)) RETURNS INT MODIFIES SQL DATA"
                        + " BEGIN UPDATE " + schema + ".orders SET status = p_status WHERE id = p_id; RETURN 1; END");
    }
}
