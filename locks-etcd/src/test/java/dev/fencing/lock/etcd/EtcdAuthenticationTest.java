package dev.fencing.lock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.lock.Lease;
import dev.fencing.lock.LockAcquisitionException;
import dev.fencing.testing.locks.EtcdCluster;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** etcd's own authentication, enabled on a private etcd with etcdctl, through the address's user:password. */
class EtcdAuthenticationTest {

    private static EtcdCluster etcd;
    private static String endpoint;

    @BeforeAll
    static void enableAuthentication() throws Exception {
        etcd = EtcdCluster.start(1);
        endpoint = etcd.members().get(0).endpoint();
        etcdctl("user", "add", "root:r00t-secret");
        etcdctl("auth", "enable");
    }

    @AfterAll
    static void stop() {
        etcd.close();
    }

    private static void etcdctl(String... arguments) throws Exception {
        String binary = System.getenv().getOrDefault("FENCING_ETCDCTL_BINARY", "etcdctl");
        List<String> command = new java.util.ArrayList<>(List.of(binary, "--endpoints=" + endpoint));
        command.addAll(List.of(arguments));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("ETCDCTL_API", "3");
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as("etcdctl %s: %s", String.join(" ", arguments), output).isZero();
    }

    @Test
    void theRightPasswordGetsLocksAndAWrongOneAClearFailureWithoutThePassword() {
        try (EtcdFencedLocks locks = EtcdFencedLocks.create("etcd://root:r00t-secret@" + endpoint);
             Lease lease = locks.tryAcquire("order:1", Duration.ofSeconds(5)).orElseThrow()) {
            assertThat(lease.fence()).isPositive();
        }
        try (EtcdFencedLocks wrong = EtcdFencedLocks.builder("etcd://root:not-it@" + endpoint)
                .operationTimeout(Duration.ofSeconds(3)).build()) {
            assertThatThrownBy(() -> wrong.tryAcquire("order:1", Duration.ofSeconds(5)))
                    .isInstanceOfSatisfying(LockAcquisitionException.class,
                            e -> assertThat(e.reason()).isEqualTo(LockAcquisitionException.Reason.STORE_FAILED))
                    .hasMessageContaining("etcd://root@" + endpoint)
                    .hasMessageNotContaining("not-it");
        }
        try (EtcdFencedLocks anonymous = EtcdFencedLocks.builder("etcd://" + endpoint)
                .operationTimeout(Duration.ofSeconds(3)).build()) {
            assertThatThrownBy(() -> anonymous.tryAcquire("order:1", Duration.ofSeconds(5)))
                    .isInstanceOf(LockAcquisitionException.class);
        }
    }
}
