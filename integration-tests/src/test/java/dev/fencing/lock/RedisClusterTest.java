package dev.fencing.lock;

import dev.fencing.internal.lock.RedisKeys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.it.Await;
import dev.fencing.testing.RedisServer;
import dev.fencing.testing.RedisServers;
import io.lettuce.core.cluster.SlotHash;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** A three-master Redis Cluster of the test's own, addressed by {@code redis-cluster://}. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisClusterTest {

    private final RedisServers servers = new RedisServers();
    private final List<RedisServer> nodes = new ArrayList<>();
    private String uri;

    @BeforeAll
    void startCluster(@TempDir Path dir) throws Exception {
        for (int i = 0; i < 3; i++) {
            nodes.add(servers.startClusterNode());
        }
        List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
        nodes.forEach(node -> create.add("127.0.0.1:" + node.port()));
        create.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
        Process process = new ProcessBuilder(create).redirectErrorStream(true)
                .redirectOutput(dir.resolve("cluster-create.log").toFile()).start();
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(Files.readString(dir.resolve("cluster-create.log"))).isZero();
        for (RedisServer node : nodes) {
            Await.until("the cluster is ok on " + node.port(), Duration.ofSeconds(15),
                    () -> RedisCommandsOn.server(node, redis -> redis.clusterInfo()).contains("cluster_state:ok"));
        }
        uri = "redis-cluster://127.0.0.1:" + nodes.get(0).port() + ",127.0.0.1:" + nodes.get(1).port();
    }

    @AfterAll
    void stopCluster() {
        servers.close();
    }

    @Test
    void locksOnEveryNodeIssueGrowingFences() {
        Set<Integer> slots = new HashSet<>();
        try (RedisFencedLocks locks = RedisFencedLocks.create(uri)) {
            for (int i = 0; i < 30; i++) {
                String resource = "order:" + i;
                slots.add(SlotHash.getSlot(new RedisKeys("fencing:").lock(resource)));
                long first;
                try (Lease lease = locks.tryAcquire(resource, Duration.ofSeconds(10)).orElseThrow()) {
                    first = lease.fence();
                    assertThat(locks.tryAcquire(resource, Duration.ofSeconds(10))).isEmpty();
                }
                try (Lease lease = locks.tryAcquire(resource, Duration.ofSeconds(10)).orElseThrow()) {
                    assertThat(lease.fence()).isGreaterThan(first);
                }
            }
        }
        assertThat(slots).as("resources spread over many slots").hasSizeGreaterThan(20);
    }

    @Test
    void waitersWakeOnReleasesAcrossTheCluster() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try (RedisFencedLocks first = RedisFencedLocks.create(uri); RedisFencedLocks second = RedisFencedLocks.create(uri)) {
            List<Future<List<Long>>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                RedisFencedLocks locks = t % 2 == 0 ? first : second;
                done.add(threads.submit(() -> {
                    List<Long> fences = new ArrayList<>();
                    for (int i = 0; i < 25; i++) {
                        try (Lease lease = locks.acquire("shared", Duration.ofSeconds(10), Duration.ofSeconds(20))) {
                            fences.add(lease.fence());
                        }
                    }
                    return fences;
                }));
            }
            Set<Long> all = new HashSet<>();
            for (Future<List<Long>> future : done) {
                all.addAll(future.get(30, TimeUnit.SECONDS));
            }
            assertThat(all).hasSize(100);
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void waitingForReplicasThatDoNotExistFailsClosedOnTheKeysNode() {
        try (RedisFencedLocks locks = RedisFencedLocks.builder(uri).waitForReplicas(1, Duration.ofMillis(50)).build()) {
            assertThatThrownBy(() -> locks.tryAcquire("order:replicated", Duration.ofSeconds(10)))
                    .isInstanceOfSatisfying(LockAcquisitionException.class,
                            e -> assertThat(e.reason()).isEqualTo(LockAcquisitionException.Reason.NOT_REPLICATED))
                    .hasMessageContaining("redis-cluster://127.0.0.1:");
        }
        try (RedisFencedLocks locks = RedisFencedLocks.create(uri)) {
            assertThat(locks.tryAcquire("order:replicated", Duration.ofSeconds(10))).as("released again").isPresent();
        }
    }
}
