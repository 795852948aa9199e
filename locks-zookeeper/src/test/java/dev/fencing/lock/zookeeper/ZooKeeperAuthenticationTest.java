package dev.fencing.lock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.lock.Lease;
import dev.fencing.lock.LockAcquisitionException;
import dev.fencing.testing.locks.ZooKeeperEnsemble;
import java.time.Duration;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Digest credentials in the address: lock nodes carry the CREATOR_ALL ACL, on a real server. */
class ZooKeeperAuthenticationTest {

    private static ZooKeeperEnsemble server;

    @BeforeAll
    static void start() {
        server = ZooKeeperEnsemble.start(1);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void onlyTheSameUserCanTakeReadOrDeleteTheLocks() throws Exception {
        String chroot = "/auth-" + UUID.randomUUID();
        String resource = "order:1";
        try (ZooKeeperFencedLocks alice = ZooKeeperFencedLocks.create("zookeeper://alice:s3cret@" + server.connectString() + chroot);
             ZooKeeperFencedLocks aliceElsewhere = ZooKeeperFencedLocks.create("zookeeper://alice:s3cret@" + server.connectString() + chroot);
             ZooKeeperFencedLocks anonymous = ZooKeeperFencedLocks.builder("zookeeper://" + server.connectString() + chroot)
                     .operationTimeout(Duration.ofSeconds(2)).build();
             ZooKeeperFencedLocks mallory = ZooKeeperFencedLocks.builder("zookeeper://mallory:guess@" + server.connectString() + chroot)
                     .operationTimeout(Duration.ofSeconds(2)).build();
             CuratorFramework raw = CuratorFrameworkFactory.newClient(server.connectString(), new RetryOneTime(100))) {
            raw.start();
            Lease lease = alice.tryAcquire(resource, Duration.ofSeconds(10)).orElseThrow();
            assertThat(aliceElsewhere.tryAcquire(resource, Duration.ofSeconds(10))).as("the same user sees it held").isEmpty();

            for (ZooKeeperFencedLocks stranger : new ZooKeeperFencedLocks[] {anonymous, mallory}) {
                assertThatThrownBy(() -> stranger.tryAcquire(resource, Duration.ofSeconds(10)))
                        .isInstanceOfSatisfying(LockAcquisitionException.class,
                                e -> assertThat(e.reason()).isEqualTo(LockAcquisitionException.Reason.STORE_FAILED))
                        .hasMessageContaining("NOAUTH")
                        .hasMessageNotContaining("guess")
                        .hasMessageNotContaining("s3cret");
            }
            String parent = chroot + ZooKeeperLockStore.parent(resource);
            assertThatThrownBy(() -> raw.getChildren().forPath(parent)).isInstanceOf(KeeperException.NoAuthException.class);

            lease.close();
            try (Lease next = aliceElsewhere.tryAcquire(resource, Duration.ofSeconds(10)).orElseThrow()) {
                assertThat(next.fence()).isGreaterThan(lease.fence());
            }
        }
    }
}
