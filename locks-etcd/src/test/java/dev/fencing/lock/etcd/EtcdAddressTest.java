package dev.fencing.lock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import org.junit.jupiter.api.Test;

class EtcdAddressTest {

    @Test
    void parsesEndpointsCredentialsAndOptions() {
        EtcdAddress address = EtcdAddress.parse("etcd://alice:s%40cret@10.0.0.1:2379,10.0.0.2:2379?prefix=app/locks/");
        assertThat(address.tls()).isFalse();
        assertThat(address.endpointUris()).containsExactly(URI.create("http://10.0.0.1:2379"), URI.create("http://10.0.0.2:2379"));
        assertThat(address.user()).isEqualTo("alice");
        assertThat(address.password()).isEqualTo("s@cret");
        assertThat(address.keyPrefix()).isEqualTo("app/locks/");
        assertThat(address.toString()).isEqualTo("etcd://alice@10.0.0.1:2379,10.0.0.2:2379").doesNotContain("cret");

        EtcdAddress tls = EtcdAddress.parse("etcds://[::1]:2379/?authority=etcd.internal");
        assertThat(tls.tls()).isTrue();
        assertThat(tls.endpointUris()).containsExactly(URI.create("https://[::1]:2379"));
        assertThat(tls.option("authority")).isEqualTo("etcd.internal");
        assertThat(tls.keyPrefix()).isEqualTo(EtcdAddress.DEFAULT_PREFIX);
    }

    @Test
    void refusesWhatItCannotUseWithoutEchoingThePassword() {
        assertThatThrownBy(() -> EtcdAddress.parse("http://127.0.0.1:2379")).hasMessageContaining("etcd://");
        assertThatThrownBy(() -> EtcdAddress.parse("etcd://127.0.0.1")).hasMessageContaining("port");
        assertThatThrownBy(() -> EtcdAddress.parse("etcd://127.0.0.1:2379,")).hasMessageContaining("empty");
        assertThatThrownBy(() -> EtcdAddress.parse("etcd://127.0.0.1:2379/locks")).hasMessageContaining("prefix");
        assertThatThrownBy(() -> EtcdAddress.parse("etcd://127.0.0.1:2379?timeout=5")).hasMessageContaining("timeout")
                .hasMessageContaining("allowed");
        assertThatThrownBy(() -> EtcdAddress.parse("etcd://u:hunter2@127.0.0.1:2379?ca=/x.pem"))
                .hasMessageContaining("etcds://").hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> EtcdAddress.parse("etcds://127.0.0.1:2379?cert=/nonexistent.pem"))
                .hasMessageContaining("cert and key");
        assertThatThrownBy(() -> EtcdAddress.parse("etcds://127.0.0.1:2379?ca=/nonexistent/ca.pem"))
                .hasMessageContaining("cannot read /nonexistent/ca.pem");
        assertThatThrownBy(() -> EtcdAddress.parse("etcd://alice@127.0.0.1:2379")).hasMessageContaining("user:password");
        assertThatThrownBy(() -> EtcdAddress.parse(" ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EtcdFencedLocks.builder("etcd://127.0.0.1:2379").operationTimeout(java.time.Duration.ZERO).build())
                .hasMessageContaining("operationTimeout");
    }
}
