package dev.fencing.agent;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class AttachCommandTest {

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... arguments) {
        return AttachCommand.run(arguments, new PrintStream(new ByteArrayOutputStream(), true),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void badArgumentsPrintTheUsage() {
        assertThat(run()).isEqualTo(2);
        assertThat(run("attach")).isEqualTo(2);
        assertThat(run("detach", "42")).isEqualTo(2);
        assertThat(run("attach", "not-a-pid")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("usage: java -jar fencing-agent.jar attach <pid> [config-path]");
    }

    @Test
    void aConfigurationFileThatCannotBeReadIsReportedBeforeAttaching() {
        assertThat(run("attach", "1", "/no/such/fencing.properties")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("cannot read the configuration file /no/such/fencing.properties");
    }
}
