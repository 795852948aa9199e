package dev.fencing.testing;

import dev.fencing.testing.Samples.Sample;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link TestRedis} claims an empty logical database of the shared Redis server for each test
 * class and flushes it after the class.
 */
class TestRedisTest {

    private static final String BASE = Env.get("FENCING_REDIS_URI", "redis://127.0.0.1:6379");

    static final Set<String> URIS = ConcurrentHashMap.newKeySet();

    @BeforeEach
    void forget() {
        URIS.clear();
    }

    @Test
    void aClassGetsOneDatabaseThatIsFlushedAfterIt() throws IOException {
        Samples.assertAllSucceed(RedisSample.class, 3);
        assertEquals(1, URIS.size(), () -> "the sample's tests saw " + URIS);
        String uri = URIS.iterator().next();
        int database = database(uri);
        assertTrue(database >= 1, uri);
        assertEquals(0L, call(database, "DBSIZE"), "flushed after the class, claim included");
    }

    @Test
    void concurrentClaimsGetDifferentDatabasesAndSkipOnesInUse() throws Exception {
        StoredResource<String> first = RedisDatabaseClaim.claim(BASE);
        int foreign = database(first.get()) + 1;
        call(foreign, "SET", "someone-else", "1");
        try {
            StoredResource<String> second = RedisDatabaseClaim.claim(BASE);
            int taken = database(second.get());
            assertNotEquals(database(first.get()), taken);
            assertNotEquals(foreign, taken, "a database holding someone's keys is not claimed");

            call(taken, "SET", "mine", "1");
            second.close();
            assertEquals(0L, call(taken, "DBSIZE"));
            assertEquals("1", call(foreign, "GET", "someone-else"), "only the claimed database is flushed");
        } finally {
            call(foreign, "DEL", "someone-else");
            first.close();
        }
    }

    @Test
    void aLostClaimIsNotFlushed() throws Exception {
        StoredResource<String> claim = RedisDatabaseClaim.claim(BASE);
        int database = database(claim.get());
        call(database, "SET", RedisDatabaseClaim.CLAIM_KEY, "another owner");
        call(database, "SET", "theirs", "1");
        try {
            IOException error = assertThrows(IOException.class, claim::close);
            assertTrue(error.getMessage().contains("not flushing"), error.getMessage());
            assertEquals("1", call(database, "GET", "theirs"));
        } finally {
            call(database, "FLUSHDB");
        }
    }

    @Test
    void urisKeepTheirCredentialsAndOptions() {
        RedisDatabaseClaim.Server server = RedisDatabaseClaim.Server.parse("redis://:s3cret@cache:6380/0?timeout=5s");
        assertEquals("redis://:s3cret@cache:6380/4?timeout=5s", server.uri(4));
        assertNull(server.user);
        assertEquals("s3cret", server.password);
        RedisDatabaseClaim.Server withUser = RedisDatabaseClaim.Server.parse("redis://app:pw@cache");
        assertEquals("app", withUser.user);
        assertEquals("redis://app:pw@cache:6379/2", withUser.uri(2));
        assertThrows(IllegalArgumentException.class, () -> RedisDatabaseClaim.Server.parse("rediss://cache:6380"));
    }

    private static int database(String uri) {
        return Integer.parseInt(uri.substring(uri.lastIndexOf('/') + 1));
    }

    private static Object call(int database, String... command) throws IOException {
        try (Resp resp = RedisDatabaseClaim.Server.parse(BASE).connect()) {
            resp.call("SELECT", Integer.toString(database));
            return resp.call(command);
        }
    }

    @Sample
    @TestRedis
    static class RedisSample {
        @Test
        void uriAndClientShareTheDatabase(@TestRedis String uri, RedisClient client) throws IOException {
            URIS.add(uri);
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                connection.sync().set("lock:order:42", "owner");
            }
            assertEquals("owner", call(database(uri), "GET", "lock:order:42"));
        }

        @Test
        void clientIsOnTheClaimedDatabase(RedisClient client) {
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                assertTrue(connection.sync().clientInfo().contains(" db="), "CLIENT INFO names the database");
                String info = connection.sync().clientInfo();
                String db = info.substring(info.indexOf(" db=") + 4).split(" ")[0];
                URIS.add(BASE + "/" + db);
            }
        }

        @Nested
        class Inner {
            @Test
            void sharesTheDatabase(@TestRedis String uri) {
                URIS.add(uri);
            }
        }
    }
}
