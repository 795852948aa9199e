package dev.fencing.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.StaleFenceException;
import dev.fencing.lock.FencedLocks;
import dev.fencing.lock.RedisFencedLocks;
import dev.fencing.spring.FencingAutoConfiguration;
import dev.fencing.testing.PauseInjector;
import dev.fencing.testing.ScratchArea;
import dev.fencing.testing.TestDatabase;
import dev.fencing.testing.TestRedis;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The tracker's failure through {@code @SchedulerLock} in Spring Boot: two application contexts
 * (node 1 and node 2) on one PostgreSQL database, with the fencing starter and fencing-shedlock,
 * and nothing else about locks configured. Node 1's job stops inside, past its lockAtMostFor;
 * node 2's runs and writes; node 1's write is refused.
 */
@TestRedis
class SchedulerLockBootTest {

    static final PauseInjector PAUSES = new PauseInjector();
    static final String TABLE = "boot_job_runs";
    static ScratchArea schema;

    @BeforeAll
    static void createSchema() throws Exception {
        schema = ScratchArea.create(TestDatabase.Kind.POSTGRESQL);
        Nodes.createJobTable(schema.dataSource(), TABLE);
    }

    @AfterAll
    static void dropSchema() {
        PAUSES.close();
        schema.close();
    }

    /** The application's job: plain ShedLock, a JdbcTemplate write. */
    static class ReportJob {
        private final JdbcTemplate database;
        private final String node;

        ReportJob(JdbcTemplate database, @Value("${node}") String node) {
            this.database = database;
            this.node = node;
        }

        @SchedulerLock(name = "report", lockAtMostFor = "400ms")
        public void run() {
            PAUSES.pauseAt(node + " before its write");
            database.update("UPDATE " + TABLE + " SET writer = ?, writes = writes + 1 WHERE id = 1", node);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableSchedulerLock(defaultLockAtMostFor = "1m")
    @Import(ReportJob.class)
    static class JobsApplication {
    }

    private static ConfigurableApplicationContext node(String name) {
        return new SpringApplicationBuilder(JobsApplication.class).web(WebApplicationType.NONE)
                .properties("node=" + name, "spring.datasource.url=" + schema.url(), "fencing.tables=" + TABLE,
                        "spring.main.banner-mode=off")
                .run();
    }

    @Test
    void theStaleNodesWriteIsRefusedAndTheNewHoldersStays() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try (ConfigurableApplicationContext node1 = node("node 1"); ConfigurableApplicationContext node2 = node("node 2")) {
            assertThat(node1.getBean(LockProvider.class)).isInstanceOf(FencedLockProvider.class);
            ReportJob job1 = node1.getBean(ReportJob.class);
            ReportJob job2 = node2.getBean(ReportJob.class);

            PAUSES.arm("node 1 before its write");
            Future<?> a = threads.submit(job1::run);
            PAUSES.awaitPaused("node 1 before its write", Duration.ofSeconds(10));
            dev.fencing.testing.locks.ServerProcess.awaitUntil("node 2 runs the job", Duration.ofSeconds(30), () -> {
                try {
                    threads.submit(job2::run).get();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
                return "node 2".equals(Nodes.row(schema.dataSource(), TABLE).get("writer"));
            });
            PAUSES.release("node 1 before its write");

            ExecutionException refused = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, a::get);
            assertThat(refused.getCause()).hasRootCauseInstanceOf(StaleFenceException.class);
            assertThat(Nodes.row(schema.dataSource(), TABLE)).containsEntry("writer", "node 2").containsEntry("writes", 1);
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void theProviderBacksOffForTheApplicationsOwn(@TestRedis String redis) {
        LockProvider own = configuration -> Optional.empty();
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(FencingAutoConfiguration.class, FencedShedLockAutoConfiguration.class))
                .withBean(FencedLocks.class, () -> RedisFencedLocks.create(redis));
        runner.run(context -> assertThat(context.getBean(LockProvider.class)).isInstanceOf(FencedLockProvider.class));
        runner.withBean(LockProvider.class, () -> own)
                .run(context -> assertThat(context.getBean(LockProvider.class)).isSameAs(own));
    }
}
