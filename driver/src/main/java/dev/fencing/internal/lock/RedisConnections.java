package dev.fencing.internal.lock;

import dev.fencing.lock.spi.LockStoreException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.RedisPubSubListener;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The Lettuce client and connections of one {@link dev.fencing.lock.RedisFencedLocks}: one multiplexed
 * connection for commands and one for release notifications. {@link #open()} opens both when
 * the locks are built, so that the first acquire costs what a later one does. A Redis that is
 * down then is no error: each connection is opened again on first use, so that an application
 * can start while Redis is down.
 *
 * <p>A Lettuce client's first connection in a JVM costs about a second of CPU, nearly all of it
 * class loading and set-up inside Lettuce. Two parts of it buy nothing here, and are left out:
 * the synchronous and reactive command interfaces that every connection builds when it opens
 * (this class uses the asynchronous one alone; {@link LeanRedisClient}), and the Reactor sink
 * and scheduler of Lettuce's event bus, whose events nobody here subscribes to
 * ({@link RecordingEventBus}; Lettuce's JFR events are still recorded). A Redis Cluster client
 * keeps Lettuce's own connections.
 *
 * <p>Commands fail at once while a connection is down ({@code REJECT_COMMANDS}) instead of
 * queueing until Redis is back: an acquire should fail clearly, not hang. Lettuce reconnects
 * in the background, at most a second apart.
 */
final class RedisConnections implements AutoCloseable {

    private final RedisAddress address;
    private final Duration commandTimeout;
    private final ClientResources resources;
    private final AbstractRedisClient client;
    private final RedisPubSubListener<String, String> releaseListener;

    private final Object connecting = new Object();
    private volatile StatefulConnection<String, String> connection;
    // A lock of its own: opening the command connection blocks, opening this one must not.
    private final Object openingPubSub = new Object();
    private CompletableFuture<StatefulRedisPubSubConnection<String, String>> pubSub; // guarded by openingPubSub

    /**
     * @param commandTimeout how long a command (and a connect) may take before it fails
     * @param releaseListener receives the release channels' messages
     */
    RedisConnections(RedisAddress address, Duration commandTimeout, RedisPubSubListener<String, String> releaseListener) {
        this.address = address;
        this.commandTimeout = commandTimeout;
        this.releaseListener = releaseListener;
        for (RedisURI uri : address.uris()) {
            uri.setTimeout(commandTimeout);
        }
        this.resources = DefaultClientResources.builder()
                .reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
                .eventBus(new RecordingEventBus())
                .build();
        SocketOptions socket = SocketOptions.builder().connectTimeout(commandTimeout).build();
        TimeoutOptions timeouts = TimeoutOptions.enabled(commandTimeout);
        if (address.isCluster()) {
            RedisClusterClient cluster = RedisClusterClient.create(resources, address.uris());
            cluster.setOptions(ClusterClientOptions.builder()
                    .socketOptions(socket)
                    .timeoutOptions(timeouts)
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                            .enableAllAdaptiveRefreshTriggers()
                            .build())
                    .build());
            this.client = cluster;
        } else {
            RedisClient standalone = LeanRedisClient.fitsThisLettuce() ? new LeanRedisClient(resources)
                    : RedisClient.create(resources);
            standalone.setOptions(ClientOptions.builder()
                    .socketOptions(socket)
                    .timeoutOptions(timeouts)
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .build());
            this.client = standalone;
        }
    }

    RedisAddress address() {
        return address;
    }

    /**
     * Opens the command connection and loads the lock's scripts now, then opens the connection
     * for release notifications in the background. Returns when the first two are done or
     * failed (at most the command timeout for the connect and each script): a Redis that cannot
     * be reached is reported at {@code WARNING} and left to the first acquire.
     *
     * @throws IllegalStateException if Redis loaded a script under another SHA-1 than expected
     */
    void open() {
        try {
            LuaScript.loadAll(commands(), commandTimeout);
        } catch (LockStoreException | RedisException | TimeoutException e) {
            String reason = e instanceof RedisException ? failure((RedisException) e).getMessage()
                    : e instanceof TimeoutException ? timedOut("the scripts' loading", commandTimeout).getMessage()
                    : e.getMessage();
            System.getLogger(RedisConnections.class.getName()).log(System.Logger.Level.WARNING,
                    () -> "not connected yet (acquires will try again): " + reason);
            return;
        }
        // Not waited for: only a contended acquire needs it, and then for at most a poll interval.
        resources.eventExecutorGroup().execute(() -> {
            try {
                pubSub();
            } catch (RuntimeException e) {
                // Closed meanwhile, or Lettuce refused: the first contended acquire opens it again.
            }
        });
    }

    /**
     * Commands routed by key (in a cluster, to the node serving the key's slot). Every call
     * here is asynchronous with a time limit of its own ({@link #await}): Lettuce's synchronous
     * interface is never built (see {@link LeanRedisClient}).
     */
    RedisClusterAsyncCommands<String, String> commands() {
        StatefulConnection<String, String> current = connection();
        if (current instanceof StatefulRedisClusterConnection) {
            return ((StatefulRedisClusterConnection<String, String>) current).async();
        }
        return ((StatefulRedisConnection<String, String>) current).async();
    }

    /**
     * Commands on the one connection to the master that serves {@code key}. {@code WAIT}
     * counts the replicas that have every write of the connection it is sent on, so the
     * write and its {@code WAIT} must share a connection to one node.
     */
    RedisClusterAsyncCommands<String, String> commandsOnNodeOf(String key) {
        StatefulConnection<String, String> current = connection();
        if (!(current instanceof StatefulRedisClusterConnection)) {
            return ((StatefulRedisConnection<String, String>) current).async();
        }
        StatefulRedisClusterConnection<String, String> cluster = (StatefulRedisClusterConnection<String, String>) current;
        RedisClusterNode node = cluster.getPartitions().getMasterBySlot(SlotHash.getSlot(key));
        if (node == null) {
            throw new LockStoreException("Redis cluster at " + address + " has no master for the slot of " + key, null);
        }
        try {
            return cluster.getConnection(node.getNodeId()).async();
        } catch (RedisException e) {
            throw failure(e);
        }
    }

    /**
     * The connection for release notifications, opened on first use without blocking: its
     * callers hold locks that the notifications themselves need. A failed attempt is
     * forgotten, so the next call tries again.
     */
    CompletableFuture<StatefulRedisPubSubConnection<String, String>> pubSub() {
        synchronized (openingPubSub) {
            if (pubSub == null || pubSub.isCompletedExceptionally()) {
                CompletableFuture<StatefulRedisPubSubConnection<String, String>> opening = client instanceof RedisClusterClient
                        ? ((RedisClusterClient) client).connectPubSubAsync(StringCodec.UTF8)
                                .thenApply(cluster -> (StatefulRedisPubSubConnection<String, String>) cluster)
                        : ((RedisClient) client).connectPubSubAsync(StringCodec.UTF8, address.uris().get(0))
                                .toCompletableFuture();
                pubSub = opening.thenApply(opened -> {
                    opened.addListener(releaseListener);
                    return opened;
                });
            }
            return pubSub;
        }
    }

    private StatefulConnection<String, String> connection() {
        StatefulConnection<String, String> current = connection;
        if (current != null) {
            return current;
        }
        synchronized (connecting) {
            if (connection == null) {
                try {
                    connection = client instanceof RedisClusterClient
                            ? ((RedisClusterClient) client).connect(StringCodec.UTF8)
                            : ((RedisClient) client).connect(StringCodec.UTF8, address.uris().get(0));
                } catch (RedisException e) {
                    throw failure(e);
                }
            }
            return connection;
        }
    }

    /**
     * The result of {@code future}, waiting until {@code deadline} ({@link System#nanoTime()}):
     * what Lettuce's synchronous interface does, with the caller's time limit. A command still
     * unsent when the time runs out is cancelled; one already sent has an unknown outcome.
     *
     * @throws TimeoutException when the deadline passed first
     * @throws RedisException when Redis failed the command, or the wait was interrupted
     */
    static <T> T await(RedisFuture<T> future, long deadline) throws TimeoutException {
        try {
            return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            future.cancel(false);
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RedisException) {
                throw (RedisException) cause;
            }
            throw new RedisException(cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisException("interrupted while waiting for Redis", e);
        }
    }

    /** A call that did not complete within its own time limit. */
    LockStoreException timedOut(String what, java.time.Duration timeout) {
        return new LockStoreException("Redis at " + address + " did not answer " + what + " within "
                + timeout.toMillis() + " ms", null);
    }

    /** A Lettuce failure as a {@link LockStoreException} that names the address. */
    LockStoreException failure(RuntimeException e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String detail = root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
        if (e instanceof RedisConnectionException) {
            return new LockStoreException("Redis at " + address + " is unreachable: " + detail, e);
        }
        StatefulConnection<String, String> current = connection;
        if (current != null && !current.isOpen()) {
            return new LockStoreException("Redis at " + address + " is unreachable (disconnected, reconnecting): "
                    + detail, e);
        }
        if (e instanceof RedisCommandTimeoutException) {
            return new LockStoreException("Redis at " + address + " did not answer in time: " + detail, e);
        }
        return new LockStoreException("Redis at " + address + " failed: " + detail, e);
    }

    @Override
    public void close() {
        // Shutting the client down closes its connections.
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
