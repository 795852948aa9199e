/**
 * Test fixtures for proving that your own write paths are fenced. Add
 * {@code dev.fencing:fencing-test-fixtures} in test scope, with the JDBC driver (pgjdbc or
 * MariaDB Connector/J) and, for Redis, Lettuce in the versions you use.
 *
 * <table>
 *   <caption>What is here</caption>
 *   <tr><td>{@link dev.fencing.testing.TestDatabase}</td>
 *       <td>a {@code DataSource} on a PostgreSQL schema or MariaDB database of the test class's own, dropped after it</td></tr>
 *   <tr><td>{@link dev.fencing.testing.TestRedis}</td>
 *       <td>a Redis URI (or Lettuce client) on a logical database of the test class's own, flushed after it</td></tr>
 *   <tr><td>{@link dev.fencing.testing.RedisServers}, {@link dev.fencing.testing.RedisServer}</td>
 *       <td>throw-away {@code redis-server} processes to pause, kill, restart and fail over</td></tr>
 *   <tr><td>{@link dev.fencing.testing.PgBouncer}</td>
 *       <td>a throw-away {@code pgbouncer} in transaction or session mode in front of the test PostgreSQL</td></tr>
 *   <tr><td>{@link dev.fencing.testing.PauseInjector}</td>
 *       <td>stops a thread at a named point until the test lets it go: the paused lock holder</td></tr>
 *   <tr><td>{@link dev.fencing.testing.FencingAssertions}</td>
 *       <td>asserts a write is rejected with a stale fence, refused without one, applied with the current one</td></tr>
 * </table>
 *
 * <p>Together:
 *
 * <pre>{@code
 * @TestDatabase(Kind.POSTGRESQL)
 * class PaymentsAreFencedTest {
 *     @BeforeAll
 *     static void schema(DataSource db) throws SQLException { ...CREATE TABLE orders (..., last_fence BIGINT NOT NULL DEFAULT 0)... }
 *
 *     @Test
 *     void markPaidIsFenced(DataSource db) {
 *         DataSource fenced = new FencingDataSource(db, FencingConfig.builder().tables("orders").build());
 *         WriteAction markPaid = ds -> new PaymentRepository(ds).markPaid(42);
 *         String rows = "SELECT * FROM orders ORDER BY id";
 *
 *         FencingAssertions.assertAppliesWithFence(fenced, 34, markPaid, rows);
 *         FencingAssertions.assertRejectsStaleFence(fenced, 33, markPaid, rows);
 *         FencingAssertions.assertRefusesWithoutFence(fenced, markPaid, rows);
 *     }
 * }
 * }</pre>
 *
 * <p>Only the types named above are API; the rest of the package is internal and may change.
 */
package dev.fencing.testing;
