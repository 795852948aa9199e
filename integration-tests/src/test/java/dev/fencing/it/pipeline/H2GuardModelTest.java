package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/** The guard's randomized model test on an H2 in-memory database; {@code mark} is a Java function of this class. */
public class H2GuardModelTest extends GuardModelContract {

    private final GuardModel.Target target;

    H2GuardModelTest() {
        javax.sql.DataSource database = H2.database();
        target = new GuardModel.Target("H2", GuardModel.Db.H2, database, database, false, "PUBLIC",
                "SET @FENCING_MIGRATION = 'a raw script'", null);
    }

    @Override
    GuardModel.Target target() {
        return target;
    }

    @Override
    List<String> markFunction() {
        return List.of("CREATE ALIAS IF NOT EXISTS PUBLIC.mark FOR '" + H2GuardModelTest.class.getName() + ".mark'");
    }

    /** H2's {@code mark(id, status)}: updates the order in the calling session. */
    public static int mark(Connection session, long id, String status) throws SQLException {
        try (PreparedStatement update = session.prepareStatement("UPDATE PUBLIC.orders SET status = ? WHERE id = ?")) {
            update.setString(1, status);
            update.setLong(2, id);
            update.executeUpdate();
            return 1;
        }
    }
}
