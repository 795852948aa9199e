package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Fence;
import dev.fencing.lock.FencedLocks;
import dev.fencing.lock.Lease;
import dev.fencing.spring.app.TestApplication;
import dev.fencing.testing.ScratchArea;
import dev.fencing.testing.TestDatabase;

import java.time.Duration;
import javax.sql.DataSource;

import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The one Spring Boot application the starter's integration tests share (JDBC, JPA, Flyway,
 * Actuator, JDBC locks on PostgreSQL): every subclass declares nothing else, so Spring's test
 * context cache starts it once. Its schema is its own and is dropped when the context closes.
 */
@SpringBootTest(classes = {TestApplication.class, StarterContextTest.SchemaLifecycle.class})
abstract class StarterContextTest {

    static final ScratchArea SCHEMA = ScratchArea.create(TestDatabase.Kind.POSTGRESQL);

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    FencedLocks locks;

    /** The schema as it is, without fencing: what the database holds. */
    final JdbcTemplate database = new JdbcTemplate(SCHEMA.dataSource());

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", SCHEMA::url);
    }

    @BeforeEach
    void freshOrders() {
        database.update("DELETE FROM orders");
    }

    void insertPendingOrder(long id) {
        database.update("INSERT INTO orders (id, status) VALUES (?, 'pending')", id);
    }

    /** A takes the lock with a short TTL and is "paused" past it: its fence is now stale. */
    long expiredLease(String resource) throws InterruptedException {
        Lease a = locks.acquire(resource, Duration.ofMillis(100), Duration.ofSeconds(5));
        while (a.isHeld()) {
            Thread.sleep(20);
        }
        return a.fence();
    }

    /** B takes the lock and pays: the row now holds B's fence. */
    long payAsNewHolder(long orderId, long amount) {
        try (Lease b = locks.acquire("order:" + orderId, Duration.ofSeconds(10), Duration.ofSeconds(5));
             Fence.Scope scope = b.enterFence()) {
            assertThat(jdbc.update("UPDATE orders SET status = 'paid', paid_amount = ? WHERE id = ?", amount, orderId))
                    .isEqualTo(1);
            return b.fence();
        }
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class SchemaLifecycle {
        @Bean
        DisposableBean dropSchemaOnClose(DataSource dataSource) {
            return SCHEMA::close;
        }
    }
}
