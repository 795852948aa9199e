package dev.fencing.agent;

import example.app.RedissonSample;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application that only uses Redisson's {@code RFencedLock} (no fencing API, no fencing-driver
 * on its class path), fenced end to end by the agent: two tenures of one lock, the first one's
 * late write rejected in the database.
 */
class RedissonIT {

    private static final String REDIS = System.getenv().getOrDefault("FENCING_REDIS_URI", "redis://127.0.0.1:6379");

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.fencing.agent.ChildJvm#javas")
    void theTokenOfEachTenureFencesItsWrites(Path java, @TempDir Path dir) throws Exception {
        try (Postgres db = new Postgres().seed(1, 0)) {
            String output;
            try (ChildJvm app = ChildJvm.start(java, List.of(ChildJvm.javaagent(db.config(dir))),
                    ChildJvm.classPath(false), RedissonSample.class,
                    Postgres.URL, REDIS, db.table, "1", "agent-it-lock-" + UUID.randomUUID())) {
                output = app.awaitSuccess(Duration.ofSeconds(60));
            }
            String result = output.lines().filter(l -> l.startsWith("RESULT")).findFirst().orElseThrow(
                    () -> new AssertionError("no RESULT line:\n" + output));
            long tokenA = number(result, "tokenA");
            long tokenB = number(result, "tokenB");

            assertThat(tokenB).as(result).isGreaterThan(tokenA);
            assertThat(result).contains(" a1=1", " b1=1", " a2=StaleFenceException", " a3=MissingFenceException",
                    " b2=MissingFenceException");
            assertThat(db.row(1)).isEqualTo("B/" + tokenB);
        }
    }

    private static long number(String result, String key) {
        Matcher matcher = Pattern.compile(" " + key + "=(\\d+)").matcher(result);
        assertThat(matcher.find()).as("%s in %s", key, result).isTrue();
        return Long.parseLong(matcher.group(1));
    }
}
