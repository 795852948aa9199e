package dev.fencing.lock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.lock.Lease;
import dev.fencing.lock.LockAcquisitionException;
import dev.fencing.testing.locks.EtcdCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code etcds://} against an etcd that serves clients over TLS only and requires client
 * certificates; the certificates are made with the {@code openssl} command for this test.
 */
class EtcdTlsTest {

    @TempDir
    static Path certificates;
    private static EtcdCluster etcd;
    private static String endpoint;

    @BeforeAll
    static void startTlsEtcd() throws Exception {
        Path dir = certificates;
        openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca-key.pem", "-out", "ca.pem",
                "-days", "2", "-subj", "/CN=fencing test CA");
        for (String name : List.of("server", "client")) {
            openssl(dir, "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", name + "-key.pem");
            openssl(dir, "req", "-new", "-key", name + "-key.pem", "-out", name + ".csr", "-subj", "/CN=" + name);
            Files.writeString(dir.resolve(name + ".ext"), name.equals("server")
                    ? "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n"
                    : "extendedKeyUsage=clientAuth\n");
            openssl(dir, "x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem", "-CAcreateserial",
                    "-out", name + ".pem", "-days", "2", "-extfile", name + ".ext");
        }
        etcd = EtcdCluster.startWithTls(dir.resolve("ca.pem"), dir.resolve("server.pem"), dir.resolve("server-key.pem"));
        endpoint = etcd.members().get(0).endpoint();
    }

    @AfterAll
    static void stop() {
        if (etcd != null) {
            etcd.close();
        }
    }

    private static void openssl(Path dir, String... arguments) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of("openssl"));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as("openssl %s: %s", String.join(" ", arguments), output).isZero();
    }

    @Test
    void aClientCertificateSignedByTheCaGetsLocks() {
        String uri = "etcds://" + endpoint + "?ca=" + certificates.resolve("ca.pem") + "&cert=" + certificates.resolve("client.pem")
                + "&key=" + certificates.resolve("client-key.pem");
        try (EtcdFencedLocks locks = EtcdFencedLocks.builder(uri).operationTimeout(Duration.ofSeconds(15)).build();
             Lease lease = locks.tryAcquire("order:1", Duration.ofSeconds(5)).orElseThrow()) {
            assertThat(lease.fence()).isPositive();
            assertThat(locks.tryAcquire("order:1", Duration.ofSeconds(5))).isEmpty();
        }
    }

    @Test
    void withoutAClientCertificateOrWithoutTlsItFailsClosed() {
        String noClientCertificate = "etcds://" + endpoint + "?ca=" + certificates.resolve("ca.pem");
        for (String uri : List.of(noClientCertificate, "etcd://" + endpoint)) {
            try (EtcdFencedLocks locks = EtcdFencedLocks.builder(uri).operationTimeout(Duration.ofSeconds(3)).build()) {
                assertThatThrownBy(() -> locks.tryAcquire("order:2", Duration.ofSeconds(5)))
                        .isInstanceOfSatisfying(LockAcquisitionException.class,
                                e -> assertThat(e.reason()).isEqualTo(LockAcquisitionException.Reason.STORE_FAILED))
                        .hasMessageContaining(endpoint);
            }
        }
    }
}
