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
 * Measures (and prints; asserts nothing) what the agent adds, with and without
 * {@code -javaagent}, {@value #RUNS} runs each, interleaved: the JVM's uptime when {@code main}
 * starts (the agent's {@code premain} runs before it), the application's first connection
 * ({@code DriverManager}, PostgreSQL; the driver class is instrumented as it loads, the
 * connection fenced) and its first write to a fenced table (under the agent the driver's SQL
 * analysis loads and runs for the first time). Median and minimum: on a busy machine the minimum
 * is the steadier figure.
 */
class StartupTimeIT {

    private static final int RUNS = 5;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern TIMES = Pattern.compile("TIMES main=(\\d+) connect=(\\d+) write=(\\d+)");

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.fencing.agent.ChildJvm#javas")
    void measure(Path java, @TempDir Path dir) throws Exception {
        try (Postgres db = new Postgres().seed(1, 0)) {
            List<String> agent = List.of(ChildJvm.javaagent(db.config(dir)));
            String classPath = ChildJvm.classPath(true);
            List<List<Long>> plain = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
            List<List<Long>> fenced = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
            for (int i = 0; i < RUNS; i++) {
                record(plain, run(java, List.of(), classPath, db));
                record(fenced, run(java, agent, classPath, db));
            }
            System.out.printf("%n=== fencing agent cost, %s: median (min) of %d runs ===%n", java, RUNS);
            print("JVM start to main()", plain.get(0), fenced.get(0), 1);
            print("first connection", plain.get(1), fenced.get(1), 1000);
            print("first fenced write", plain.get(2), fenced.get(2), 1000);
        }
    }

    private static void record(List<List<Long>> into, long[] times) {
        for (int i = 0; i < times.length; i++) {
            into.get(i).add(times[i]);
        }
    }

    private static void print(String what, List<Long> plain, List<Long> fenced, double perMilli) {
        System.out.printf("%-20s %7.1f (%6.1f) ms without agent, %7.1f (%6.1f) ms with: +%.1f (+%.1f) ms%n", what,
                median(plain) / perMilli, min(plain) / perMilli, median(fenced) / perMilli, min(fenced) / perMilli,
                (median(fenced) - median(plain)) / perMilli, (min(fenced) - min(plain)) / perMilli);
    }

    private static long[] run(Path java, List<String> options, String classPath, Postgres db) throws Exception {
        try (ChildJvm jvm = ChildJvm.start(java, options, classPath, StartupSample.class, Postgres.URL, db.table, "1")) {
            String output = jvm.awaitSuccess(TIMEOUT);
            Matcher matcher = TIMES.matcher(output);
            if (!matcher.find()) {
                throw new AssertionError("no TIMES line:\n" + output);
            }
            return new long[] {Long.parseLong(matcher.group(1)), Long.parseLong(matcher.group(2)),
                    Long.parseLong(matcher.group(3))};
        }
    }

    private static long median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    private static long min(List<Long> values) {
        return Collections.min(values);
    }
}
