package dev.fencing.internal.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

class DemoTest {

    @Test
    void theDefaultDemoRejectsTheStalePaymentAndShowsTheUnfencedDoublePayment() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        String url = "jdbc:h2:mem:demo_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1";

        Demo.Result result = new Demo(new DriverManagerDataSource(url), null,
                new PrintStream(printed, true, StandardCharsets.UTF_8)).run();

        assertThat(result.fenced().staleWriteRejected()).isTrue();
        assertThat(result.fenced().charges()).isEqualTo(1);
        assertThat(result.fenced().paidBy()).isEqualTo("B");
        assertThat(result.fenced().rowFence()).isEqualTo(2);
        assertThat(result.unfenced().staleWriteRejected()).isFalse();
        assertThat(result.unfenced().charges()).isEqualTo(2);
        assertThat(result.unfenced().paidBy()).isEqualTo("A");
        assertThat(result.guarded().staleWriteRejected()).isTrue();
        assertThat(result.guarded().charges()).isEqualTo(1);
        assertThat(result.guarded().paidBy()).isEqualTo("B");
        assertThat(printed.toString(StandardCharsets.UTF_8))
                .contains("payment REJECTED: StaleFenceException, row holds fence 2")
                .contains("DOUBLE PAYMENT")
                .contains("payment REFUSED BY THE DATABASE: SQLState ZF002");
    }

    @Test
    void unknownOptionsAreUsageErrors() throws Exception {
        assertThat(Main.run(new String[] {"demo", "--bogus"})).isEqualTo(2);
        assertThat(Main.run(new String[] {"demo", "--jdbc"})).isEqualTo(2);
        assertThat(Main.run(new String[] {"nonsense"})).isEqualTo(2);
        assertThat(Main.run(new String[] {"guard", "--jdbc"})).isEqualTo(2);
        assertThat(Main.run(new String[] {"guard", "--jdbc", "jdbc:h2:mem:x", "print", "install"})).isEqualTo(2);
        assertThat(Main.run(new String[] {"guard", "print"})).isEqualTo(2);
    }
}
