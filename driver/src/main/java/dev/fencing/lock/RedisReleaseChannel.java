package dev.fencing.lock;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Hears releases made by other processes: the release script publishes on the resource's
 * release channel, and this subscribes to the channels of the resources that threads here
 * wait for, waking them when a message arrives.
 */
final class RedisReleaseChannel extends RedisPubSubAdapter<String, String> implements ReleaseSignals.Subscriptions {

    private final RedisKeys keys;
    private volatile RedisConnections connections;
    private volatile ReleaseSignals signals;

    RedisReleaseChannel(RedisKeys keys) {
        this.keys = keys;
    }

    /** Completes the wiring: the connections carry this listener, the signals are what it wakes. */
    void connect(RedisConnections connections, ReleaseSignals signals) {
        this.connections = connections;
        this.signals = signals;
    }

    @Override
    public CompletionStage<?> subscribe(String resource) {
        try {
            return connections.pubSub().async().subscribe(keys.releaseChannel(resource));
        } catch (RuntimeException e) {
            // Redis is down: waiters poll, and their attempts report the failure.
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public void unsubscribe(String resource) {
        try {
            connections.pubSub().async().unsubscribe(keys.releaseChannel(resource));
        } catch (RuntimeException e) {
            // Nothing to undo: a dead connection has no subscriptions.
        }
    }

    @Override
    public void message(String channel, String message) {
        String resource = keys.resourceOfReleaseChannel(channel);
        ReleaseSignals target = signals;
        if (resource != null && target != null) {
            target.released(resource);
        }
    }
}
