package dev.fencing.examples.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fencing.testing.locks.EtcdCluster;
import dev.fencing.testing.locks.ZooKeeperEnsemble;
import java.util.UUID;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/** The demo's timeline on a real etcd and a real ZooKeeper: rejected with fencing, paid twice without. */
class ConsensusDemoTest {

    private static JdbcDataSource h2() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:demo-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        return h2;
    }

    private static void check(String uri) throws Exception {
        ConsensusDemo demo = new ConsensusDemo(uri, h2(), System.out);
        ConsensusDemo.Outcome fenced = demo.run(true);
        assertTrue(fenced.staleWriteRejected());
        assertEquals(1, fenced.charges());
        assertEquals("B", fenced.paidBy());
        ConsensusDemo.Outcome unfenced = demo.run(false);
        assertFalse(unfenced.staleWriteRejected());
        assertEquals(2, unfenced.charges());
    }

    @Test
    void etcd() throws Exception {
        try (EtcdCluster etcd = EtcdCluster.start(1)) {
            check(etcd.uri());
        }
    }

    @Test
    void zookeeper() throws Exception {
        try (ZooKeeperEnsemble zookeeper = ZooKeeperEnsemble.start(1)) {
            check(zookeeper.uri() + "/demo?sessionTimeout=5s");
        }
    }
}
