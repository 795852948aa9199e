package dev.fencing.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.testing.TestRedis;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the Redis store leaves out of Lettuce's first connection costs nothing else: the lean
 * connections still answer on Lettuce's synchronous and reactive interfaces when asked, and
 * the store's event bus still records Lettuce's connection events in JFR.
 */
@TestRedis
class LeanRedisClientTest {

    private static ClientResources resources;
    private static LeanRedisClient client;
    private static RedisURI uri;

    @BeforeAll
    static void connect(@TestRedis String redisUri) {
        uri = RedisURI.create(redisUri);
        resources = DefaultClientResources.builder().eventBus(new RecordingEventBus()).build();
        client = new LeanRedisClient(resources);
    }

    @AfterAll
    static void shutDown() {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }

    @Test
    void theLettuceOfTheBuildTakesTheLeanConnections() {
        assertThat(LeanRedisClient.fitsThisLettuce()).isTrue();
    }

    @Test
    void aCommandConnectionAnswersOnEveryInterface() throws Exception {
        try (StatefulRedisConnection<String, String> connection = client.connect(StringCodec.UTF8, uri)) {
            assertThat(connection).isInstanceOf(LeanRedisClient.Connection.class);
            assertThat(connection.async().set("lean:key", "async").get(5, TimeUnit.SECONDS)).isEqualTo("OK");
            assertThat(connection.sync().get("lean:key")).isEqualTo("async");
            assertThat(connection.sync()).as("built once").isSameAs(connection.sync());
            assertThat(connection.reactive().get("lean:key").block(Duration.ofSeconds(5))).isEqualTo("async");
            assertThat(connection.reactive()).as("built once").isSameAs(connection.reactive());
        }
    }

    @Test
    void aPubSubConnectionAnswersOnEveryInterface() throws Exception {
        BlockingQueue<String> heard = new LinkedBlockingQueue<>();
        try (StatefulRedisPubSubConnection<String, String> subscriber = client.connectPubSub(StringCodec.UTF8, uri);
                StatefulRedisConnection<String, String> publisher = client.connect(StringCodec.UTF8, uri)) {
            assertThat(subscriber).isInstanceOf(LeanRedisClient.PubSubConnection.class);
            subscriber.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String channel, String message) {
                    heard.add(channel + "=" + message);
                }
            });
            subscriber.sync().subscribe("lean:sync");
            subscriber.reactive().subscribe("lean:reactive").block(Duration.ofSeconds(5));
            publisher.async().publish("lean:sync", "1").get(5, TimeUnit.SECONDS);
            publisher.async().publish("lean:reactive", "2").get(5, TimeUnit.SECONDS);
            assertThat(heard.poll(5, TimeUnit.SECONDS)).isEqualTo("lean:sync=1");
            assertThat(heard.poll(5, TimeUnit.SECONDS)).isEqualTo("lean:reactive=2");
        }
    }

    @Test
    void lettucesConnectionEventsStillReachJfr(@TempDir Path dir) throws Exception {
        String activated = "io.lettuce.core.event.connection.JfrConnectionActivatedEvent";
        Path dump = dir.resolve("lettuce.jfr");
        try (Recording recording = new Recording()) {
            recording.enable(activated);
            recording.start();
            client.connect(StringCodec.UTF8, uri).close();
            recording.stop();
            recording.dump(dump);
        }
        List<String> names = RecordingFile.readAllEvents(dump).stream().map(RecordedEvent::getEventType)
                .map(type -> type.getName()).collect(Collectors.toList());
        assertThat(names).as("published on RecordingEventBus, recorded in JFR").contains(activated);
    }
}
