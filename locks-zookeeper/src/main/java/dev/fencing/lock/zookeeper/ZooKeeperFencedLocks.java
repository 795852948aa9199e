package dev.fencing.lock.zookeeper;

import dev.fencing.lock.FencedLocks;
import dev.fencing.lock.Lease;
import dev.fencing.lock.LockAcquisitionException;
import dev.fencing.lock.spi.FencedLocksBuilder;
import dev.fencing.lock.spi.StoreLocks;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.retry.RetryUntilElapsed;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;

/**
 * Fenced locks in a ZooKeeper ensemble (Apache Curator): the fence of each lease is the zxid of
 * the creation of its lock node, so fences are unique and increasing across the ensemble and
 * never handed out again after a leader change, a server crash or a restart from disk.
 *
 * <pre>{@code
 * try (ZooKeeperFencedLocks locks = ZooKeeperFencedLocks.create("zookeeper://zk1:2181,zk2:2181,zk3:2181/myapp")) {
 *     try (Lease lease = locks.acquire("order:42", Duration.ofSeconds(10), Duration.ofSeconds(5))) {
 *         lease.runFenced(() -> orders.markPaid(42));
 *     }
 * }
 * }</pre>
 *
 * <h2>How a lock is kept</h2>
 * The lock on resource {@code r} is held by the lowest (by sequence number) ephemeral
 * sequential child of {@code /fencing/locks/<r>} (below the chroot; the name percent-encoded),
 * whose data is the lease's ownership token. An acquire creates such a child; if it is the
 * lowest, the lock is taken and the fence is the child's creation zxid ({@code czxid}), else the
 * child is deleted again. ZooKeeper assigns zxids in one total order agreed by a quorum (the
 * leader's epoch in the high 32 bits, a counter in the low), so a later holder always has a
 * larger fence, also across leader elections and after the parent node was removed (parents are
 * container nodes) and created again, where sequence numbers would start over.
 *
 * <h2>Leases, TTLs and sessions</h2>
 * Ephemeral nodes live as long as the client's session. A lease's TTL is kept by this process:
 * a lease neither renewed nor released within its TTL has its node deleted by a timer here.
 * When the process stops (a pause, a crash), its heartbeats stop too, and ZooKeeper deletes its
 * nodes once the session times out. Hence the TTL must not exceed the session timeout (default
 * 15 s, set with {@code ?sessionTimeout=}; ZooKeeper clamps it to the server's
 * {@code minSessionTimeout}..{@code maxSessionTimeout}, by default 2 to 20 ticks): a longer TTL
 * is refused with {@link IllegalArgumentException}. The lease is lost, and
 * {@link Lease#isHeld()} turns {@code false}: when the session expires (Curator reports it lost,
 * also when the connection stays down for a session timeout); when a renewal (with
 * {@link Builder#watchdog(boolean)}, every third of the TTL) finds the node gone or owned by
 * another session; and by this process's own clock once the TTL has passed since the last
 * renewal that reached a server.
 *
 * <h2>Waiting</h2>
 * A process with threads waiting for a lock takes one place in its queue (an empty ephemeral
 * sequential node) and watches only the node before it, so a release wakes one process, not
 * all of them. When its place becomes the lowest, one waiting thread takes the lock with it.
 * Waiters re-check only every {@link Builder#pollInterval poll interval} (default 5 s) as a
 * safety net.
 *
 * <h2>Addresses</h2>
 * {@code zookeeper://host:port[,host:port...][/chroot]}, with optional {@code user:password@}
 * (ZooKeeper {@code digest} authentication: nodes are then created with the
 * {@code CREATOR_ALL} ACL, so only the same user can change them) and options
 * {@code ?sessionTimeout=15s}; {@code zookeepers://} connects over TLS (ZooKeeper's Netty
 * client) with {@code truststore}, {@code truststorePassword}, {@code keystore},
 * {@code keystorePassword}. The chroot is created if missing. Messages never show passwords.
 *
 * <h2>Failures</h2>
 * Curator connects in the background when the instance is built. An acquire that cannot reach a
 * quorum within about the operation timeout (default 5 s) fails with
 * {@link LockAcquisitionException.Reason#STORE_FAILED}; a node it may have created is deleted
 * (Curator's protected and guaranteed operations), or goes with the session.
 *
 * <p>Supported servers: ZooKeeper 3.6 and later (container nodes need 3.5.3; proven against
 * 3.9.4). Thread-safe; one instance per application and ensemble is enough.
 */
public final class ZooKeeperFencedLocks implements FencedLocks {

    private final StoreLocks locks;
    private final String address;

    private ZooKeeperFencedLocks(StoreLocks locks, String address) {
        this.locks = locks;
        this.address = address;
    }

    /**
     * Fenced locks in the ZooKeeper ensemble at {@code uri} with the default settings: no
     * renewal, 15 s session timeout, 5 s operation timeout, 5 s safety poll for waiters.
     *
     * @throws IllegalArgumentException if the address cannot be parsed
     */
    public static ZooKeeperFencedLocks create(String uri) {
        return builder(uri).build();
    }

