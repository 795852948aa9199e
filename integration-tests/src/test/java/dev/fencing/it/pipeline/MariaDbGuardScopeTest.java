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

/** {@link GuardScopeContract} on MariaDB: two databases on one server, the application's connections in one. */
class MariaDbGuardScopeTest extends GuardScopeContract {

    @Override
    TestDatabase.Kind kind() {
        return TestDatabase.Kind.MARIADB;
    }

    @Override
    String guardCheckedForm(String qualifiedTable) {
        return "REPLACE INTO " + qualifiedTable + " (id, status) VALUES (1, 'formed')";
    }

    @Override
    int triggersIn(String schema) throws SQLException {
        try (Connection connection = home.dataSource().getConnection();
             PreparedStatement query = connection.prepareStatement(
                     "SELECT count(*) FROM information_schema.TRIGGERS WHERE EVENT_OBJECT_SCHEMA = ?")) {
            query.setString(1, schema);
            try (ResultSet rows = query.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }

    @Test
    void aCascadingParentInAnotherDatabaseGetsNoTriggerAndVerifyNamesIt() throws Exception {
        sql(other.dataSource(), "CREATE TABLE shops (id BIGINT PRIMARY KEY)", "INSERT INTO shops VALUES (1)");
        sql(home.dataSource(), "CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, status VARCHAR(20), shop BIGINT,"
                        + " last_fence BIGINT NOT NULL DEFAULT 0,"
                        + " FOREIGN KEY (shop) REFERENCES " + other.name() + ".shops (id) ON DELETE CASCADE)",
                "INSERT INTO " + table + " (id, status, shop, last_fence) VALUES (1, 'pending', 1, 5)");
        DatabaseGuard.install(home.dataSource(), config());

        assertThat(triggersIn(other.name())).isZero();
        List<String> warnings = captureWarnings(() -> DatabaseGuard.verify(home.dataSource(), config()));
        assertThat(warnings).anySatisfy(warning -> assertThat(warning)
                .contains(other.name() + ".shops").contains("cascades into").contains("not covered"));
    }
}
