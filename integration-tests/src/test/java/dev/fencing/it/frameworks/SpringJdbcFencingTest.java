package dev.fencing.it.frameworks;

import static dev.fencing.it.frameworks.FrameworkFixture.requireCause;
import static dev.fencing.it.frameworks.FrameworkFixture.fence;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Fence;
import dev.fencing.MissingFenceException;
import dev.fencing.StaleFenceException;
import dev.fencing.testing.TestDatabase;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.core.simple.SimpleJdbcInsert;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;

/** Spring's JdbcTemplate, NamedParameterJdbcTemplate and SimpleJdbcInsert over a FencingDataSource. */
abstract class SpringJdbcFencingTest {

    private final FrameworkFixture db;
    private final JdbcTemplate jdbc;

    SpringJdbcFencingTest(DataSource raw) throws SQLException {
        this.db = new FrameworkFixture(raw);
        this.jdbc = new JdbcTemplate(db.fenced);
    }

    @BeforeEach
    void reset() throws SQLException {
        db.reset();
    }

    @Test
    void updateUnderTheCurrentFenceIsAppliedAndRecordsIt() throws SQLException {
        try (Fence.Scope s = fence(12)) {
            assertThat(jdbc.update("UPDATE orders SET status = ? WHERE id = ?", "paid", 1L)).isEqualTo(1);
        }
        assertThat(db.statusOf(1)).isEqualTo("paid");
        assertThat(db.fenceOf("orders", 1)).isEqualTo(12);
    }

    @Test
    void aStaleUpdateRaisesADataAccessExceptionCarryingTheFences() throws SQLException {
        try (Fence.Scope s = fence(5)) {
            assertThatThrownBy(() -> jdbc.update("UPDATE orders SET status = ? WHERE id = ?", "paid", 1L))
                    .isInstanceOf(DataAccessException.class)
                    .satisfies(e -> {
                        StaleFenceException stale = requireCause(e, StaleFenceException.class);
                        assertThat(stale.attemptedFence()).isEqualTo(5);
                        assertThat(stale.currentFence()).hasValue(10);
                        assertThat(stale.table()).isEqualTo("orders");
                    });
        }
        assertThat(db.statusOf(1)).isEqualTo("pending");
        assertThat(db.fenceOf("orders", 1)).isEqualTo(10);
    }

    @Test
    void aWriteWithoutAFenceIsRefusedAndNothingIsSent() throws SQLException {
        assertThatThrownBy(() -> jdbc.update("UPDATE orders SET status = 'paid' WHERE id = 1"))
                .satisfies(e -> requireCause(e, MissingFenceException.class));
        assertThat(db.statusOf(1)).isEqualTo("pending");
    }

    @Test
    void batchUpdateAppliesEveryEntryUnderTheFenceAndRefusesAStaleBatch() throws SQLException {
        new JdbcTemplate(db.raw).execute("INSERT INTO orders (id, status, amount, last_fence) VALUES (2, 'pending', 5, 30)");
        try (Fence.Scope s = fence(20)) {
            assertThatThrownBy(() -> jdbc.batchUpdate("UPDATE orders SET amount = amount + ? WHERE id = ?",
                    List.of(new Object[] {1, 1L}, new Object[] {1, 2L})))
                    .satisfies(e -> requireCause(e, StaleFenceException.class));
        }
        // order 1 (fence 10) took the entry within the same statement batch; order 2 (fence 30) did not
        assertThat(db.longOf("SELECT amount FROM orders WHERE id = 2")).isEqualTo(5);
        assertThat(db.fenceOf("orders", 2)).isEqualTo(30);
        try (Fence.Scope s = fence(40)) {
            int[] counts = jdbc.batchUpdate("UPDATE orders SET status = ? WHERE id = ?",
                    List.of(new Object[] {"shipped", 1L}, new Object[] {"shipped", 2L}));
            assertThat(counts).containsExactly(1, 1);
        }
        assertThat(db.fenceOf("orders", 1)).isEqualTo(40);
        assertThat(db.fenceOf("orders", 2)).isEqualTo(40);
    }

    @Test
    void keyHolderReturnsTheGeneratedIdOfAFencedInsert() throws SQLException {
        KeyHolder keys = new GeneratedKeyHolder();
        try (Fence.Scope s = fence(12)) {
            jdbc.update(connection -> {
                PreparedStatement insert = connection.prepareStatement(
                        "INSERT INTO payments (order_id, amount) VALUES (?, ?)", Statement.RETURN_GENERATED_KEYS);
                insert.setLong(1, 1);
                insert.setLong(2, 100);
                return insert;
            }, keys);
        }
        Number id = db.mariadb ? keys.getKey() : (Number) keys.getKeys().get("id");
        assertThat(id.longValue()).isPositive();
        assertThat(db.fenceOf("payments", id.longValue())).isEqualTo(12);
    }

    @Test
    void namedParametersAreFencedLikeAnyOther() throws SQLException {
        NamedParameterJdbcTemplate named = new NamedParameterJdbcTemplate(db.fenced);
        try (Fence.Scope s = fence(11)) {
            assertThat(named.update("UPDATE orders SET status = :status WHERE id = :id",
                    Map.of("status", "paid", "id", 1L))).isEqualTo(1);
        }
        assertThat(db.fenceOf("orders", 1)).isEqualTo(11);
    }

    @Test
    void simpleJdbcInsertWorksWhenTheFenceColumnIsLeftOutOfItsColumns() throws SQLException {
        // SimpleJdbcInsert reads the table's columns from the metadata and would name last_fence,
        // which the driver owns: name the columns to insert.
        SimpleJdbcInsert insert = new SimpleJdbcInsert(db.fenced).withTableName("invoices")
                .usingColumns("id", "amount");
        try (Fence.Scope s = fence(12)) {
            insert.execute(Map.of("id", 7L, "amount", 70L));
        }
        assertThat(db.fenceOf("invoices", 7)).isEqualTo(12);

        SimpleJdbcInsert everyColumn = new SimpleJdbcInsert(db.fenced).withTableName("invoices");
        try (Fence.Scope s = fence(12)) {
            assertThatThrownBy(() -> everyColumn.execute(Map.of("id", 8L, "amount", 80L, "last_fence", 99L)))
                    .satisfies(e -> requireCause(e, dev.fencing.UnfenceableStatementException.class));
        }
        assertThat(db.count("invoices")).isEqualTo(1);
    }

    @TestDatabase(TestDatabase.Kind.POSTGRESQL)
    static final class OnPostgresqlTest extends SpringJdbcFencingTest {
        OnPostgresqlTest(DataSource raw) throws SQLException {
            super(raw);
        }
    }

    @TestDatabase(TestDatabase.Kind.MARIADB)
    static final class OnMariadbTest extends SpringJdbcFencingTest {
        OnMariadbTest(DataSource raw) throws SQLException {
            super(raw);
        }
    }
}
