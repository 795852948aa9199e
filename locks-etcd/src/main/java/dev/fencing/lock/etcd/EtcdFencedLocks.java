package dev.fencing.lock.etcd;

import dev.fencing.lock.FencedLocks;
import dev.fencing.lock.Lease;
import dev.fencing.lock.LockAcquisitionException;
import dev.fencing.lock.spi.FencedLocksBuilder;
import dev.fencing.lock.spi.StoreLocks;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import javax.net.ssl.SSLException;

/**
 * Fenced locks in an etcd cluster: the fence of each lease is the cluster revision at which its
 * lock key was created, so fences are unique and increasing across the whole cluster and are
 * never handed out again after a leader change, a member crash or a restart from disk.
 *
 * <pre>{@code
 * try (EtcdFencedLocks locks = EtcdFencedLocks.create("etcd://10.0.0.1:2379,10.0.0.2:2379,10.0.0.3:2379")) {
 *     try (Lease lease = locks.acquire("order:42", Duration.ofSeconds(10), Duration.ofSeconds(5))) {
 *         lease.runFenced(() -> orders.markPaid(42));
 *     }
 * }
 * }</pre>
 *
 * <h2>How a lock is kept</h2>
 * The lock on resource {@code r} is the key {@code fencing/locks/r}. An acquire grants an etcd
 * lease with the TTL, then runs one transaction: if the key's {@code create_revision} is 0 (no
 * such key), put it with this attempt's ownership token, attached to the lease. The revision of
 * that transaction is the fence: etcd's revision counts every change to the cluster's key space,
 * is agreed by a quorum through Raft, and only grows. Release deletes the key only if its create
 * revision is still the lease's fence, then revokes the etcd lease. Renewal (with
 * {@link Builder#watchdog(boolean)}, every third of the TTL) sends one keepalive for the etcd
 * lease and checks that the key is still the one the tenure created; a keepalive that finds
 * the etcd lease gone, or a key that is gone or recreated, makes the lease lost at once. When
 * keepalives fail (no quorum, no connection), the lease turns lost by this process's own
 * clock when its TTL has passed since the last keepalive was sent.
 *
 * <h2>TTLs</h2>
 * etcd leases count whole seconds, and etcd raises a TTL below its minimum to that minimum
 * ({@code 1.5 * election timeout}, rounded up to a second: 2 s with etcd's default
 * 100 ms heartbeat and 1 s election timeout). The TTL asked for is rounded up to whole seconds;
 * etcd may make it longer still. {@link Lease#isHeld()} counts the TTL asked for, so it turns
 * {@code false} before etcd lets a successor in; a lock whose holder died stays taken for the
 * TTL etcd granted. If etcd ever granted less than was asked, the acquire fails.
 *
 * <h2>Waiting</h2>
 * A waiting {@link #acquire} watches the lock key (one etcd watch per resource and process,
 * started before its next attempt, so no release is missed) and tries again when the key is
 * deleted, by a release or by the expiry of its holder's etcd lease. Between events it re-checks
 * only every {@link Builder#pollInterval poll interval} (default 5 s), as a safety net for a
 * watch stream broken by a failover.
 *
 * <h2>Addresses</h2>
 * {@code etcd://host:port[,host:port...]}, or {@code etcds://} for TLS, with optional
 * {@code user:password@} (etcd's own authentication; the user needs read and write permission
 * on the key prefix) and options: {@code ?ca=/path/ca.pem} (trusted certificates, else the JVM's),
 * {@code &cert=/path/client.pem&key=/path/client-key.pem} (a client certificate, PKCS#8 key),
 * {@code &authority=name} (the name on the server certificate), {@code &prefix=locks/} (the key
 * prefix, default {@code fencing/locks/}). Messages never show the password.
 *
 * <h2>Failures</h2>
 * Nothing connects until the first acquire. When no quorum answers within the operation
 * timeout (default 5 s), the acquire fails with
 * {@link LockAcquisitionException.Reason#STORE_FAILED}; if etcd took the lock but the answer was
 * lost, the attempt's etcd lease is revoked (or expires), which deletes the key: no lock is ever
 * left held with a fence nobody has.
 *
 * <p>Supported servers: etcd v3 API, 3.4 and later (proven against 3.4.23). Thread-safe; one
 * instance per application and cluster is enough.
 */
public final class EtcdFencedLocks implements FencedLocks {

    private final StoreLocks locks;
    private final String address;

    private EtcdFencedLocks(StoreLocks locks, String address) {
        this.locks = locks;
        this.address = address;
    }

    /**
     * Fenced locks in the etcd cluster at {@code uri} with the default settings: no renewal,
     * 5 s operation timeout, watch-woken waiters with a 5 s safety poll. Does not connect yet.
     *
     * @throws IllegalArgumentException if the address cannot be parsed
     */
    public static EtcdFencedLocks create(String uri) {
        return builder(uri).build();
    }

