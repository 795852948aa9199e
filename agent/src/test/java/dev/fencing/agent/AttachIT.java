package dev.fencing.agent;

import example.app.AttachSample;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code java -jar fencing-agent.jar attach <pid> <config>} into a running application that
 * already has its pool, its connections and its own {@code Fence} class: connections it takes
 * from the pool afterwards are fenced.
 */
class AttachIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.fencing.agent.ChildJvm#javas")
    void attachingFencesTheConnectionsTakenAfterwards(Path java, @TempDir Path dir) throws Exception {
        try (Postgres db = new Postgres().seed(1, 7);
             ChildJvm app = ChildJvm.start(java, List.of(), ChildJvm.classPath(true), AttachSample.class,
                     Postgres.URL, db.table, "1")) {
            String ready = app.awaitLine("READY ", TIMEOUT);
            assertThat(app.output()).contains("BEFORE fence=OptionalLong.empty none=1"); // unfenced before
            assertThat(ready).isEqualTo("READY " + app.pid());

            String attach;
            try (ChildJvm attacher = ChildJvm.start(List.of(java.toString(), "-jar",
                    ChildJvm.agentJar().toAbsolutePath().toString(), "attach", Long.toString(app.pid()),
                    db.config(dir).toString()))) {
                attach = attacher.awaitSuccess(TIMEOUT);
            }
            assertThat(attach).contains("fencing agent attached to " + app.pid());
            // what an attach cannot change is said where the operator looks: the command's output and the target's log
            assertThat(attach).contains("connections the application obtained before the attach and still holds are NOT fenced");

            app.send("go");
            String output = app.awaitSuccess(TIMEOUT);
            assertThat(output).contains("fencing agent attached in")
                    .contains("connections the application obtained before the attach and still holds are NOT fenced")
                    // what is possible: the pool loaded before the attach is instrumented now, and says so
                    .containsPattern("now instrumented: .*com\\.zaxxer\\.hikari\\.HikariDataSource");
            // the application loaded its own Fence before the agent came: that copy stays the one in effect
            assertThat(output).contains("FENCE loader=jdk.internal.loader.ClassLoaders$AppClassLoader");
            assertThat(output).contains("RESULT mode=attached-hikari connection=dev.fencing.internal.jdbc.FencedConnection "
                    + "current=1 stale=StaleFenceException none=MissingFenceException");
            assertThat(db.row(1)).isEqualTo("current/9");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.fencing.agent.ChildJvm#javas")
    void aRefusedAttachFailsTheCommandAndLeavesTheApplicationRunning(Path java, @TempDir Path dir) throws Exception {
        Path noTables = Files.writeString(dir.resolve("fencing.properties"), "fencing.column=last_fence\n");
        try (Postgres db = new Postgres().seed(1, 7);
             ChildJvm app = ChildJvm.start(java, List.of(), ChildJvm.classPath(true), AttachSample.class,
                     Postgres.URL, db.table, "1")) {
            app.awaitLine("READY ", TIMEOUT);

            try (ChildJvm attacher = ChildJvm.start(List.of(java.toString(), "-jar",
                    ChildJvm.agentJar().toAbsolutePath().toString(), "attach", Long.toString(app.pid()), noTables.toString()))) {
                assertThat(attacher.awaitExit(TIMEOUT)).as(attacher.output()).isEqualTo(1);
                assertThat(attacher.output()).contains("fencing agent: not started: no fenced table configured, so the "
                        + "agent would fence nothing; set fencing.tables in " + noTables.toAbsolutePath());
            }

            app.send("go");
            String output = app.awaitSuccess(TIMEOUT);
            // the application ran to its end, unfenced (nothing was installed), with the refusal in its log and no stack trace
            assertThat(output).contains("fencing agent: not started: no fenced table configured")
                    .contains("attach refused; the application runs on as before, unchanged")
                    .doesNotContain("Exception in thread").doesNotContain("\tat ");
            assertThat(output).contains("RESULT mode=attached-hikari connection=com.zaxxer.hikari.pool.HikariProxyConnection "
                    + "current=1 stale=1 none=1");
            assertThat(db.row(1)).isEqualTo("none/7");
        }
    }
}