    /** Starts configuring fenced locks in the ZooKeeper ensemble at {@code uri}. */
    public static Builder builder(String uri) {
        return new Builder(uri);
    }

    /**
     * Takes the lock on {@code resource} for {@code ttl} if nobody holds it: one attempt, no waiting.
     *
     * @return the lease, or empty when someone else holds the lock
     * @throws LockAcquisitionException if no quorum answered in time
     * @throws IllegalArgumentException if the resource is blank, or the TTL not positive or
     *         longer than the session timeout
     */
    @Override
    public Optional<Lease> tryAcquire(String resource, Duration ttl) {
        return locks.tryAcquire(resource, ttl);
    }

    /**
     * Takes the lock on {@code resource} for {@code ttl}, waiting up to {@code maxWait} in the
     * lock's queue.
     *
     * @throws LockAcquisitionException with reason
     *         {@link LockAcquisitionException.Reason#TIMED_OUT TIMED_OUT} when the lock stayed
     *         held for {@code maxWait}, {@code STORE_FAILED} when ZooKeeper still failed when
     *         {@code maxWait} ran out (attempts that fail are made again within the wait), or
     *         another reason. The lease time comes first and the wait second: the opposite
     *         order to Redisson's {@code tryLock(waitTime, leaseTime, unit)}.
     */
    @Override
    public Lease acquire(String resource, Duration ttl, Duration maxWait) {
        return locks.acquire(resource, ttl, maxWait);
    }

    /** Stops renewing and closes the session: ZooKeeper deletes this client's lock nodes at once. */
    @Override
    public void close() {
        locks.close();
    }

    @Override
    public String toString() {
        return "ZooKeeperFencedLocks[" + address + "]";
    }

    /**
     * Settings of a {@link ZooKeeperFencedLocks}: those of every store ({@link FencedLocksBuilder}:
     * watchdog, poll interval (default 5 s here: how long a waiter waits for its turn before it
     * checks again anyway), operation timeout (about the most one call may take, waiting for a
     * connection included), renewal schedule); {@link #build()} checks them.
     */
    public static final class Builder extends FencedLocksBuilder<Builder> {
        private final ZooKeeperAddress address;

        private Builder(String uri) {
            super(Duration.ofSeconds(5));
            this.address = ZooKeeperAddress.parse(uri);
        }

        /**
         * Connects (in the background) and starts the lease machinery.
         *
         * @throws IllegalArgumentException naming the setting whose value is not allowed
         */
        public ZooKeeperFencedLocks build() {
            checkSettings();
            int sessionMillis = (int) address.sessionTimeout().toMillis();
            int operationMillis = (int) Math.min(Integer.MAX_VALUE, operationTimeout().toMillis());
            CuratorFrameworkFactory.Builder curator = CuratorFrameworkFactory.builder()
                    .connectString(address.connectString())
                    .sessionTimeoutMs(sessionMillis)
                    .connectionTimeoutMs(operationMillis)
                    // Keep the servers the address names; do not follow the ensemble's dynamic config.
                    .ensembleTracker(false)
                    .retryPolicy(new RetryUntilElapsed(operationMillis, 100));
            if (address.namespace() != null) {
                curator.namespace(address.namespace());
            }
            if (address.user() != null) {
                curator.authorization("digest", (address.user() + ":" + address.password()).getBytes(StandardCharsets.UTF_8))
                        .aclProvider(new ACLProvider() {
                            @Override
                            public List<ACL> getDefaultAcl() {
                                return ZooDefs.Ids.CREATOR_ALL_ACL;
                            }

                            @Override
                            public List<ACL> getAclForPath(String path) {
                                return ZooDefs.Ids.CREATOR_ALL_ACL;
                            }
                        });
            }
            if (address.tls()) {
                curator.zkClientConfig(tlsConfig());
            }
            CuratorFramework client = curator.build();
            ZooKeeperLockStore store = new ZooKeeperLockStore(client, address.toString(), sessionMillis);
            System.getLogger(ZooKeeperFencedLocks.class.getName()).log(System.Logger.Level.DEBUG,
                    () -> "ZooKeeperFencedLocks at " + address + ": " + describeSettings());
            return new ZooKeeperFencedLocks(startMachinery(store), address.toString());
        }

        private ZKClientConfig tlsConfig() {
            ZKClientConfig config = new ZKClientConfig();
            config.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
            config.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, "org.apache.zookeeper.ClientCnxnSocketNetty");
            setIfPresent(config, "zookeeper.ssl.trustStore.location", address.option("truststore"));
            setIfPresent(config, "zookeeper.ssl.trustStore.password", address.option("truststorePassword"));
            setIfPresent(config, "zookeeper.ssl.keyStore.location", address.option("keystore"));
            setIfPresent(config, "zookeeper.ssl.keyStore.password", address.option("keystorePassword"));
            return config;
        }

        private static void setIfPresent(ZKClientConfig config, String key, String value) {
            if (value != null) {
                config.setProperty(key, value);
            }
        }

    }
}
