package dev.fencing.testing;

import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Hands a test the shared Redis server with a logical database of the test class's own: an
 * empty database numbered 1 or above, claimed for the class and flushed after it. Code under
 * test needs no change (no key prefix): it just connects to the URI it is given.
 *
 * <ul>
 *   <li>a {@code String} parameter annotated {@code @TestRedis} receives the URI, e.g.
 *       {@code redis://127.0.0.1:6379/3} (Lettuce syntax);</li>
 *   <li>an {@code io.lettuce.core.RedisClient} parameter (in a class annotated
 *       {@code @TestRedis}, or itself annotated) receives a client for that URI, shut down
 *       after the class. Needs {@code io.lettuce:lettuce-core} on the test classpath.</li>
 * </ul>
 *
 * <pre>{@code
 * @TestRedis
 * class LockTest {
 *     @Test
 *     void fencesIncrease(@TestRedis String uri) {
 *         try (RedisFencedLocks locks = RedisFencedLocks.create(uri)) { ... }
 *     }
 *
 *     @Test
 *     void seesTheKeys(RedisClient client) {
 *         try (StatefulRedisConnection<String, String> c = client.connect()) { ... }
 *     }
 * }
 * }</pre>
 *
 * <p>All methods of the class and its {@code @Nested} classes share the database; it is not
 * flushed between methods. The server comes from {@code FENCING_REDIS_URI} (default
 * {@code redis://127.0.0.1:6379}; {@code redis://[[user:]password@]host[:port]}, no TLS). A
 * database counts as free when it is empty; the claim is a key {@code fencing-fixtures:claim}
 * in it. For a server of your own to stop, pause or fail over, use {@link RedisServers}.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.PARAMETER})
@ExtendWith(RedisExtension.class)
public @interface TestRedis {
}
