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
            String result = run(java, db, db.config(dir));

            long tokenB = number(result, "tokenB");
            assertThat(db.row(1)).isEqualTo("B/" + tokenB); // the fence column holds B's token
        }
    }

    /** Epoch mode: the tokens are checked against one epoch row per lock, the table has no part in it. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.fencing.agent.ChildJvm#javas")
    void inEpochModeTheLocksNameAndTokenGuardTheTable(Path java, @TempDir Path dir) throws Exception {
        try (Postgres db = new Postgres().seed(1, 0); Postgres.Guard guard = db.guardTable()) {
            String lock = "agent-it-lock-" + UUID.randomUUID();
            String result = run(java, db, db.config(dir, "fencing.mode=epoch", "fencing.epoch-table=" + guard.name),
                    lock);

            long tokenB = number(result, "tokenB");
            assertThat(db.row(1)).isEqualTo("B/0"); // the fence column is not epoch mode's
            assertThat(guard.fence(lock)).isEqualTo(tokenB);
        }
    }

    private static String run(Path java, Postgres db, Path config) throws Exception {
        return run(java, db, config, "agent-it-lock-" + UUID.randomUUID());
    }

    private static String run(Path java, Postgres db, Path config, String lock) throws Exception {
        String output;
        try (ChildJvm app = ChildJvm.start(java, List.of(ChildJvm.javaagent(config)),
                ChildJvm.classPath(false), RedissonSample.class, Postgres.URL, REDIS, db.table, "1", lock)) {
            output = app.awaitSuccess(Duration.ofSeconds(60));
        }
        String result = output.lines().filter(l -> l.startsWith("RESULT")).findFirst().orElseThrow(
                () -> new AssertionError("no RESULT line:\n" + output));
        assertThat(number(result, "tokenB")).as(result).isGreaterThan(number(result, "tokenA"));
        assertThat(result).contains(" a1=1", " b1=1", " a2=StaleFenceException", " a3=MissingFenceException",
                " b2=MissingFenceException");
        return result;
    }

    private static long number(String result, String key) {
        Matcher matcher = Pattern.compile(" " + key + "=(\\d+)").matcher(result);
        assertThat(matcher.find()).as("%s in %s", key, result).isTrue();
        return Long.parseLong(matcher.group(1));
    }
}
