package dev.fencing.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Fence;
import dev.fencing.StaleFenceException;
import dev.fencing.testing.PauseInjector;
import dev.fencing.testing.ScratchArea;
import dev.fencing.testing.TestDatabase;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock.InterceptMode;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.test.util.AopTestUtils;

/**
 * {@code @SchedulerLock} on a {@code @Scheduled} method in ShedLock's other Spring mode,
 * {@code interceptMode = PROXY_SCHEDULER} (deprecated for removal, still in ShedLock 6.10.0 and
 * 7.2.1): ShedLock proxies the {@link TaskScheduler}, not the job's bean, and wraps each task it
 * is given in a {@code LockableRunnable}, so {@code lock}, the job and {@code unlock} run on the
 * scheduler's thread. The jobs here run on their schedule, not called by the test; as in
 * {@link SchedulerLockBootTest}, node 1's run stops before its write past its lockAtMostFor,
 * node 2's run takes the lock over and writes, and node 1's write is then refused. The leases are
 * the starter's own, in the PostgreSQL database the jobs write.
 */
@SuppressWarnings("removal") // PROXY_SCHEDULER is deprecated for removal; testing it is the point
class SchedulerProxyModeBootTest {

    static final String TABLE = "scheduler_proxy_job_runs";
    static final String JOB = "scheduler-proxy-report";
    /** A new one for each race: closing it frees a caught thread whatever the race's outcome. */
    static volatile PauseInjector pauses = new PauseInjector();
    /** Each node's one writing run, by node name: the test waits on these as on latches. */
    static final Map<String, CompletableFuture<Run>> writingRuns = new ConcurrentHashMap<>();
    static ScratchArea schema;

    /** What a run saw on its thread while ShedLock held the lock, and what its write threw (null if none). */
    record Run(String thread, Optional<String> lock, OptionalLong fence, Throwable refusal) {
    }

    @BeforeAll
    static void createSchema() throws Exception {
        schema = ScratchArea.create(TestDatabase.Kind.POSTGRESQL);
        Nodes.createJobTable(schema.dataSource(), TABLE);
    }

    @AfterAll
    static void dropSchema() {
        schema.close();
    }

    /** The application's job: plain ShedLock on a plain schedule, a JdbcTemplate write. */
    static class ReportJob {
        private final JdbcTemplate database;
        private final String node;

        ReportJob(JdbcTemplate database, @Value("${node}") String node) {
            this.database = database;
            this.node = node;
        }

        /**
         * Each node writes once: later runs (the schedule goes on until the context closes)
         * take the lock and leave, so the row shows only the race's writes.
         */
        @Scheduled(fixedDelay = 50)
        @SchedulerLock(name = JOB, lockAtMostFor = "400ms")
        public void run() {
            CompletableFuture<Run> writing = writingRuns.get(node);
            if (writing == null || writing.isDone()) {
                return;
            }
            pauses.pauseAt(node + " before its write");
            String thread = Thread.currentThread().getName();
            try {
                database.update("UPDATE " + TABLE + " SET writer = ?, writes = writes + 1 WHERE id = 1", node);
                writing.complete(new Run(thread, Fence.currentLock(), Fence.current(), null));
            } catch (RuntimeException refused) {
                writing.complete(new Run(thread, Fence.currentLock(), Fence.current(), refused));
                throw refused;
            }
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableScheduling
    @EnableSchedulerLock(interceptMode = InterceptMode.PROXY_SCHEDULER, defaultLockAtMostFor = "1m")
    @Import(ReportJob.class)
    static class JobsApplication {
    }

    private static ConfigurableApplicationContext node(String name) {
        writingRuns.put(name, new CompletableFuture<>());
        return new SpringApplicationBuilder(JobsApplication.class).web(WebApplicationType.NONE)
                .properties("node=" + name, "spring.datasource.url=" + schema.url(), "fencing.tables=" + TABLE,
                        // One scheduler thread: a task scheduled after the job's run runs on the job's thread.
                        "spring.task.scheduling.pool.size=1", "spring.main.banner-mode=off")
                .run();
    }

    private static Run writingRun(String node) throws Exception {
        return writingRuns.get(node).get(30, TimeUnit.SECONDS);
    }

    /**
     * The fence current on the node's scheduler thread between runs, read by a task of its own
     * given to the scheduler's executor past ShedLock's proxy (the proxy only wraps scheduled methods).
     */
    private static OptionalLong fenceBetweenRuns(ConfigurableApplicationContext node) throws Exception {
        ThreadPoolTaskScheduler scheduler = AopTestUtils.getUltimateTargetObject(node.getBean(TaskScheduler.class));
        return scheduler.getScheduledExecutor().submit(Fence::current).get(30, TimeUnit.SECONDS);
    }

    @Test
    void theScheduledJobWritesWithTheLeasesFenceAndTheStaleNodesWriteIsRefused() throws Exception {
        try (PauseInjector racePauses = new PauseInjector()) {
            pauses = racePauses;
            racePauses.arm("node 1 before its write");
            try (ConfigurableApplicationContext node1 = node("node 1")) {
                assertThat(node1.getBean(LockProvider.class)).isInstanceOf(FencedLockProvider.class);
                racePauses.awaitPaused("node 1 before its write", Duration.ofSeconds(30));
                try (ConfigurableApplicationContext node2 = node("node 2")) {
                    assertThat(node2.getBean(LockProvider.class)).isInstanceOf(FencedLockProvider.class);
                    Run taker = writingRun("node 2");
                    assertThat(taker.refusal()).isNull();
                    assertThat(taker.lock()).hasValue(JOB);
                    assertThat(taker.fence()).isPresent();
                    assertThat(Nodes.row(schema.dataSource(), TABLE)).containsEntry("writer", "node 2")
                            .containsEntry("writes", 1).containsEntry("last_fence", taker.fence().getAsLong());

                    racePauses.release("node 1 before its write");
                    Run stale = writingRun("node 1");
                    assertThat(stale.refusal()).hasRootCauseInstanceOf(StaleFenceException.class);
                    assertThat(stale.lock()).hasValue(JOB);
                    assertThat(stale.fence().getAsLong()).isLessThan(taker.fence().getAsLong());
                    assertThat(stale.thread()).as("the scheduler's thread ran lock, job and unlock")
                            .startsWith("scheduling-");
                    assertThat(fenceBetweenRuns(node1)).as("node 1's scheduler thread after the refused run").isEmpty();
                    assertThat(Nodes.row(schema.dataSource(), TABLE)).containsEntry("writer", "node 2")
                            .containsEntry("writes", 1).containsEntry("last_fence", taker.fence().getAsLong());
                }
            }
        }
    }
}
