/**
 * Fenced locks: locks whose every acquire also issues a fencing token, a number larger than
 * every token issued before for the same lock, in the same atomic step.
 *
 * <p>A lock alone cannot stop a holder that paused past its TTL from writing after its
 * successor; the token can, when the resource rejects writes carrying an older one (which
 * fencing-jdbc's driver does for fenced tables). A {@link dev.fencing.lock.Lease} carries
 * its token, and enters it as the thread's {@linkplain dev.fencing.Fence fence} for the work
 * done under the lock:
 *
 * <pre>{@code
 * try (Lease lease = locks.acquire("order:42", Duration.ofSeconds(30), Duration.ofSeconds(5))) {
 *     lease.runFenced(() -> orders.markPaid(42));
 * }
 * }</pre>
 *
 * <p>Two stores, one {@code Lease}:
 * <ul>
 *   <li>{@link dev.fencing.lock.RedisFencedLocks}: Redis (standalone, Sentinel or Cluster),
 *       one Lua script per operation; fast, with tokens as durable as Redis persistence and
 *       replication make them (see its notes on failover and {@code WAIT}).</li>
 *   <li>{@link dev.fencing.lock.JdbcFencedLocks}: one table in PostgreSQL, MariaDB/MySQL or
 *       H2; tokens as durable as the database.</li>
 * </ul>
 *
 * <p>Failures to acquire are {@link dev.fencing.lock.LockAcquisitionException}s. The lease
 * machinery and the stores behind these classes (Redis, JDBC) live in
 * {@code dev.fencing.internal.lock}. Stores in other modules (etcd,
 * ZooKeeper) are written against the lock-store SPI, {@link dev.fencing.lock.spi}.
 */
package dev.fencing.lock;
