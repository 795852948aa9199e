package dev.fencing.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.KillArgs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A master and a replica of the test's own, and a failover that loses the newest write: the
 * replica is frozen (SIGSTOP) and the master drops its link, so the next acquire on the
 * master reaches no replica; then the master dies and the replica is promoted.
 *
 * <p>Without {@code WAIT}, the promoted replica hands out the same fence a second time. With
 * {@code WAIT 1}, the acquire on the master fails closed instead: the fence the replica
 * issues again was never handed to anyone.
 */
class RedisFailoverTest {

    private static final String RESOURCE = "order:42";
    private static final RedisKeys KEYS = new RedisKeys("fencing:");

    @TempDir
    Path dir;

    private final List<RedisServerProcess> servers = new ArrayList<>();

    @AfterEach
    void killServers() {
        servers.forEach(RedisServerProcess::kill);
    }

    @Test
    void withoutWaitAPromotedReplicaIssuesAFenceAgain() throws Exception {
        RedisServerProcess master = startMaster();
        RedisServerProcess replica = startReplicaOf(master);
        long handedOut;
        try (RedisFencedLocks locks = RedisFencedLocks.create(master.uri())) {
            locks.tryAcquire(RESOURCE, Duration.ofSeconds(30)).orElseThrow().close();
            awaitReplicated(replica, 1);

            cutReplication(master, replica);
            Lease lease = locks.tryAcquire(RESOURCE, Duration.ofSeconds(30)).orElseThrow();
            handedOut = lease.fence();
            assertThat(handedOut).isEqualTo(2);
        }
        long reissued = failOver(master, replica);
        assertThat(reissued).as("the promoted replica hands out fence %d again", handedOut).isEqualTo(handedOut);
        System.out.printf("failover without WAIT: fence %d handed out by the master, and again by the promoted replica%n",
                handedOut);
    }

    @Test
    void withWaitForOneReplicaAnUnreplicatedFenceIsNeverHandedOut() throws Exception {
        RedisServerProcess master = startMaster();
        RedisServerProcess replica = startReplicaOf(master);
        List<Long> handedOut = new ArrayList<>();
        try (RedisFencedLocks locks = RedisFencedLocks.builder(master.uri())
                .waitForReplicas(1, Duration.ofMillis(300)).build()) {
            try (Lease lease = locks.tryAcquire(RESOURCE, Duration.ofSeconds(30)).orElseThrow()) {
                handedOut.add(lease.fence()); // acknowledged by the replica
            }
            awaitReplicated(replica, 1);

            cutReplication(master, replica);
            assertThatThrownBy(() -> locks.tryAcquire(RESOURCE, Duration.ofSeconds(30)))
                    .isInstanceOfSatisfying(LockAcquisitionException.class, e -> {
                        assertThat(e.reason()).isEqualTo(LockAcquisitionException.Reason.NOT_REPLICATED);
                        assertThat(e.resource()).isEqualTo(RESOURCE);
                    })
                    .hasMessageContaining("only 0 of 1 replicas")
                    .hasMessageContaining("fence 2")
                    .hasMessageContaining("released");
            // Failed closed: the master took the lock and issued fence 2, then released it.
            assertThat(master.<Long>withCommands(redis -> redis.exists(KEYS.lock(RESOURCE)))).isZero();
            assertThat(master.<String>withCommands(redis -> redis.get(KEYS.fence(RESOURCE)))).isEqualTo("2");
        }
        long reissued = failOver(master, replica);
        assertThat(reissued).as("the promoted replica issues fence 2, which nobody was handed").isEqualTo(2);
        handedOut.add(reissued);
        assertThat(new HashSet<>(handedOut)).as("no fence handed out twice").hasSameSizeAs(handedOut);
        System.out.printf("failover with WAIT 1: fence 2 discarded by the master (not replicated), "
                + "then handed out once by the promoted replica; fences handed out: %s%n", handedOut);
    }

    private RedisServerProcess startMaster() throws Exception {
        RedisServerProcess master = RedisServerProcess.start(Files.createDirectories(dir.resolve("master")));
        servers.add(master);
        return master;
    }

    private RedisServerProcess startReplicaOf(RedisServerProcess master) throws Exception {
        RedisServerProcess replica = RedisServerProcess.start(Files.createDirectories(dir.resolve("replica")),
                "--replicaof", "127.0.0.1", Integer.toString(master.port()));
        servers.add(replica);
        RedisServerProcess.awaitUntil("the replica is in sync", Duration.ofSeconds(10),
                () -> replica.withCommands(redis -> redis.info("replication")).contains("master_link_status:up")
                        && master.withCommands(redis -> redis.info("replication")).contains("state=online"));
        // After a diskless sync the master streams writes only once the replica has sent its
        // first acknowledgement (up to a second later): wait until a write is acknowledged.
        long acknowledged = master.withCommands(redis -> {
            redis.set("probe", "1");
            return redis.waitForReplication(1, 5_000);
        });
        assertThat(acknowledged).as("the replica acknowledges writes").isEqualTo(1);
        return replica;
    }

    /** Waits until the replica has the counter at {@code fence} and no lock (the release, too). */
    private static void awaitReplicated(RedisServerProcess replica, long fence) {
        RedisServerProcess.awaitUntil("the replica has fence " + fence + " and the release", Duration.ofSeconds(5),
                () -> replica.withCommands(redis -> String.valueOf(fence).equals(redis.get(KEYS.fence(RESOURCE)))
                        && redis.exists(KEYS.lock(RESOURCE)) == 0));
    }

    /**
     * Freezes the replica, then has the master drop the link: writes from here on reach no
     * replica (the frozen one cannot reconnect), deterministically, unlike a race with a kill.
     */
    private static void cutReplication(RedisServerProcess master, RedisServerProcess replica) throws Exception {
        replica.pause();
        long dropped = master.withCommands(redis -> redis.clientKill(KillArgs.Builder.typeSlave()));
        assertThat(dropped).as("replica links dropped").isEqualTo(1);
    }

    /** Kills the master, thaws and promotes the replica, and acquires there: returns the fence. */
    private static long failOver(RedisServerProcess master, RedisServerProcess replica) throws Exception {
        master.kill();
        replica.resume();
        replica.withCommands(redis -> redis.replicaofNoOne());
        try (RedisFencedLocks promoted = RedisFencedLocks.create(replica.uri());
                Lease lease = promoted.tryAcquire(RESOURCE, Duration.ofSeconds(30)).orElseThrow()) {
            return lease.fence();
        }
    }
}
