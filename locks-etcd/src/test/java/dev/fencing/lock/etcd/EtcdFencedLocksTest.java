package dev.fencing.lock.etcd;

import dev.fencing.lock.FencedLocks;
import dev.fencing.lock.Lease;
import dev.fencing.lock.spi.StoreLocks;
import dev.fencing.testing.locks.EtcdCluster;
import dev.fencing.testing.locks.FencedLocksContractTest;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import java.time.Duration;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shared lock contract against one real etcd process (or the etcd at
 * {@code FENCING_ETCD_URI}, when set), each test class under a key prefix of its own.
 */
class EtcdFencedLocksTest extends FencedLocksContractTest {

    static final String PREFIX = "fencing-test/" + UUID.randomUUID() + "/";
    private static EtcdCluster cluster;
    private static String uri;
    private static Client admin;

    @BeforeAll
    static void startEtcd() {
        String external = System.getenv("FENCING_ETCD_URI");
        if (external != null && !external.isBlank()) {
            uri = external.trim();
        } else {
            cluster = EtcdCluster.start(1);
            uri = cluster.uri();
        }
        admin = Client.builder().endpoints(EtcdAddress.parse(uri).endpointUris().toArray(new java.net.URI[0])).build();
    }

    @AfterAll
    static void stopEtcd() throws Exception {
        admin.getKVClient().delete(bytes(PREFIX), io.etcd.jetcd.options.DeleteOption.builder().isPrefix(true).build())
                .get(10, TimeUnit.SECONDS);
        admin.close();
        if (cluster != null) {
            cluster.close();
        }
    }

    /**
     * Every renewal is answered: jetcd opens a stream per keep-alive, and about one such stream in
     * a few hundred went unanswered on a loaded machine until the renewal's whole timeout ran out
     * (the contract's stale-lease test failed on CI that way); the store sends an unanswered
     * keep-alive again on a new stream. A thousand renewals in a row met such a stream on every
     * run before.
     */
    @Test
    void aThousandRenewalsInARowAreEachAnswered() {
        FencedLocks locks = open(Options.plain());
        try (Lease lease = locks.tryAcquire(newResource(), longTtl()).orElseThrow()) {
            for (int i = 0; i < 1_000; i++) {
                assertTrue(StoreLocks.renewNow(lease, Duration.ofSeconds(5)), "renewal " + i);
            }
        }
    }

    @Override
    protected FencedLocks newLocks(Options options) {
        EtcdFencedLocks.Builder builder = EtcdFencedLocks.builder(uri).keyPrefix(PREFIX);
        if (options.watchdog()) {
            builder.watchdog(true).renewalSchedule(options.renewalSchedule());
        }
        if (options.pollInterval() != null) {
            builder.pollInterval(options.pollInterval());
        }
        return builder.build();
    }

    /** Revokes the holder's etcd lease, as its expiry would: the key goes with it. */
    @Override
    protected void expireAtStore(String resource) throws Exception {
        List<KeyValue> kvs = admin.getKVClient().get(bytes(PREFIX + resource)).get(10, TimeUnit.SECONDS).getKvs();
        for (KeyValue kv : kvs) {
            admin.getLeaseClient().revoke(kv.getLease()).get(10, TimeUnit.SECONDS);
        }
    }

    /** An hour: longer than the lease (an etcd lease keeps the TTL granted at the acquire). */
    @Override
    protected Duration unextendableTtl(Duration acquiredTtl) {
        return Duration.ofHours(1);
    }

    @Override
    protected String storeName() {
        return "etcd at " + EtcdAddress.parse(uri);
    }

    static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
