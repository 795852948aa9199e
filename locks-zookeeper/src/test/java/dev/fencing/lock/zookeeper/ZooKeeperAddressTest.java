package dev.fencing.lock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ZooKeeperAddressTest {

    @Test
    void parsesHostsChrootCredentialsAndOptions() {
        ZooKeeperAddress address = ZooKeeperAddress.parse("zookeeper://bob:p%40ss@zk1:2181,zk2:2182/apps/orders?sessionTimeout=8s");
        assertThat(address.tls()).isFalse();
        assertThat(address.connectString()).isEqualTo("zk1:2181,zk2:2182");
        assertThat(address.namespace()).isEqualTo("apps/orders");
        assertThat(address.user()).isEqualTo("bob");
        assertThat(address.password()).isEqualTo("p@ss");
        assertThat(address.sessionTimeout()).isEqualTo(Duration.ofSeconds(8));
        assertThat(address.toString()).isEqualTo("zookeeper://bob@zk1:2181,zk2:2182/apps/orders");

        ZooKeeperAddress plain = ZooKeeperAddress.parse("zookeeper://127.0.0.1:2181");
        assertThat(plain.namespace()).isNull();
        assertThat(plain.sessionTimeout()).isEqualTo(ZooKeeperAddress.DEFAULT_SESSION_TIMEOUT);
        assertThat(ZooKeeperAddress.parse("zookeeper://127.0.0.1:2181/?sessionTimeout=1500").sessionTimeout())
                .isEqualTo(Duration.ofMillis(1500));
        assertThat(ZooKeeperAddress.parse("zookeepers://[::1]:2281?sessionTimeout=PT20S").tls()).isTrue();
    }

    @Test
    void refusesWhatItCannotUseWithoutEchoingPasswords() {
        assertThatThrownBy(() -> ZooKeeperAddress.parse("zk://127.0.0.1:2181")).hasMessageContaining("zookeeper://");
        assertThatThrownBy(() -> ZooKeeperAddress.parse("zookeeper://127.0.0.1")).hasMessageContaining("port");
        assertThatThrownBy(() -> ZooKeeperAddress.parse("zookeeper://127.0.0.1:2181,/x")).hasMessageContaining("empty");
        assertThatThrownBy(() -> ZooKeeperAddress.parse("zookeeper://127.0.0.1:2181/a//b")).hasMessageContaining("chroot");
        assertThatThrownBy(() -> ZooKeeperAddress.parse("zookeeper://127.0.0.1:2181/a/../b")).hasMessageContaining("chroot");
        assertThatThrownBy(() -> ZooKeeperAddress.parse("zookeeper://127.0.0.1:2181?sessionTimeout=soon"))
                .hasMessageContaining("sessionTimeout");
        assertThatThrownBy(() -> ZooKeeperAddress.parse("zookeeper://127.0.0.1:2181?sessionTimeout=0"))
                .hasMessageContaining("sessionTimeout");
        assertThatThrownBy(() -> ZooKeeperAddress.parse("zookeeper://127.0.0.1:2181?retries=3"))
                .hasMessageContaining("retries").hasMessageContaining("allowed");
        assertThatThrownBy(() -> ZooKeeperAddress.parse("zookeeper://u:hunter2@127.0.0.1:2181?truststore=/x.p12"))
                .hasMessageContaining("zookeepers://").hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> ZooKeeperAddress.parse("zookeepers://127.0.0.1:2181?truststore=/nonexistent.p12"))
                .hasMessageContaining("cannot read /nonexistent.p12");
        assertThatThrownBy(() -> ZooKeeperAddress.parse("zookeepers://127.0.0.1:2181?truststorePassword=hunter2&oops"))
                .hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> ZooKeeperAddress.parse("zookeeper://127.0.0.1:2181?=")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("without a value");
        assertThatThrownBy(() -> ZooKeeperAddress.parse("zookeeper://bob@127.0.0.1:2181")).hasMessageContaining("user:password");
        assertThatThrownBy(() -> ZooKeeperFencedLocks.builder("zookeeper://127.0.0.1:2181").pollInterval(Duration.ZERO).build())
                .hasMessageContaining("pollInterval");
    }
}
