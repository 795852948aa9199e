package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.testing.PgBouncer;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;
import java.util.List;

/**
 * The guard's randomized model test on PostgreSQL behind pgbouncer in {@code pool_mode=transaction}
 * with one server session: a HikariCP pool of two over the bouncer, so that every checkout, fenced or
 * raw, runs its transactions on that one session. The table is read back on a direct connection.
 */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
class PgBouncerGuardModelTest extends GuardModelContract {

    private final PgBouncer bouncer = PgBouncer.start(PgBouncer.PoolMode.TRANSACTION, 1);
    private final GuardModel.Target target;

    PgBouncerGuardModelTest(DataSource database) {
        String schema = ScratchAreas.name(database);
        PGSimpleDataSource pooled = new PGSimpleDataSource();
        pooled.setURL(bouncer.jdbcUrl());
        target = new GuardModel.Target("PostgreSQL behind pgbouncer (transaction mode, one server session)",
                GuardModel.Db.POSTGRESQL, database, pooled, true, schema,
                "SELECT set_config('fencing.migration', 'a raw script', false)", null);
    }

    @AfterEach
    void stopTheBouncer() {
        bouncer.close();
    }

    @Override
    GuardModel.Target target() {
        return target;
    }

    @Override
    List<String> markFunction() {
        return PostgresGuardModelTest.postgresMark(target.schema());
    }
}
