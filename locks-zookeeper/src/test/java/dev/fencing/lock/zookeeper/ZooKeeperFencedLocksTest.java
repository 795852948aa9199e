package dev.fencing.lock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.lock.FencedLocks;
import dev.fencing.lock.Lease;
import dev.fencing.testing.locks.FencedLocksContractTest;
import dev.fencing.testing.locks.ZooKeeperEnsemble;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shared lock contract against one real ZooKeeper server (a child JVM), or the ensemble at
 * {@code FENCING_ZOOKEEPER_URI} when set; each test class under a chroot of its own.
 */
class ZooKeeperFencedLocksTest extends FencedLocksContractTest {

    private static ZooKeeperEnsemble server;
    private static String connectString;
    private static String uri;
    private static CuratorFramework admin;
    private static final String CHROOT = "/fencing-test-" + UUID.randomUUID();

    @BeforeAll
    static void startZooKeeper() throws Exception {
        String external = System.getenv("FENCING_ZOOKEEPER_URI");
        if (external != null && !external.isBlank()) {
            connectString = external.trim().substring("zookeeper://".length());
        } else {
            server = ZooKeeperEnsemble.start(1);
            connectString = server.connectString();
        }
        uri = "zookeeper://" + connectString + CHROOT + "?sessionTimeout=15s";
        admin = CuratorFrameworkFactory.builder().connectString(connectString).namespace(CHROOT.substring(1))
                .retryPolicy(new RetryOneTime(100)).build();
        admin.start();
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        if (admin.checkExists().forPath("/") != null) {
            admin.delete().deletingChildrenIfNeeded().forPath("/");
        }
        admin.close();
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected FencedLocks newLocks(Options options) {
        ZooKeeperFencedLocks.Builder builder = ZooKeeperFencedLocks.builder(uri);
        if (options.watchdog()) {
            builder.watchdog(true).renewalSchedule(options.renewalSchedule());
        }
        if (options.pollInterval() != null) {
            builder.pollInterval(options.pollInterval());
        }
        return builder.build();
    }

    /** Deletes the holder's node, as the expiry of its session would. */
    @Override
    protected void expireAtStore(String resource) throws Exception {
        String parent = ZooKeeperLockStore.parent(resource);
        List<String> children = admin.getChildren().forPath(parent);
        String lowest = children.stream().min(Comparator.comparing(child -> child.substring(child.length() - 10))).orElseThrow();
        admin.delete().forPath(parent + "/" + lowest);
    }

    @Override
    protected String storeName() {
        return "ZooKeeper at " + ZooKeeperAddress.parse(uri);
    }

    @Test
    void aTtlLongerThanTheSessionTimeoutIsRefusedBeforeALockIsTaken() {
        FencedLocks locks = open(Options.plain());
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> locks.tryAcquire(newResource(), Duration.ofSeconds(60)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("session timeout");
    }

    @Test
    void resourceNamesThatAreNotValidNodeNamesStillWork() {
        FencedLocks locks = open(Options.plain());
        for (String resource : List.of("a/b", ".", "..", "order 42 ✓", "%2F")) {
            try (Lease lease = locks.tryAcquire(resource, Duration.ofSeconds(5)).orElseThrow()) {
                assertThat(lease.resource()).isEqualTo(resource);
            }
        }
        try (Lease slash = locks.tryAcquire("a/b", Duration.ofSeconds(5)).orElseThrow()) {
            assertThat(locks.tryAcquire("a%2Fb", Duration.ofSeconds(5))).as("a different resource").isPresent()
                    .get().satisfies(Lease::close);
        }
    }
}
