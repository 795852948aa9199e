package dev.fencing.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Fence;
import dev.fencing.lock.zookeeper.ZooKeeperFencedLocks;
import dev.fencing.testing.locks.ZooKeeperEnsemble;

import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import net.javacrumbs.shedlock.core.LockConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * ZooKeeper's leases cannot outlive its session: a {@code lockAtMostFor} longer than the session
 * timeout is refused at {@code lock()}, with a message; a shorter one runs fenced.
 */
class ZooKeeperShedLockTest {

    private static ZooKeeperEnsemble server;
    private static ZooKeeperFencedLocks locks;

    @BeforeAll
    static void start() throws Exception {
        server = ZooKeeperEnsemble.start(1);
        locks = ZooKeeperFencedLocks.create("zookeeper://" + server.connectString() + "/shedlock-test?sessionTimeout=15s");
    }

    @AfterAll
    static void stop() throws Exception {
        if (locks != null) {
            locks.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aLockAtMostForLongerThanTheSessionTimeoutIsRefusedAtLock() {
        FencedLockProvider provider = new FencedLockProvider(locks);
        LockConfiguration hour = new LockConfiguration(Instant.now(), "job-" + UUID.randomUUID(), Duration.ofHours(1),
                Duration.ZERO);
        assertThatThrownBy(() -> provider.lock(hour)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("session timeout").hasMessageContaining(String.valueOf(Duration.ofHours(1).toMillis()));
        assertThat(Fence.current()).isEmpty();
    }

    @Test
    void aLockAtMostForWithinTheSessionRunsTheTaskFenced() throws Exception {
        try (Nodes.Node node = new Nodes.Node(new FencedLockProvider(locks))) {
            AtomicReference<OptionalLong> fence = new AtomicReference<>();
            assertThat(node.fire(Nodes.job("job-" + UUID.randomUUID(), Duration.ofSeconds(10), Duration.ZERO),
                    () -> fence.set(Fence.current())).get()).isTrue();
            assertThat(fence.get()).isPresent();
        }
    }
}
