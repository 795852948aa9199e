package dev.fencing.examples.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.shedlock.FencedLockProvider;
import dev.fencing.testing.ScratchArea;
import dev.fencing.testing.TestDatabase;
import dev.fencing.testing.locks.ServerProcess;

import java.time.Duration;
import java.util.Map;

import net.javacrumbs.shedlock.core.LockProvider;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The example as it runs: the scheduler fires both jobs, ShedLock locks them through
 * fencing-shedlock, and their writes land with the lease's fence (read back raw).
 */
@SpringBootTest(properties = {"jobs.delay=PT0.2S", "jobs.lock-at-least-for=PT0S"})
class ScheduledJobsTest {

    static final ScratchArea SCHEMA = ScratchArea.create(TestDatabase.Kind.POSTGRESQL);

    @Autowired
    LockProvider lockProvider;

    final JdbcTemplate raw = new JdbcTemplate(SCHEMA.dataSource());

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", SCHEMA::url);
    }

    /** Drops the schema when the context closes, after the scheduler has stopped firing the jobs. */
    @TestConfiguration(proxyBeanMethods = false)
    static class DropSchemaOnClose {

        @Bean
        DisposableBean dropSchemaOnClose() {
            return SCHEMA::close;
        }
    }

    @Test
    void bothJobsWriteTheirTablesWithTheirLeasesFence() {
        assertThat(lockProvider).isInstanceOf(FencedLockProvider.class);
        ServerProcess.awaitUntil("both jobs have written", Duration.ofSeconds(30),
                () -> raw.queryForObject("SELECT COUNT(*) FROM daily_totals WHERE last_fence > 0", Long.class) == 1
                        && raw.queryForObject("SELECT COUNT(*) FROM reservations WHERE last_fence > 0", Long.class) == 1);

        Map<String, Object> totals = raw.queryForMap("SELECT orders, amount FROM daily_totals");
        assertThat(totals).containsEntry("orders", 2L).containsEntry("amount", 350L);
        assertThat(raw.queryForMap("SELECT status FROM reservations WHERE id = 1")).containsEntry("status", "expired");
        assertThat(raw.queryForMap("SELECT status, last_fence FROM reservations WHERE id = 2"))
                .containsEntry("status", "held").containsEntry("last_fence", 0L);
    }
}
