package dev.fencing.lock;

import dev.fencing.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.function.Function;

/** Runs commands on one {@link RedisServer} through a short-lived Lettuce connection of their own. */
final class RedisCommandsOn {

    /** Threads shared by the short-lived clients, so that each (one per poll, often) costs only a connection. */
    private static final ClientResources SHARED_RESOURCES = DefaultClientResources.create();

    private RedisCommandsOn() {
    }

    static <T> T server(RedisServer server, Function<RedisCommands<String, String>, T> action) {
        RedisURI uri = RedisURI.create(server.uri());
        uri.setTimeout(Duration.ofSeconds(5));
        RedisClient client = RedisClient.create(SHARED_RESOURCES, uri);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return action.apply(connection.sync());
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }
}
