package dev.fencing.testing;

import io.lettuce.core.RedisClient;

/** Lettuce clients for {@link TestRedis}; only loaded when a test asks for one. */
final class LettuceClients {

    private LettuceClients() {
    }

    static StoredResource<RedisClient> create(String uri) {
        RedisClient client = RedisClient.create(uri);
        return new StoredResource<>(client, client::shutdown);
    }
}
