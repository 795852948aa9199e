package dev.fencing.internal.lock;

import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisReactiveCommandsImpl;
import io.lettuce.core.RedisURI;
import io.lettuce.core.StatefulRedisConnectionImpl;
import io.lettuce.core.api.reactive.RedisReactiveCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.protocol.PushHandler;
import io.lettuce.core.pubsub.PubSubEndpoint;
import io.lettuce.core.pubsub.RedisPubSubReactiveCommandsImpl;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnectionImpl;
import io.lettuce.core.pubsub.api.reactive.RedisPubSubReactiveCommands;
import io.lettuce.core.pubsub.api.sync.RedisPubSubCommands;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * A standalone {@link RedisClient} whose connections build their synchronous and reactive
 * command interfaces on first use, not when they open. {@link RedisConnections} drives its
 * connections through the asynchronous interface alone, so the other two are never built: in a
 * fresh JVM the synchronous one is a {@link java.lang.reflect.Proxy} over the several hundred
 * methods of {@code RedisCommands} and {@code RedisClusterCommands} with a method map built by
 * one {@code getMethod} each, a third of the CPU of Lettuce's first connection, and the
 * reactive one loads Reactor's operators. Everything else is Lettuce's own: the hooks are its
 * extension points ({@code RedisClient.newStatefulRedisConnection}, "Subclasses of RedisClient
 * may override that method", and {@code newRedisSyncCommandsImpl} /
 * {@code newRedisReactiveCommandsImpl}, "Can be overriden to extend"), the same from Lettuce
 * 6.6 to 7.x, and {@code sync()} and {@code reactive()} still answer, built when first asked.
 * Lettuce 6.5 alone lacks the connection constructor this calls ({@link #fitsThisLettuce()}).
 */
final class LeanRedisClient extends RedisClient {

    /**
     * Whether this Lettuce has the connection constructors the lean connections call (every
     * version from 6.6 on, and before 6.5); where it does not, {@link RedisConnections} uses
     * Lettuce's own client, which costs more at the first connection and works the same.
     */
    static boolean fitsThisLettuce() {
        try {
            StatefulRedisConnectionImpl.class.getConstructor(RedisChannelWriter.class, PushHandler.class, RedisCodec.class,
                    Duration.class);
            StatefulRedisPubSubConnectionImpl.class.getConstructor(PubSubEndpoint.class, RedisChannelWriter.class,
                    RedisCodec.class, Duration.class);
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    LeanRedisClient(ClientResources resources) {
        // The URI-less client of RedisClient.create(resources): each connect names its URI.
        super(resources, new RedisURI());
    }

    @Override
    protected <K, V> StatefulRedisConnectionImpl<K, V> newStatefulRedisConnection(RedisChannelWriter channelWriter,
            PushHandler pushHandler, RedisCodec<K, V> codec, Duration timeout) {
        return new Connection<>(channelWriter, pushHandler, codec, timeout);
    }

    @Override
    protected <K, V> StatefulRedisPubSubConnectionImpl<K, V> newStatefulRedisPubSubConnection(PubSubEndpoint<K, V> endpoint,
            RedisChannelWriter channelWriter, RedisCodec<K, V> codec, Duration timeout) {
        return new PubSubConnection<>(endpoint, channelWriter, codec, timeout);
    }

    /** A command connection whose synchronous and reactive interfaces are built when first asked for. */
    static final class Connection<K, V> extends StatefulRedisConnectionImpl<K, V> {
        private final OnFirstUse<RedisCommands<K, V>> syncOnFirstUse = new OnFirstUse<>();
        private final OnFirstUse<RedisReactiveCommands<K, V>> reactiveOnFirstUse = new OnFirstUse<>();

        Connection(RedisChannelWriter writer, PushHandler pushHandler, RedisCodec<K, V> codec, Duration timeout) {
            super(writer, pushHandler, codec, timeout);
        }

        /** Called by the constructor: nothing yet; {@link #sync()} builds it. */
        @Override
        protected RedisCommands<K, V> newRedisSyncCommandsImpl() {
            return null;
        }

        /** Called by the constructor: nothing yet; {@link #reactive()} builds it. */
        @Override
        protected RedisReactiveCommandsImpl<K, V> newRedisReactiveCommandsImpl() {
            return null;
        }

        @Override
        public RedisCommands<K, V> sync() {
            return syncOnFirstUse.get(super::newRedisSyncCommandsImpl);
        }

        @Override
        public RedisReactiveCommands<K, V> reactive() {
            return reactiveOnFirstUse.get(super::newRedisReactiveCommandsImpl);
        }
    }

    /** The same for the release-notification connection. */
    static final class PubSubConnection<K, V> extends StatefulRedisPubSubConnectionImpl<K, V> {
        private final OnFirstUse<RedisPubSubCommands<K, V>> syncOnFirstUse = new OnFirstUse<>();
        private final OnFirstUse<RedisPubSubReactiveCommands<K, V>> reactiveOnFirstUse = new OnFirstUse<>();

        PubSubConnection(PubSubEndpoint<K, V> endpoint, RedisChannelWriter writer, RedisCodec<K, V> codec, Duration timeout) {
            super(endpoint, writer, codec, timeout);
        }

        /** Called by the constructor: nothing yet; {@link #sync()} builds it. */
        @Override
        protected RedisPubSubCommands<K, V> newRedisSyncCommandsImpl() {
            return null;
        }

        /** Called by the constructor: nothing yet; {@link #reactive()} builds it. */
        @Override
        protected RedisPubSubReactiveCommandsImpl<K, V> newRedisReactiveCommandsImpl() {
            return null;
        }

        @Override
        public RedisPubSubCommands<K, V> sync() {
            return syncOnFirstUse.get(super::newRedisSyncCommandsImpl);
        }

        @Override
        public RedisPubSubReactiveCommands<K, V> reactive() {
            return reactiveOnFirstUse.get(super::newRedisReactiveCommandsImpl);
        }
    }

    /** A value built by the first caller that asks for it, once. */
    private static final class OnFirstUse<T> {
        private volatile T value;

        T get(Supplier<? extends T> build) {
            T built = value;
            if (built == null) {
                synchronized (this) {
                    if (value == null) {
                        value = build.get();
                    }
                    built = value;
                }
            }
            return built;
        }
    }
}
