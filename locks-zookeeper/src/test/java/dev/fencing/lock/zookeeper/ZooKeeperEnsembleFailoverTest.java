package dev.fencing.lock.zookeeper;

import dev.fencing.lock.FencedLocks;
import dev.fencing.testing.locks.ClusterFailoverContractTest;
import dev.fencing.testing.locks.ZooKeeperEnsemble;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The failover contract on a three-server ZooKeeper ensemble of real processes (child JVMs),
 * under a chroot of its own. Clients run with a 3 s session timeout, the contract's TTL: a server
 * paused past it loses its client's session, and with it the lease.
 */
class ZooKeeperEnsembleFailoverTest extends ClusterFailoverContractTest<ZooKeeperEnsemble.Member> {

    private static ZooKeeperEnsemble cluster;
    private static String chroot;

    @BeforeAll
    static void startCluster() {
        cluster = ZooKeeperEnsemble.start(3);
        chroot = "/fencing-failover-" + UUID.randomUUID();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    protected ZooKeeperEnsemble cluster() {
        return cluster;
    }

    @Override
    protected FencedLocks newLocks(List<ZooKeeperEnsemble.Member> members, boolean watchdog) {
        String uri = "zookeeper://" + endpoints(members) + chroot + "?sessionTimeout=3s";
        return ZooKeeperFencedLocks.builder(uri).watchdog(watchdog).operationTimeout(Duration.ofSeconds(2)).build();
    }

    @Override
    protected String label() {
        return "zookeeper";
    }
}
