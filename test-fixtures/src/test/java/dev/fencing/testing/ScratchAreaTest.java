package dev.fencing.testing;

import dev.fencing.testing.TestDatabase.Kind;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@link ScratchArea}'s URL and data source both land in the area (an unqualified table created
 * through one is found through the other, and in the area by its qualified name), and closing it
 * drops the area once.
 */
class ScratchAreaTest {

    @ParameterizedTest
    @EnumSource(Kind.class)
    void theUrlAndTheDataSourceWorkInTheAreaAndCloseDropsIt(Kind kind) throws SQLException {
        String name;
        try (ScratchArea area = ScratchArea.create(kind)) {
            name = area.name();
            assertTrue(name.matches("fx_[0-9a-f]{12}"), name);
            try (Connection connection = DriverManager.getConnection(area.url());
                 Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE scratch_probe (id INT PRIMARY KEY)");
                statement.execute("INSERT INTO scratch_probe (id) VALUES (7)");
            }
            assertEquals(List.of("7"), Sql.column(area.dataSource(), "SELECT id FROM scratch_probe"));
            assertEquals(List.of("7"), Sql.column(TestDatabaseTest.admin(kind), "SELECT id FROM " + name + ".scratch_probe"));
            assertTrue(area.toString().contains(name), area.toString());
            area.close();
            area.close(); // a second close does nothing
        }
        assertEquals(List.of(), Sql.column(TestDatabaseTest.admin(kind),
                "SELECT schema_name FROM information_schema.schemata WHERE schema_name = '" + name + "'"));
    }
}
