package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Fence;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.testing.ScratchArea;
import dev.fencing.testing.TestDatabase;

import com.zaxxer.hikari.HikariDataSource;

import java.util.Map;
import javax.sql.DataSource;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.LazyConnectionDataSourceProxy;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.jdbc.datasource.lookup.AbstractRoutingDataSource;

/**
 * Data source beans over data source beans (issue 33, Build item 2): each physical data source is
 * fenced once. Before the fix every one of these wrapped the outer bean again, so a fenced write
 * was spliced twice and refused (ZF003, "sets the fence column itself"). Rows are read back raw,
 * through the scratch areas' own unfenced data sources; the routing case spans PostgreSQL and MariaDB.
 */
class DataSourceArrangementsTest {

    static ScratchArea postgres;
    static ScratchArea mariadb;

    @BeforeAll
    static void areas() {
        postgres = ScratchArea.create(TestDatabase.Kind.POSTGRESQL);
        mariadb = ScratchArea.create(TestDatabase.Kind.MARIADB);
        for (ScratchArea area : new ScratchArea[] {postgres, mariadb}) {
            raw(area).execute("CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(20) NOT NULL,"
                    + " last_fence BIGINT NOT NULL DEFAULT 0)");
        }
    }

    @AfterAll
    static void dropAreas() {
        postgres.close();
        mariadb.close();
    }

    @BeforeEach
    void pendingOrders() {
        for (ScratchArea area : new ScratchArea[] {postgres, mariadb}) {
            raw(area).update("DELETE FROM orders");
            raw(area).update("INSERT INTO orders (id, status) VALUES (1, 'pending')");
        }
    }

    static JdbcTemplate raw(ScratchArea area) {
        return new JdbcTemplate(area.dataSource());
    }

    static HikariDataSource pool(ScratchArea area) {
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl(area.url());
        pool.setMaximumPoolSize(2);
        return pool;
    }

    private static ApplicationContextRunner application(Class<?> configuration) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(FencingAutoConfiguration.class))
                .withUserConfiguration(configuration)
                .withPropertyValues("fencing.tables=orders", "fencing.lock.store=jdbc",
                        "fencing.lock.jdbc.create-table=false");
    }

    /** A fenced write through the primary data source lands once, with the fence; a statement setting the column is refused precisely. */
    private static void writesThroughThePrimaryAreFencedOnce(ApplicationContext context, ScratchArea area) {
        JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
        try (Fence.Scope scope = Fence.enter(5)) {
            assertThat(jdbc.update("UPDATE orders SET status = 'paid' WHERE id = 1")).isEqualTo(1);
            assertThatThrownBy(() -> jdbc.update("UPDATE orders SET status = 'x', last_fence = 9 WHERE id = 1"))
                    .hasMessageContaining("last_fence");
        }
        assertThatThrownBy(() -> jdbc.update("UPDATE orders SET status = 'unfenced' WHERE id = 1"))
                .hasMessageContaining("no fence in scope");
        assertThat(raw(area).queryForMap("SELECT status, last_fence FROM orders WHERE id = 1"))
                .containsEntry("status", "paid").containsEntry("last_fence", 5L);
    }

    @Configuration(proxyBeanMethods = false)
    static class Lazy {
        @Bean(destroyMethod = "close")
        DataSource target() {
            return pool(postgres);
        }

        @Bean
        @Primary
        DataSource lazy(DataSource target) {
            return new LazyConnectionDataSourceProxy(target);
        }
    }

    @Test
    void aLazyConnectionProxyOverAWrappedBeanIsNotWrappedAgain() {
        application(Lazy.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean("target")).isInstanceOf(FencingDataSource.class);
            assertThat(context.getBean("lazy")).isInstanceOf(LazyConnectionDataSourceProxy.class);
            writesThroughThePrimaryAreFencedOnce(context, postgres);
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class TransactionAware {
        @Bean(destroyMethod = "close")
        DataSource target() {
            return pool(postgres);
        }

        @Bean
        @Primary
        DataSource transactionAware(DataSource target) {
            // two proxies between the bean and its wrapped target
            return new TransactionAwareDataSourceProxy(new LazyConnectionDataSourceProxy(target));
        }
    }

    @Test
    void aTransactionAwareProxyOverAWrappedBeanIsNotWrappedAgain() {
        application(TransactionAware.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean("transactionAware")).isInstanceOf(TransactionAwareDataSourceProxy.class);
            writesThroughThePrimaryAreFencedOnce(context, postgres);
        });
    }

    /** Routes by a thread-local key. */
    static final class Routing extends AbstractRoutingDataSource {
        static final ThreadLocal<String> KEY = new ThreadLocal<>();

        @Override
        protected Object determineCurrentLookupKey() {
            return KEY.get();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class RoutingOverBeans {
        @Bean(destroyMethod = "close")
        DataSource pg() {
            return pool(postgres);
        }

        @Bean(destroyMethod = "close")
        DataSource maria() {
            return pool(mariadb);
        }

        @Bean
        @Primary
        DataSource routing(DataSource pg, DataSource maria) {
            Routing routing = new Routing();
            routing.setTargetDataSources(Map.of("pg", pg, "maria", maria));
            routing.setDefaultTargetDataSource(pg);
            return routing;
        }
    }

    @Test
    void aRoutingDataSourceOverTwoWrappedBeansIsNotWrappedAgain() {
        application(RoutingOverBeans.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean("routing")).isInstanceOf(Routing.class);
            routed(context);
        });
    }

    /** One target is a bean (wrapped), the other is not: the routing bean is wrapped, and fences only the connections not fenced yet. */
    @Configuration(proxyBeanMethods = false)
    static class RoutingOverABeanAndAnInlineTarget {
        @Bean(destroyMethod = "close")
        DataSource pg() {
            return pool(postgres);
        }

        @Bean
        @Primary
        DataSource routing(DataSource pg) {
            Routing routing = new Routing();
            routing.setTargetDataSources(Map.of("pg", pg, "maria", pool(mariadb)));
            routing.setDefaultTargetDataSource(pg);
            return routing;
        }
    }

    @Test
    void aRoutingDataSourceOverAWrappedAndAnUnwrappedTargetFencesEachConnectionOnce() {
        application(RoutingOverABeanAndAnInlineTarget.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean("routing")).isInstanceOf(FencingDataSource.class);
            routed(context);
        });
    }

    private static void routed(ApplicationContext context) {
        for (String key : new String[] {"pg", "maria"}) {
            Routing.KEY.set(key);
            try {
                writesThroughThePrimaryAreFencedOnce(context, key.equals("pg") ? postgres : mariadb);
            } finally {
                Routing.KEY.remove();
            }
        }
    }
}
