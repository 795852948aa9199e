package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.lock.RedisFencedLocks;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** Spring's Redis settings become the address the Redis lock store parses (each is parsed by it here). */
class RedisLocationTest {

    @Test
    void standaloneFromHostAndPortWithCredentialsAndDatabase() {
        RedisLocation location = bind(Map.of("host", "cache.internal", "port", "6380", "username", "app",
                "password", "p@ss:w/rd", "database", "3", "timeout", "750ms"));
        assertThat(location.uri()).isEqualTo("redis://app:p%40ss%3Aw%2Frd@cache.internal:6380/3");
        assertThat(location.timeout()).hasValue(Duration.ofMillis(750));
        assertThat(location.redacted()).isEqualTo("redis://***@cache.internal:6380/3");
        assertParses(location);
    }

    @Test
    void defaultsAreSpringDataRedisDefaults() {
        assertThat(bind(Map.of()).uri()).isEqualTo("redis://localhost:6379");
    }

    @Test
    void tlsTurnsTheSchemeIntoRediss() {
        assertThat(bind(Map.of("host", "h", "ssl.enabled", "true")).uri()).isEqualTo("rediss://h:6379");
        assertThat(bind(Map.of("url", "redis://h:1", "ssl.enabled", "true")).uri()).isEqualTo("rediss://h:1");
        assertParses(bind(Map.of("host", "h", "ssl.enabled", "true")));
    }

    @Test
    void sentinelTakesPrecedence() {
        RedisLocation location = bind(Map.of("sentinel.master", "mymaster", "sentinel.nodes", "s1:26379, s2:26379",
                "password", "secret", "host", "ignored"));
        assertThat(location.uri()).isEqualTo("redis-sentinel://secret@s1:26379,s2:26379#mymaster");
        assertParses(location);
    }

    @Test
    void clusterNodesBecomeSeeds() {
        RedisLocation location = bind(Map.of("cluster.nodes", "n1:7000,n2:7001", "ssl.enabled", "true"));
        assertThat(location.uri()).isEqualTo("rediss-cluster://n1:7000,n2:7001");
        assertParses(location);
    }

    @Test
    void whatAnAddressCannotSayIsRefused() {
        assertThatThrownBy(() -> bind(Map.of("ssl.bundle", "mine"))).hasMessageContaining("ssl.bundle");
        assertThatThrownBy(() -> bind(Map.of("username", "app"))).hasMessageContaining("without spring.data.redis.password");
        assertThatThrownBy(() -> bind(Map.of("sentinel.master", "m", "sentinel.nodes", "s:1", "sentinel.password", "x")))
                .hasMessageContaining("sentinel.username/password");
        assertThatThrownBy(() -> bind(Map.of("sentinel.master", "m", "sentinel.nodes", "s:1", "ssl.enabled", "true")))
                .hasMessageContaining("Sentinel");
        assertThatThrownBy(() -> bind(Map.of("url", "http://h"))).hasMessageContaining("redis://");
    }

    private static RedisLocation bind(Map<String, String> settings) {
        MapConfigurationPropertySource source = new MapConfigurationPropertySource();
        settings.forEach((key, value) -> source.put("spring.data.redis." + key, value));
        return RedisLocation.bind(new Binder(source));
    }

    private static void assertParses(RedisLocation location) {
        try (RedisFencedLocks locks = RedisFencedLocks.create(location.uri())) {
            assertThat(locks.toString()).doesNotContain("secret").doesNotContain("p@ss");
        }
    }
}
