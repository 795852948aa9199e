package dev.fencing.lock.etcd;

import dev.fencing.lock.FencedLocks;
import dev.fencing.testing.locks.ClusterFailoverContractTest;
import dev.fencing.testing.locks.EtcdCluster;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The failover contract on a three-member etcd cluster of real processes, each test under a key
 * prefix of its own.
 *
 * <p>The cluster runs with heartbeat 150 ms and election timeout 1500 ms (see
 * {@link EtcdCluster}), so etcd's smallest lease TTL is 3 s: the contract's TTL.
 */
class EtcdClusterFailoverTest extends ClusterFailoverContractTest<EtcdCluster.Member> {

    private static EtcdCluster cluster;
    private final String prefix = "fencing-failover/" + UUID.randomUUID() + "/";

    @BeforeAll
    static void startCluster() {
        cluster = EtcdCluster.start(3);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    protected EtcdCluster cluster() {
        return cluster;
    }

    @Override
    protected FencedLocks newLocks(List<EtcdCluster.Member> members, boolean watchdog) {
        return EtcdFencedLocks.builder("etcd://" + endpoints(members)).keyPrefix(prefix).watchdog(watchdog).operationTimeout(Duration.ofSeconds(2)).build();
    }

    @Override
    protected String label() {
        return "etcd";
    }
}
