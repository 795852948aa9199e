package dev.fencing.internal.lock;

import dev.fencing.lock.spi.LeaseEvents;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import java.util.concurrent.CompletionStage;

/**
 * Hears releases made by other processes: the release script publishes on the resource's
 * release channel, and this subscribes to the channels of the resources that threads here
 * wait for, waking them when a message arrives.
 */
final class RedisReleaseChannel extends RedisPubSubAdapter<String, String> {

    private final RedisKeys keys;
    private volatile RedisConnections connections;
    private volatile LeaseEvents events;

    RedisReleaseChannel(RedisKeys keys) {
        this.keys = keys;
    }

    /** Completes the wiring: the connections carry this listener. */
    void connect(RedisConnections connections) {
        this.connections = connections;
    }

    /** Where releases heard of are reported. */
    void reportTo(LeaseEvents events) {
        this.events = events;
    }

    CompletionStage<?> subscribe(String resource) {
        // Never blocks: this runs under ReleaseSignals' lock. If Redis is down the future
        // fails, waiters poll, and their attempts report the failure.
        String channel = keys.releaseChannel(resource);
        return connections.pubSub().thenCompose(pubSub -> pubSub.async().subscribe(channel));
    }

    void unsubscribe(String resource) {
        String channel = keys.releaseChannel(resource);
        // A connection that never opened has no subscriptions to undo.
        connections.pubSub().thenAccept(pubSub -> pubSub.async().unsubscribe(channel));
    }

    @Override
    public void message(String channel, String message) {
        String resource = keys.resourceOfReleaseChannel(channel);
        LeaseEvents target = events;
        if (resource != null && target != null) {
            target.released(resource, fenceOf(message));
        }
    }

    /** The release script publishes the released fence; anything else counts as unknown. */
    private static long fenceOf(String message) {
        try {
            return Long.parseLong(message);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
