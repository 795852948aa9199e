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

    /** An hour: longer than the lease (no TTL may outlast the session timeout). */
    @Override
    protected Duration unextendableTtl(Duration acquiredTtl) {
        return Duration.ofHours(1);
    }

    @Override
    protected String storeName() {
        return "ZooKeeper at " + ZooKeeperAddress.parse(uri);
    }

    /**
     * Each waiting process takes one place in the queue, whatever its number of waiting
     * threads, and places are served in order: a release wakes the next process, not all.
     */
    @Test
    void waitingProcessesQueueWithOnePlaceEachAndAreServedInOrder() throws Exception {
        FencedLocks holder = open(Options.plain());
        FencedLocks first = open(new Options(null, Duration.ofSeconds(30)));
        FencedLocks second = open(new Options(null, Duration.ofSeconds(30)));
        String resource = newResource();
        String parent = ZooKeeperLockStore.parent(resource);
        Lease held = holder.tryAcquire(resource, Duration.ofSeconds(10)).orElseThrow();
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(3);
        java.util.concurrent.BlockingQueue<String> order = new java.util.concurrent.LinkedBlockingQueue<>();
        try {
            java.util.concurrent.Callable<Void> firstWaiter = () -> {
                try (Lease lease = first.acquire(resource, Duration.ofSeconds(10), Duration.ofSeconds(30))) {
                    order.add("first");
                }
                return null;
            };
            threads.submit(firstWaiter);
            threads.submit(firstWaiter);
            dev.fencing.testing.locks.ServerProcess.awaitUntil("the first process queues", Duration.ofSeconds(10),
                    () -> children(parent) == 2);
            threads.submit(() -> {
                try (Lease lease = second.acquire(resource, Duration.ofSeconds(10), Duration.ofSeconds(30))) {
                    order.add("second");
                }
                return null;
            });
            dev.fencing.testing.locks.ServerProcess.awaitUntil("the second process queues", Duration.ofSeconds(10),
                    () -> children(parent) == 3);
            Thread.sleep(300);
            assertThat(children(parent)).as("the lock and one place per waiting process, not per thread").isEqualTo(3);
            held.close();
            List<String> served = new java.util.ArrayList<>();
            for (int i = 0; i < 3; i++) {
                served.add(order.poll(20, java.util.concurrent.TimeUnit.SECONDS));
            }
            // The first process's place came first; its second thread queued again behind the second process.
            assertThat(served).containsExactly("first", "second", "first");
        } finally {
            threads.shutdownNow();
        }
    }

    private static int children(String parent) {
        try {
            return admin.checkExists().forPath(parent) == null ? 0 : admin.getChildren().forPath(parent).size();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
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
