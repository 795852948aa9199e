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
import java.sql.Connection;
import java.sql.Statement;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
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

    /** A new one for each race: closing it frees a caught thread whatever the race's outcome. */
    static volatile PauseInjector pauses = new PauseInjector();
    static final String TABLE = "boot_job_runs";
    /** Not in fencing.tables: the control's writes pass the driver unchecked. */
    static final String PLAIN_TABLE = "boot_plain_job_runs";
    static ScratchArea schema;

    @BeforeAll
    static void createSchema() throws Exception {
        schema = ScratchArea.create(TestDatabase.Kind.POSTGRESQL);
        Nodes.createJobTable(schema.dataSource(), TABLE);
    }

    @AfterAll
    static void dropSchema() {
        schema.close();
    }

    /** The application's job: plain ShedLock, a JdbcTemplate write. */
    static class ReportJob {
        private final JdbcTemplate database;
        private final String node;
        private final String table;

        ReportJob(JdbcTemplate database, @Value("${node}") String node, @Value("${jobs.table:" + TABLE + "}") String table) {
            this.database = database;
            this.node = node;
            this.table = table;
        }

        public String table() {
            return table;
        }

        @SchedulerLock(name = "report", lockAtMostFor = "400ms")
        public void run() {
            pauses.pauseAt(node + " before its write");
            database.update("UPDATE " + table + " SET writer = ?, writes = writes + 1 WHERE id = 1", node);
        }
    }

    /** Through the bean's proxy: a method, not the field (the proxy's own fields are empty). */
    private static String table(ReportJob job) {
        return job.table();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableSchedulerLock(defaultLockAtMostFor = "1m")
    @Import({ReportJob.class, PlainShedLock.class})
    static class JobsApplication {
    }

    /** The control: the application's own JdbcTemplateLockProvider, which the auto-configuration leaves alone. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty("plain-shedlock")
    static class PlainShedLock {

        @Bean
        LockProvider plainLockProvider(DataSource dataSource) {
            return new JdbcTemplateLockProvider(dataSource);
        }
    }

    private static ConfigurableApplicationContext node(String name, String... properties) {
        return new SpringApplicationBuilder(JobsApplication.class).web(WebApplicationType.NONE)
                .properties("node=" + name, "spring.datasource.url=" + schema.url(), "fencing.tables=" + TABLE,
                        "spring.main.banner-mode=off")
                .properties(properties)
                .run();
    }

    /**
     * Node 1's job stops before its write until node 2 has run the job (after node 1's
     * lockAtMostFor) and written; then node 1 writes.
     *
     * @return what node 1's call threw, or null
     */
    private static Throwable race(ReportJob job1, ReportJob job2) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try (PauseInjector racePauses = new PauseInjector()) {
            pauses = racePauses;
            racePauses.arm("node 1 before its write");
            Future<?> a = threads.submit(job1::run);
            racePauses.awaitPaused("node 1 before its write", Duration.ofSeconds(10));
            dev.fencing.testing.locks.ServerProcess.awaitUntil("node 2 runs the job", Duration.ofSeconds(30), () -> {
                try {
                    threads.submit(job2::run).get();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
                return "node 2".equals(Nodes.row(schema.dataSource(), table(job2)).get("writer"));
            });
            racePauses.release("node 1 before its write");
            try {
                a.get();
                return null;
            } catch (ExecutionException e) {
                return e.getCause();
            }
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void theStaleNodesWriteIsRefusedAndTheNewHoldersStays() throws Exception {
        try (ConfigurableApplicationContext node1 = node("node 1"); ConfigurableApplicationContext node2 = node("node 2")) {
            assertThat(node1.getBean(LockProvider.class)).isInstanceOf(FencedLockProvider.class);
            Throwable refused = race(node1.getBean(ReportJob.class), node2.getBean(ReportJob.class));
            assertThat(refused).hasRootCauseInstanceOf(StaleFenceException.class);
            assertThat(Nodes.row(schema.dataSource(), TABLE)).containsEntry("writer", "node 2").containsEntry("writes", 1);
        }
    }

    @Test
    void withPlainShedLockBothNodesWrite() throws Exception {
        try (Connection c = schema.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE shedlock (name VARCHAR(64) NOT NULL PRIMARY KEY, lock_until TIMESTAMP(3),"
                    + " locked_at TIMESTAMP(3), locked_by VARCHAR(255) NOT NULL)");
        }
        Nodes.createJobTable(schema.dataSource(), PLAIN_TABLE);
        String[] plain = {"plain-shedlock=true", "jobs.table=" + PLAIN_TABLE};
        try (ConfigurableApplicationContext node1 = node("node 1", plain); ConfigurableApplicationContext node2 = node("node 2", plain)) {
            assertThat(node1.getBean(LockProvider.class)).isInstanceOf(JdbcTemplateLockProvider.class);
            assertThat(race(node1.getBean(ReportJob.class), node2.getBean(ReportJob.class))).isNull();
            assertThat(Nodes.row(schema.dataSource(), PLAIN_TABLE)).containsEntry("writer", "node 1").containsEntry("writes", 2);
        }
    }

    @Test
    void theProviderBacksOffForTheApplicationsOwn(@TestRedis String redis) {
        LockProvider own = configuration -> Optional.empty();
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(FencingAutoConfiguration.class, FencedShedLockAutoConfiguration.class))
                // The starter refuses to start without fenced tables, data source or not.
                .withPropertyValues("fencing.tables=" + TABLE)
                .withBean(FencedLocks.class, () -> RedisFencedLocks.create(redis));
        runner.run(context -> assertThat(context.getBean(LockProvider.class)).isInstanceOf(FencedLockProvider.class));
        runner.withBean(LockProvider.class, () -> own)
                .run(context -> assertThat(context.getBean(LockProvider.class)).isSameAs(own));
    }
}
