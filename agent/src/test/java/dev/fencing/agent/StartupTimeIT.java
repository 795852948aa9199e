package dev.fencing.agent;

import example.app.StartupSample;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Measures (and prints; asserts nothing) what the agent adds: the wall-clock time of a JVM that
 * starts and exits, and, inside the application, the time of its first connection
 * ({@code DriverManager}, PostgreSQL) and of its first write to a fenced table, each the median
 * of {@value #RUNS} runs with and without {@code -javaagent}.
 */
class StartupTimeIT {

    private static final int RUNS = 5;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern TIMES = Pattern.compile("TIMES connect=(\\d+) write=(\\d+)");

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.fencing.agent.ChildJvm#javas")
    void measure(Path java, @TempDir Path dir) throws Exception {
        try (Postgres db = new Postgres().seed(1, 0)) {
            List<String> agent = List.of(ChildJvm.javaagent(db.config(dir)));
            String classPath = ChildJvm.classPath(true);
            List<Long> startPlain = new ArrayList<>();
            List<Long> startAgent = new ArrayList<>();
            List<Long> connectPlain = new ArrayList<>();
            List<Long> connectAgent = new ArrayList<>();
            List<Long> writePlain = new ArrayList<>();
            List<Long> writeAgent = new ArrayList<>();
            for (int i = 0; i < RUNS; i++) { // interleaved, so that both see the same machine
                startPlain.add(wallMillis(java, List.of(), classPath));
                startAgent.add(wallMillis(java, agent, classPath));
                long[] plain = times(java, List.of(), classPath, db);
                long[] fenced = times(java, agent, classPath, db);
                connectPlain.add(plain[0]);
                writePlain.add(plain[1]);
                connectAgent.add(fenced[0]);
                writeAgent.add(fenced[1]);
            }
            String version = Runtime.version().toString();
            System.out.printf("%n=== fencing agent cost, %s (median of %d; this test JVM is Java %s) ===%n", java, RUNS, version);
            System.out.printf("JVM start to exit (empty main):  %5d ms without agent, %5d ms with: +%d ms%n",
                    median(startPlain), median(startAgent), median(startAgent) - median(startPlain));
            System.out.printf("first connection (DriverManager): %5.1f ms without agent, %5.1f ms with: +%.1f ms%n",
                    median(connectPlain) / 1000.0, median(connectAgent) / 1000.0,
                    (median(connectAgent) - median(connectPlain)) / 1000.0);
            System.out.printf("first write to a fenced table:    %5.1f ms without agent, %5.1f ms with: +%.1f ms%n%n",
                    median(writePlain) / 1000.0, median(writeAgent) / 1000.0,
                    (median(writeAgent) - median(writePlain)) / 1000.0);
        }
    }

    private static long wallMillis(Path java, List<String> options, String classPath) throws Exception {
        long start = System.nanoTime();
        try (ChildJvm jvm = ChildJvm.start(java, options, classPath, StartupSample.class)) {
            jvm.awaitSuccess(TIMEOUT);
        }
        return (System.nanoTime() - start) / 1_000_000;
    }

    private static long[] times(Path java, List<String> options, String classPath, Postgres db) throws Exception {
        try (ChildJvm jvm = ChildJvm.start(java, options, classPath, StartupSample.class, Postgres.URL, db.table, "1")) {
            String output = jvm.awaitSuccess(TIMEOUT);
            Matcher matcher = TIMES.matcher(output);
            if (!matcher.find()) {
                throw new AssertionError("no TIMES line:\n" + output);
            }
            return new long[] {Long.parseLong(matcher.group(1)), Long.parseLong(matcher.group(2))};
        }
    }

    private static long median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }
}
