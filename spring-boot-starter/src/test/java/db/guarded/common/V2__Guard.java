package db.guarded.common;

import dev.fencing.FencingConfig;
import dev.fencing.jdbc.DatabaseGuard;

import java.sql.Connection;
import java.sql.Statement;

import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/** Installs the database guard on {@code orders} inside the migration, from the guard's own DDL. */
public class V2__Guard extends BaseJavaMigration {

    @Override
    public void migrate(Context context) throws Exception {
        Connection connection = context.getConnection();
        FencingConfig config = FencingConfig.builder().tables("orders").build();
        try (Statement statement = connection.createStatement()) {
            for (String ddl : DatabaseGuard.ddl(new SingleConnectionDataSource(connection, true), config)) {
                statement.execute(ddl);
            }
        }
    }
}
