package dev.fencing.internal.cli;

import dev.fencing.testing.TestDatabase;
import dev.fencing.testing.TestRedis;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** The demo on the servers a user would point it at: PostgreSQL for the rows, Redis for the locks. */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
class DemoOnServersTest {

    @Test
    void theDemoRunsOnPostgresWithRedisLocksToo(DataSource postgres, @TestRedis String redisUri) throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();

        Demo.Result result = new Demo(postgres, redisUri, new PrintStream(printed, true, StandardCharsets.UTF_8)).run();

        assertThat(result.asExpected()).as(printed.toString(StandardCharsets.UTF_8)).isTrue();
    }
}
