package dev.fencing.internal.lock;

import dev.fencing.lock.LockAcquisitionException;
import dev.fencing.lock.spi.Attempt;
import dev.fencing.lock.spi.LeaseEvents;
import dev.fencing.lock.spi.LockStore;
import dev.fencing.lock.spi.Tenure;
import io.lettuce.core.RedisException;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;

/**
 * Fenced locks in Redis, each operation one Lua script (see the {@code .lua} files beside
 * this class): the lock is a key holding the owner's UUID with a TTL, and the fence comes
 * from a counter key that never expires, incremented by the same script that sets the lock.
 *
 * <p>When replicas are required, every successful acquire is followed by {@code WAIT} on the
 * same connection; if too few replicas acknowledge in time, the lock is released again and
 * the acquire fails, so that a replica promoted after a failover cannot issue the same fence
 * to someone else.
 */
public final class RedisLockStore implements LockStore {

    private final RedisConnections connections;
    private final RedisReleaseChannel channel;
    private final RedisKeys keys;
    private final int replicas;
    private final long replicaTimeoutMillis;

    /**
     * Connects to the Redis at {@code address} and loads the scripts before it returns (see
     * {@link RedisConnections#open()}): the store of a {@code RedisFencedLocks}.
     *
     * @param operationTimeout how long a command (and a connect) may take
     * @param replicas how many replicas must acknowledge each acquire; 0 for none
     * @param replicaTimeout how long {@code WAIT} waits for them
     */
    public static RedisLockStore open(RedisAddress address, String keyPrefix, Duration operationTimeout, int replicas,
            Duration replicaTimeout) {
        RedisKeys keys = new RedisKeys(keyPrefix);
        RedisReleaseChannel channel = new RedisReleaseChannel(keys);
        RedisConnections connections = new RedisConnections(address, operationTimeout, channel);
        channel.connect(connections);
        try {
            connections.open();
        } catch (RuntimeException e) {
            connections.close();
            throw e;
        }
        return new RedisLockStore(connections, channel, keys, replicas, replicaTimeout.toMillis());
    }

    /**
     * @param replicas how many replicas must acknowledge each acquire; 0 for none
     * @param replicaTimeoutMillis how long {@code WAIT} waits for them
     */
    private RedisLockStore(RedisConnections connections, RedisReleaseChannel channel, RedisKeys keys, int replicas,
            long replicaTimeoutMillis) {
        this.connections = connections;
        this.channel = channel;
        this.keys = keys;
        this.replicas = replicas;
        this.replicaTimeoutMillis = replicaTimeoutMillis;
    }

    @Override
    public void start(LeaseEvents events) {
        channel.reportTo(events);
    }

    @Override
    public Attempt tryAcquire(String resource, String owner, long ttlMillis, Duration timeout) {
        String lockKey = keys.lock(resource);
        RedisClusterAsyncCommands<String, String> commands = commandsFor(lockKey);
        long result;
        try {
            result = LuaScript.ACQUIRE.run(commands, timeout, new String[] {lockKey, keys.fence(resource)},
                    owner, Long.toString(ttlMillis));
        } catch (TimeoutException e) {
            // The reply is lost, not necessarily the lock: if the script ran, the lock is held
            // in nobody's name until its TTL passes.
            throw connections.timedOut("the acquire of lock '" + resource + "'", timeout);
        } catch (RedisException e) {
            throw connections.failure(e);
        }
        if (result <= 0) {
            return Attempt.held(-result);
        }
        if (replicas > 0) {
            confirmReplicated(commands, resource, owner, result, timeout);
        }
        return Attempt.acquired(result);
    }

    /** Fails closed: a fence that too few replicas know of is released, never handed out. */
    private void confirmReplicated(RedisClusterAsyncCommands<String, String> commands, String resource, String owner,
            long fence, Duration timeout) {
        long acknowledged;
        try {
            acknowledged = RedisConnections.await(commands.waitForReplication(replicas, replicaTimeoutMillis),
                    System.nanoTime() + timeout.toNanos());
        } catch (TimeoutException e) {
            releaseQuietly(commands, resource, owner, fence, timeout);
            throw connections.timedOut("WAIT after the acquire of lock '" + resource + "'", timeout);
        } catch (RedisException e) {
            releaseQuietly(commands, resource, owner, fence, timeout);
            throw connections.failure(e);
        }
        if (acknowledged < replicas) {
            releaseQuietly(commands, resource, owner, fence, timeout);
            throw new LockAcquisitionException(resource, LockAcquisitionException.Reason.NOT_REPLICATED,
                    "could not acquire lock '" + resource + "': only " + acknowledged + " of " + replicas
                            + " replicas of Redis at " + connections.address() + " acknowledged fence " + fence
                            + " within " + replicaTimeoutMillis + " ms; the lock was released and the fence discarded",
                    null);
        }
    }

    private void releaseQuietly(RedisClusterAsyncCommands<String, String> commands, String resource, String owner, long fence,
            Duration timeout) {
        try {
            runRelease(commands, resource, owner, fence, timeout);
        } catch (RuntimeException | TimeoutException e) {
            // The lock expires by its TTL; the acquire fails either way.
        }
    }

    @Override
    public boolean release(Tenure tenure, Duration timeout) {
        try {
            // With replicas, on the connection of the acquire's node, whose commands may wait
            // behind a WAIT.
            return runRelease(commandsFor(keys.lock(tenure.resource())), tenure.resource(), tenure.owner(), tenure.fence(),
                    timeout);
        } catch (TimeoutException e) {
            throw connections.timedOut("the release of lock '" + tenure.resource() + "'", timeout);
        } catch (RedisException e) {
            throw connections.failure(e);
        }
    }

    private boolean runRelease(RedisClusterAsyncCommands<String, String> commands, String resource, String owner, long fence,
            Duration timeout) throws TimeoutException {
        return LuaScript.RELEASE.run(commands, timeout, new String[] {keys.lock(resource)},
                owner, keys.releaseChannel(resource), Long.toString(fence)) == 1;
    }

    /** Every TTL: {@link #extend} sets the lock's TTL to the tenure's. */
    @Override
    public void checkExtension(Tenure tenure, long ttlMillis) {
    }

    @Override
    public boolean extend(Tenure tenure, Duration timeout) {
        String lockKey = keys.lock(tenure.resource());
        try {
            // Asynchronous with a deadline of its own: a renewal may have less time than the
            // command timeout (its lease runs out sooner), and never waits longer than that.
            return LuaScript.EXTEND.run(connections.commands(), timeout, new String[] {lockKey},
                    tenure.owner(), Long.toString(tenure.ttlMillis())) == 1;
        } catch (TimeoutException e) {
            throw connections.timedOut("the renewal of lock '" + tenure.resource() + "'", timeout);
        } catch (RedisException e) {
            throw connections.failure(e);
        }
    }

    private RedisClusterAsyncCommands<String, String> commandsFor(String lockKey) {
        return replicas > 0 ? connections.commandsOnNodeOf(lockKey) : connections.commands();
    }

    @Override
    public CompletionStage<?> watchReleases(String resource) {
        return channel.subscribe(resource);
    }

    @Override
    public void unwatchReleases(String resource) {
        channel.unsubscribe(resource);
    }

    @Override
    public String address() {
        return "Redis at " + connections.address();
    }

    @Override
    public void close() {
        connections.close();
    }
}