    /** Starts configuring fenced locks in the etcd cluster at {@code uri}. */
    public static Builder builder(String uri) {
        return new Builder(uri);
    }

    /**
     * Takes the lock on {@code resource} for {@code ttl} (rounded up to whole seconds) if nobody
     * holds it: one attempt, no waiting.
     *
     * @return the lease, or empty when someone else holds the lock
     * @throws LockAcquisitionException if no etcd quorum answered in time
     * @throws IllegalArgumentException if the resource is blank or the TTL not positive
     */
    @Override
    public Optional<Lease> tryAcquire(String resource, Duration ttl) {
        return locks.tryAcquire(resource, ttl);
    }

    /**
     * Takes the lock on {@code resource} for {@code ttl} (rounded up to whole seconds), waiting
     * up to {@code maxWait} for its holder to release it or let it expire.
     *
     * @throws LockAcquisitionException with reason
     *         {@link LockAcquisitionException.Reason#TIMED_OUT TIMED_OUT} when the lock stayed
     *         held for {@code maxWait}, {@code STORE_FAILED} when etcd still failed when
     *         {@code maxWait} ran out (attempts that fail are made again within the wait), or
     *         another reason. The lease time comes first and the wait second: the opposite
     *         order to Redisson's {@code tryLock(waitTime, leaseTime, unit)}.
     */
    @Override
    public Lease acquire(String resource, Duration ttl, Duration maxWait) {
        return locks.acquire(resource, ttl, maxWait);
    }

    /** Stops renewing leases and closes the client; leases still open expire by their TTL. */
    @Override
    public void close() {
        locks.close();
    }

    @Override
    public String toString() {
        return "EtcdFencedLocks[" + address + "]";
    }

    /**
     * Settings of an {@link EtcdFencedLocks}: those of every store ({@link FencedLocksBuilder}:
     * watchdog (keepalives every third of the TTL), poll interval, operation timeout (connecting
     * included), renewal schedule) and etcd's own; {@link #build()} checks them. The poll
     * interval defaults to 5 s here: releases and expiries wake waiters through a watch at once,
     * so it only bounds the wait when a watch was lost.
     */
    public static final class Builder extends FencedLocksBuilder<Builder> {
        private final EtcdAddress address;
        private String keyPrefix;

        private Builder(String uri) {
            super(Duration.ofSeconds(5));
            this.address = EtcdAddress.parse(uri);
            this.keyPrefix = address.keyPrefix();
        }

        /** The prefix of every lock key (default {@code fencing/locks/}, or the address's {@code prefix}). */
        public Builder keyPrefix(String prefix) {
            Objects.requireNonNull(prefix, "keyPrefix");
            if (prefix.isEmpty()) {
                throw new IllegalArgumentException("keyPrefix must not be empty (lock keys would mix with other keys)");
            }
            this.keyPrefix = prefix;
            return this;
        }

        /**
         * @throws IllegalArgumentException naming the setting whose value is not allowed, or
         *         when a TLS file of the address cannot be used
         */
        public EtcdFencedLocks build() {
            checkSettings();
            Client client = client();
            EtcdLockStore store = new EtcdLockStore(client, address.toString(), keyPrefix);
            System.getLogger(EtcdFencedLocks.class.getName()).log(System.Logger.Level.DEBUG, () -> "EtcdFencedLocks at "
                    + address + ": keyPrefix=" + keyPrefix + ", " + describeSettings());
            return new EtcdFencedLocks(startMachinery(store), address.toString());
        }

        private Client client() {
            ClientBuilder builder = Client.builder()
                    .endpoints(address.endpointUris().toArray(new java.net.URI[0]))
                    .connectTimeout(operationTimeout())
                    // A failed call is retried by jetcd within this budget; the store's own
                    // timeout bounds every call anyway.
                    .retryMaxDuration(operationTimeout());
            if (address.user() != null) {
                builder.user(ByteSequence.from(address.user(), StandardCharsets.UTF_8))
                        .password(ByteSequence.from(address.password(), StandardCharsets.UTF_8));
            }
            if (address.option("authority") != null) {
                builder.authority(address.option("authority"));
            }
            if (address.tls()) {
                try {
                    builder.sslContext(ssl -> {
                        if (address.option("ca") != null) {
                            ssl.trustManager(new File(address.option("ca")));
                        }
                        if (address.option("cert") != null) {
                            ssl.keyManager(new File(address.option("cert")), new File(address.option("key")));
                        }
                    });
                } catch (SSLException | IllegalArgumentException e) {
                    throw new IllegalArgumentException("cannot use the TLS files of " + address + ": " + e.getMessage(), e);
                }
            }
            return builder.build();
        }

    }
}
