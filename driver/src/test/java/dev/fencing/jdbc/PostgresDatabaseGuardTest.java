package dev.fencing.jdbc;

import dev.fencing.Fence;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;

import javax.sql.DataSource;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** The database guard on PostgreSQL, in a schema of its own. */
class PostgresDatabaseGuardTest extends DatabaseGuardContract {

    private static final Postgres DATABASE = new Postgres();

    @AfterAll
    static void dropSchema() throws SQLException {
        DATABASE.drop();
    }

    @Override
    DataSource raw() {
        return DATABASE.dataSource;
    }

    @Override
    String schema() {
        return DATABASE.schema;
    }

    @Override
    List<String> payFunction() {
        return List.of("CREATE OR REPLACE FUNCTION pay(order_id BIGINT) RETURNS INT LANGUAGE sql AS"
                + " 'UPDATE orders SET status = ''paid'' WHERE id = order_id; SELECT 1'");
    }

    @Override
    String setSessionFence(long fence) {
        return "SELECT set_config('fencing.fence', '" + fence + "', false)";
    }

    @Test
    void truncateAndCopyFromAreRefusedWithoutAFence() throws Exception {
        SQLException truncate = catchThrowableOfType(SQLException.class, () -> sql("TRUNCATE orders CASCADE"));
        assertThat(truncate.getSQLState()).isEqualTo("ZF002");
        try (Connection console = raw().getConnection()) {
            SQLException copy = catchThrowableOfType(SQLException.class, () -> console.unwrap(PGConnection.class)
                    .getCopyAPI().copyIn("COPY orders (id, status, customer_id) FROM STDIN", new StringReader("7\tnew\t10\n")));
            assertThat(copy.getSQLState()).isEqualTo("ZF002");
            try (Statement statement = console.createStatement()) {
                statement.execute(setSessionFence(11));
            }
            console.unwrap(PGConnection.class).getCopyAPI()
                    .copyIn("COPY orders (id, status, customer_id, last_fence) FROM STDIN", new StringReader("7\tnew\t10\t1\n"));
        }
        assertThat(order(7)).isEqualTo("new@11");
    }

    @Test
    void replicaModeDoesNotSwitchTheGuardOff() throws Exception {
        SQLException refused = catchThrowableOfType(SQLException.class,
                () -> sql("SET session_replication_role = replica", "UPDATE orders SET status = 'x' WHERE id = 1"));
        assertThat(refused.getSQLState()).isEqualTo("ZF002");
    }

    @Test
    void aProcedureIsFencedByTheCallersFence() throws Exception {
        sql("CREATE OR REPLACE PROCEDURE pay_proc(order_id BIGINT) LANGUAGE sql AS"
                + " 'UPDATE orders SET status = ''paid'' WHERE id = order_id'");
        try (FencingDataSource fenced = new FencingDataSource(raw(), config());
             Connection connection = fenced.getConnection(); Statement statement = connection.createStatement()) {
            try (Fence.Scope stale = Fence.enter(2)) {
                assertThatThrownBy(() -> statement.execute("CALL pay_proc(1)"))
                        .isInstanceOf(dev.fencing.StaleFenceException.class);
            }
            try (Fence.Scope current = Fence.enter(12)) {
                statement.execute("CALL pay_proc(1)");
            }
        }
        assertThat(order(1)).isEqualTo("paid@12");
    }
}
