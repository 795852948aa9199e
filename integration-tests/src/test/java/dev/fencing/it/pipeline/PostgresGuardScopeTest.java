package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.jdbc.DatabaseGuard;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** {@link GuardScopeContract} on PostgreSQL: two schemas of one database, the application's search_path on one. */
class PostgresGuardScopeTest extends GuardScopeContract {

    @Override
    TestDatabase.Kind kind() {
        return TestDatabase.Kind.POSTGRESQL;
    }

    @Override
    String guardCheckedForm(String qualifiedTable) {
        return "MERGE INTO " + qualifiedTable + " t USING (SELECT 1 AS id) s ON t.id = s.id"
                + " WHEN MATCHED THEN UPDATE SET status = 'formed'";
    }

    @Override
    int triggersIn(String schema) throws SQLException {
        try (Connection connection = home.dataSource().getConnection();
             PreparedStatement query = connection.prepareStatement("SELECT count(*) FROM pg_trigger t"
                     + " JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace"
                     + " WHERE n.nspname = ? AND NOT t.tgisinternal")) {
            query.setString(1, schema);
            try (ResultSet rows = query.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }

    @Test
    void aPartitionInAnotherSchemaOfAGuardedTableIsStillGuarded() throws Exception {
        sql(home.dataSource(), "CREATE TABLE " + table + " (id BIGINT NOT NULL, status VARCHAR(20),"
                        + " last_fence BIGINT NOT NULL DEFAULT 0) PARTITION BY RANGE (id)",
                "CREATE TABLE " + other.name() + "." + table + "_p PARTITION OF " + table + " FOR VALUES FROM (0) TO (100)",
                "INSERT INTO " + table + " (id, status, last_fence) VALUES (1, 'pending', 5)");
        DatabaseGuard.install(home.dataSource(), config());

        SQLException refused = catchThrowableOfType(SQLException.class, () -> sql(other.dataSource(),
                "UPDATE " + table + "_p SET status = 'raw' WHERE id = 1"));
        assertThat(refused.getSQLState()).isEqualTo("ZF002");
        assertThat(row(home)).isEqualTo("pending@5");
        assertThat(triggersIn(other.name())).isPositive();
    }

    @Test
    void aSameNamedInheritanceChildInAnotherSchemaIsGuardedAndNotReported() throws Exception {
        createTable(home);
        sql(other.dataSource(), "CREATE TABLE " + table + " () INHERITS (" + home.name() + "." + table + ")",
                "INSERT INTO " + table + " (id, status, last_fence) VALUES (2, 'child', 5)");
        DatabaseGuard.install(home.dataSource(), config());

        SQLException refused = catchThrowableOfType(SQLException.class, () -> sql(other.dataSource(),
                "UPDATE " + table + " SET status = 'raw' WHERE id = 2"));
        assertThat(refused.getSQLState()).isEqualTo("ZF002");
        List<String> warnings = captureWarnings(() -> DatabaseGuard.verify(home.dataSource(), config()));
        assertThat(warnings).noneSatisfy(warning -> assertThat(warning).contains(table));
    }
}
