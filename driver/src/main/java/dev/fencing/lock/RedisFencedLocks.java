package dev.fencing.lock;

import dev.fencing.internal.lock.RedisAddress;
import dev.fencing.internal.lock.RedisLockStore;
import dev.fencing.lock.spi.FencedLocksBuilder;
import dev.fencing.lock.spi.StoreLocks;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Fenced locks kept in Redis: each acquire takes the lock and issues its fencing token in
 * one atomic step (one Lua script: {@code SET lock owner NX PX ttl}, and the fence
 * {@code max(counter + 1, the server's clock in microseconds)} stored in a counter that never
 * expires), so every lease's {@linkplain Lease#fence() fence} is larger than every fence
 * issued before it for the same resource, even after Redis lost its most recent writes (see
 * <em>Fences</em>).
 *
 * <pre>{@code
 * try (RedisFencedLocks locks = RedisFencedLocks.create("redis://127.0.0.1:6379")) {
 *     try (Lease lease = locks.acquire("order:42", Duration.ofSeconds(30), Duration.ofSeconds(5))) {
 *         lease.runFenced(() -> orders.markPaid(42));
 *     }
 * }
 * }</pre>
 *
 * <h2>Fences</h2>
 * A fence is {@code max(counter + 1, now)}, {@code now} being the Redis server's {@code TIME}
 * in microseconds since the Unix epoch (about 1.8e15 today, far below {@code 2^53}). A
 * counter alone goes back when Redis loses recent writes (a restart from an older snapshot, a
 * failover to a replica that missed the last acquire) and would issue a fence a second time;
 * the clock does not go back with it. The next fence is larger than every fence issued before
 * as long as (1) the counter never ran ahead of the clock: at most one fence per microsecond
 * per resource, which a single Redis cannot exceed (one script at a time, each several
 * microseconds); and (2) the clock of the server issuing after the loss is not behind the
 * clock of the server that issued the lost fences by more than the time between the last lost
 * fence and the first new one (a restart or a failover takes at least seconds in practice:
 * keep the Redis nodes' clocks synchronised, e.g. NTP, well within that). A counter that ran
 * ahead of the clock (a clock stepped back) keeps counting from itself. See
 * {@code docs/locks.md}.
 *
 * <h2>Addresses</h2>
 * Lettuce URI syntax: {@code redis://[user:password@]host:port[/db]}, {@code rediss://} (TLS),
 * {@code redis-socket:///path}, {@code redis-sentinel://host:port[,host:port]#masterName}.
 * For a Redis Cluster, which Lettuce's URIs cannot express, use
 * {@code redis-cluster://[user:password@]host:port[,host:port...]} (or
 * {@code rediss-cluster://}): the listed nodes are seeds, and the rest of the topology is
 * discovered. Messages name the address without credentials.
 *
 * <h2>Keys</h2>
 * For resource {@code r} and the default prefix: {@code fencing:{r}:lock} (the lock, with a
 * TTL), {@code fencing:{r}:fence} (the fence counter, which never expires) and the channel
 * {@code fencing:{r}:released}. The braces make both keys one cluster slot (braces and
 * {@code %} in a resource name are percent-encoded, so any name works). Do not
 * delete the counter, and keep Redis from evicting it ({@code maxmemory-policy}
 * {@code noeviction} or a {@code volatile-*} policy, which only evicts keys with a TTL): a
 * counter that is lost falls back to the clock, which is safe only under the assumptions
 * above.
 *
 * <h2>Failover and {@code WAIT}</h2>
 * Redis replicates asynchronously: a replica promoted after a failover may not have seen the
 * newest fences and the locks they came with. The clock floor keeps its fences larger (above);
 * the lock itself, though, may be granted again while its previous holder still believes it
 * holds it, which the fence then makes harmless at the resource. {@link Builder#waitForReplicas}
 * narrows that window: after each acquire, {@code WAIT n timeout}; if fewer than {@code n}
 * replicas acknowledge, the lock is released, its fence discarded, and the acquire fails with
 * {@link LockAcquisitionException.Reason#NOT_REPLICATED}. {@code WAIT} runs on the shared
 * connection and holds back its other commands while replicas lag, up to the timeout. Right
 * after a replica's full resync, Redis may stream writes to it only after its first
 * acknowledgement, up to a second later; acquires meanwhile fail closed.
 *
 * <h2>Failures</h2>
 * {@link #create} and {@link Builder#build()} connect and load the scripts before they return
 * (the release-notification connection opens in the background), so that the first acquire
 * costs what a later one does; a Redis that cannot be reached then is logged and left to the
 * acquires. Commands fail at once while the connection is down rather than queueing (Lettuce
 * reconnects in the background). {@link #tryAcquire} then throws
 * {@link LockAcquisitionException} with reason
 * {@link LockAcquisitionException.Reason#STORE_FAILED} at once; {@link #acquire} tries again,
 * with growing pauses, until Redis answers or {@code maxWait} runs out, so that a restart or a
 * failover shorter than the wait costs a delay, not an error; a wait that runs out while Redis
 * still fails throws {@code STORE_FAILED} and says so. The script
 * is atomic, so there is never half a lock: if Redis ran it but the reply was lost, the lock
 * is held in nobody's name until its TTL passes, and its fence is never used.
 *
 * <h2>Waiting</h2>
 * {@link #acquire} does not spin: a release publishes on the resource's channel, and one
 * waiting thread per process (subscribed to it) tries again at once; a release by this
 * process's own lease wakes one of its waiters directly. Between messages they try again after the
 * holder's remaining TTL (when shorter than the poll interval) or after the poll interval,
 * jittered, until {@code maxWait} has passed.
 *
 * <h2>Renewal</h2>
 * By default a lease expires after its TTL. With {@link Builder#watchdog(boolean)}, each
 * lease is extended by its TTL every third of it (compare-and-pexpire) until it is closed,
 * each lease on its own, each renewal waiting at most the command timeout (less when the lease
 * has less time left); when an extension finds the lock gone or in other hands, the lease
 * knows it is lost ({@link Lease#isHeld()} turns {@code false}).
 *
 * <p>Thread-safe; one instance per application and Redis is enough. Closing it closes its
 * connections and stops its renewals; leases still open then expire by their TTL.
 */
public final class RedisFencedLocks implements FencedLocks {

    private final StoreLocks issuer;
    private final String address;

    private RedisFencedLocks(StoreLocks issuer, String address) {
        this.issuer = issuer;
        this.address = address;
    }

    /**
     * Fenced locks in the Redis at {@code redisUri} with the default settings: key prefix
     * {@code fencing:}, no renewal, no replica acknowledgement, 5 s operation timeout, 100 ms
     * poll interval. Connects before it returns (a Redis that cannot be reached is not an
     * error here: acquires try again; see <em>Failures</em>).
     *
     * @throws IllegalArgumentException if the URI cannot be parsed
     */
    public static RedisFencedLocks create(String redisUri) {
        return builder(redisUri).build();
    }

    /** Starts configuring fenced locks in the Redis at {@code redisUri}. */
    public static Builder builder(String redisUri) {
        return new Builder(redisUri);
    }

    /**
     * Takes the lock on {@code resource} for {@code ttl} if nobody holds it: one atomic
     * attempt, no waiting.
     *
     * @return the lease, or empty when the lock is held by someone else
     * @throws LockAcquisitionException if Redis cannot be reached or fails, or too few
     *         replicas acknowledged
     * @throws IllegalArgumentException if the resource is blank or the TTL not positive
     */
    public Optional<Lease> tryAcquire(String resource, Duration ttl) {
        return issuer.tryAcquire(resource, ttl);
    }

    /**
     * Takes the lock on {@code resource} for {@code ttl}, waiting up to {@code maxWait} for
     * its holder to release it or let it expire, and for Redis to answer again when it cannot be
     * reached meanwhile (see <em>Failures</em>). The lease time comes first and the wait
     * second: the opposite order to Redisson's {@code tryLock(waitTime, leaseTime, unit)}.
     *
     * @throws LockAcquisitionException with reason
     *         {@link LockAcquisitionException.Reason#TIMED_OUT TIMED_OUT} when the lock stayed
     *         held for {@code maxWait}, {@code STORE_FAILED} when Redis still failed when
     *         {@code maxWait} ran out, or another reason
     * @throws IllegalArgumentException if the resource is blank, the TTL not positive or
     *         {@code maxWait} negative
     */
    public Lease acquire(String resource, Duration ttl, Duration maxWait) {
        return issuer.acquire(resource, ttl, maxWait);
    }

    /** Closes the connections and stops renewing leases. */
    @Override
    public void close() {
        issuer.close();
    }

    @Override
    public String toString() {
        return "RedisFencedLocks[" + address + "]";
    }

    /**
     * Settings of a {@link RedisFencedLocks}: those of every store ({@link FencedLocksBuilder}:
     * watchdog, poll interval (default 100 ms), operation timeout (one Redis command, or
     * connecting; default 5 s), renewal schedule) and Redis's own; {@link #build()} checks them.
     */
    public static final class Builder extends FencedLocksBuilder<Builder> {
        private final RedisAddress address;
        private String keyPrefix = "fencing:";
        private int replicas;
        private Duration replicaTimeout = Duration.ZERO;

        private Builder(String redisUri) {
            super(Duration.ofMillis(100));
            this.address = RedisAddress.parse(redisUri);
        }

        /**
         * The prefix of every key and channel name (default {@code fencing:}); it must not
         * contain braces, which would break the keys' hash tag.
         */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
            return this;
        }

        /**
         * After each acquire, wait up to {@code timeout} for {@code replicas} replicas to
         * acknowledge it ({@code WAIT}); if fewer do, release the lock and fail the acquire
         * (reason {@link LockAcquisitionException.Reason#NOT_REPLICATED NOT_REPLICATED}).
         * Default: 0 replicas, no {@code WAIT}. The timeout must be positive and shorter than
         * the operation timeout.
         */
        public Builder waitForReplicas(int replicas, Duration timeout) {
            if (replicas < 0) {
                throw new IllegalArgumentException("waitForReplicas: replicas must be >= 0, got " + replicas);
            }
            this.replicas = replicas;
            this.replicaTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * Connects (see <em>Failures</em>) and starts the lease machinery.
         *
         * @throws IllegalArgumentException naming the setting whose value is not allowed
         */
        public RedisFencedLocks build() {
            checkSettings();
            if (replicas > 0) {
                requirePositive("waitForReplicas timeout", replicaTimeout);
                if (replicaTimeout.compareTo(operationTimeout()) >= 0) {
                    throw new IllegalArgumentException("waitForReplicas timeout (" + replicaTimeout
                            + ") must be shorter than operationTimeout (" + operationTimeout() + ")");
                }
            }
            System.getLogger(RedisFencedLocks.class.getName()).log(System.Logger.Level.DEBUG, () -> "RedisFencedLocks at "
                    + address + ": keyPrefix=" + keyPrefix + ", waitForReplicas=" + replicas
                    + (replicas > 0 ? " within " + replicaTimeout : "") + ", " + describeSettings());
            RedisLockStore store = RedisLockStore.open(address, keyPrefix, operationTimeout(), replicas, replicaTimeout);
            return new RedisFencedLocks(startMachinery(store), address.toString());
        }
    }
}
