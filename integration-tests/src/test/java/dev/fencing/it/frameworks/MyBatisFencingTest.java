package dev.fencing.it.frameworks;

import static dev.fencing.it.frameworks.FrameworkFixture.fence;
import static dev.fencing.it.frameworks.FrameworkFixture.requireCause;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Fence;
import dev.fencing.MissingFenceException;
import dev.fencing.StaleFenceException;
import dev.fencing.testing.TestDatabase;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Options;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Update;
import org.apache.ibatis.executor.BatchResult;
import org.apache.ibatis.mapping.Environment;
import org.apache.ibatis.session.Configuration;
import org.apache.ibatis.session.ExecutorType;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.session.SqlSessionFactoryBuilder;
import org.apache.ibatis.transaction.jdbc.JdbcTransactionFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** MyBatis mappers over a FencingDataSource with the simple, reuse and batch executors. */
abstract class MyBatisFencingTest {

    /** A payment row for generated keys. */
    public static final class Payment {
        public Long id;
        public long orderId;
        public long amount;
    }

    public interface OrderMapper {
        @Update("UPDATE orders SET status = #{status} WHERE id = #{id}")
        int setStatus(@Param("id") long id, @Param("status") String status);

        @Update("UPDATE orders SET amount = ${amount} WHERE id = ${id}")
        int setAmountInlined(@Param("id") long id, @Param("amount") long amount);

        @Insert("INSERT INTO payments (order_id, amount) VALUES (#{orderId}, #{amount})")
        @Options(useGeneratedKeys = true, keyProperty = "id", keyColumn = "id")
        int insertPayment(Payment payment);
    }

    private final FrameworkFixture db;
    private final SqlSessionFactory sessions;

    MyBatisFencingTest(DataSource raw) throws SQLException {
        this.db = new FrameworkFixture(raw);
        Configuration configuration = new Configuration(
                new Environment("fenced", new JdbcTransactionFactory(), db.fenced));
        configuration.addMapper(OrderMapper.class);
        this.sessions = new SqlSessionFactoryBuilder().build(configuration);
    }

    @BeforeEach
    void reset() throws SQLException {
        db.reset();
    }

    @Test
    void simpleExecutorWritesAreFencedWithBoundAndInlinedValues() throws SQLException {
        try (Fence.Scope s = fence(12); SqlSession session = sessions.openSession(true)) {
            OrderMapper orders = session.getMapper(OrderMapper.class);
            assertThat(orders.setStatus(1, "paid")).isEqualTo(1);
            assertThat(orders.setAmountInlined(1, 150)).isEqualTo(1);
        }
        assertThat(db.statusOf(1)).isEqualTo("paid");
        assertThat(db.fenceOf("orders", 1)).isEqualTo(12);
        try (Fence.Scope s = fence(5); SqlSession session = sessions.openSession(true)) {
            OrderMapper orders = session.getMapper(OrderMapper.class);
            assertThatThrownBy(() -> orders.setStatus(1, "void"))
                    .satisfies(e -> assertThat(requireCause(e, StaleFenceException.class).currentFence()).hasValue(12));
        }
        try (SqlSession session = sessions.openSession(true)) {
            OrderMapper orders = session.getMapper(OrderMapper.class);
            assertThatThrownBy(() -> orders.setStatus(1, "void")).satisfies(e -> requireCause(e, MissingFenceException.class));
        }
        assertThat(db.statusOf(1)).isEqualTo("paid");
    }

    @Test
    void reuseExecutorRunsOnePreparedStatementUnderWhicheverFenceIsInScope() throws SQLException {
        try (SqlSession session = sessions.openSession(ExecutorType.REUSE, true)) {
            OrderMapper orders = session.getMapper(OrderMapper.class);
            try (Fence.Scope s = fence(12)) {
                orders.setStatus(1, "paid");
            }
            try (Fence.Scope s = fence(11)) {
                assertThatThrownBy(() -> orders.setStatus(1, "void"))
                        .satisfies(e -> requireCause(e, StaleFenceException.class));
            }
            try (Fence.Scope s = fence(13)) {
                orders.setStatus(1, "shipped");
            }
        }
        assertThat(db.statusOf(1)).isEqualTo("shipped");
        assertThat(db.fenceOf("orders", 1)).isEqualTo(13);
    }

    @Test
    void generatedKeysComeBackFromAFencedInsert() throws SQLException {
        Payment payment = new Payment();
        payment.orderId = 1;
        payment.amount = 100;
        try (Fence.Scope s = fence(12); SqlSession session = sessions.openSession(true)) {
            session.getMapper(OrderMapper.class).insertPayment(payment);
        }
        assertThat(payment.id).isNotNull();
        assertThat(db.fenceOf("payments", payment.id)).isEqualTo(12);
    }

    @Test
    void batchExecutorFlushesUnderTheFenceAndAStaleEntryFailsTheFlush() throws SQLException {
        try (Fence.Scope s = fence(12); SqlSession session = sessions.openSession(ExecutorType.BATCH, false)) {
            OrderMapper orders = session.getMapper(OrderMapper.class);
            orders.setStatus(1, "paid");
            orders.setStatus(1, "paid again");
            List<BatchResult> results = session.flushStatements();
            assertThat(results.get(0).getUpdateCounts()).containsExactly(1, 1);
            session.commit();
        }
        assertThat(db.fenceOf("orders", 1)).isEqualTo(12);
        try (Fence.Scope s = fence(11); SqlSession session = sessions.openSession(ExecutorType.BATCH, false)) {
            session.getMapper(OrderMapper.class).setStatus(1, "void");
            assertThatThrownBy(session::flushStatements).satisfies(e -> requireCause(e, StaleFenceException.class));
            session.rollback();
        }
        assertThat(db.statusOf(1)).isEqualTo("paid again");
    }

    @TestDatabase(TestDatabase.Kind.POSTGRESQL)
    static final class OnPostgresqlTest extends MyBatisFencingTest {
        OnPostgresqlTest(DataSource raw) throws SQLException {
            super(raw);
        }
    }

    @TestDatabase(TestDatabase.Kind.MARIADB)
    static final class OnMariadbTest extends MyBatisFencingTest {
        OnMariadbTest(DataSource raw) throws SQLException {
            super(raw);
        }
    }
}
