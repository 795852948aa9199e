package dev.fencing.internal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.internal.config.ConfigKey;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The command line's flags are the configuration keys: one list, read from the registry. */
class ExplainFlagsTest {

    @Test
    void everyConfigurationKeyIsAFlagAndTheUsageNamesIt() {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        Explain.printUsage(new PrintStream(text, true, StandardCharsets.UTF_8));
        String usage = text.toString(StandardCharsets.UTF_8);
        for (ConfigKey key : ConfigKey.values()) {
            String flag = "--" + key.key().substring(ConfigKey.PREFIX.length());
            assertThat(usage).contains(flag);
            assertThat(Explain.keyOfFlag(flag.replace("<table>", "orders"))).isEqualTo(key);
        }
        assertThat(Explain.keyOfFlag("--dialect")).isNull();
        assertThat(Explain.keyOfFlag("UPDATE")).isNull();
    }

    @Test
    void aFlagReachesTheConfiguration() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            int status = Main.run(new String[] {"explain", "--tables", "orders", "--comparison", "strictly-newer",
                    "--table.orders.mode", "row", "UPDATE orders SET status = 'paid' WHERE id = 1"});
            assertThat(status).isZero();
        } finally {
            System.setOut(saved);
        }
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("COALESCE(orders.last_fence, 0) < ?");
    }
}
