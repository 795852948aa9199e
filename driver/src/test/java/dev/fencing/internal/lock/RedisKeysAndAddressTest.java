package dev.fencing.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.lock.RedisFencedLocks;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Key names and addresses, without a server. */
class RedisKeysAndAddressTest {

    private final RedisKeys keys = new RedisKeys("fencing:");

    @ParameterizedTest
    @ValueSource(strings = {"order:42", "}", "{", "{}", "a}b{c", "%7B", "%", "x{y}z", "ünï"})
    void theLockAndItsCounterShareOneClusterSlotWhateverTheName(String resource) {
        assertThat(SlotHash.getSlot(keys.lock(resource))).isEqualTo(SlotHash.getSlot(keys.fence(resource)));
        assertThat(keys.resourceOfReleaseChannel(keys.releaseChannel(resource))).isEqualTo(resource);
    }

    @Test
    void namesAreReadable_andEncodingKeepsDistinctNamesApart() {
        assertThat(keys.lock("order:42")).isEqualTo("fencing:{order:42}:lock");
        assertThat(keys.fence("order:42")).isEqualTo("fencing:{order:42}:fence");
        assertThat(keys.releaseChannel("order:42")).isEqualTo("fencing:{order:42}:released");
        assertThat(keys.lock("a{b")).isNotEqualTo(keys.lock("a%7Bb"));
        assertThat(keys.lock("a%b")).isNotEqualTo(keys.lock("a%25b"));
        assertThat(keys.resourceOfReleaseChannel("other:{x}:released")).isNull();
    }

    @Test
    void aPrefixWithBracesIsRefused() {
        assertThatThrownBy(() -> RedisFencedLocks.builder("redis://127.0.0.1:6379").keyPrefix("app{1}:").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keyPrefix");
    }

    @Test
    void addressesAreDescribedWithoutCredentials() {
        assertThat(RedisAddress.parse("redis://user:secret@db.example:6380/2").toString())
                .isEqualTo("redis://db.example:6380/2");
        assertThat(RedisAddress.parse("rediss://:secret@127.0.0.1").toString()).isEqualTo("rediss://127.0.0.1:6379");
        assertThat(RedisAddress.parse("redis-sentinel://:secret@s1:26379,s2:26380#mymaster").toString())
                .isEqualTo("redis-sentinel://s1:26379,s2:26380#mymaster");
    }

    @Test
    void clusterAddressesListSeedsThatShareCredentialsAndOptions() {
        RedisAddress address = RedisAddress.parse("redis-cluster://user:secret@10.0.0.1:7000,10.0.0.2:7001?timeout=3s");
        assertThat(address.isCluster()).isTrue();
        assertThat(address.toString()).isEqualTo("redis-cluster://10.0.0.1:7000,10.0.0.2:7001");
        assertThat(address.uris()).extracting(RedisURI::getPort).containsExactly(7000, 7001);
        assertThat(address.uris()).allSatisfy(uri -> {
            RedisCredentials credentials = uri.getCredentialsProvider().resolveCredentials().block();
            assertThat(credentials.getUsername()).isEqualTo("user");
            assertThat(new String(credentials.getPassword())).isEqualTo("secret");
        });
        assertThat(RedisAddress.parse("rediss-cluster://h:7000").uris().get(0).isSsl()).isTrue();
        assertThat(RedisAddress.parse("redis://127.0.0.1:6379").isCluster()).isFalse();
    }

    @Test
    void anInvalidUriIsRefusedWithoutRepeatingItsPassword() {
        assertThatThrownBy(() -> RedisFencedLocks.create("http://user:secret@host:1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a valid Redis URI")
                .hasMessageNotContaining("secret")
                .hasNoCause();
    }
}
