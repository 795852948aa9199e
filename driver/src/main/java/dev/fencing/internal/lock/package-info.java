/**
 * Internal: the lease machinery every lock store shares ({@code LeaseIssuer}: attempts, waits
 * with wake-ups, riding out store outages; {@code IssuedLease}; {@code Renewals};
 * {@code ReleaseSignals}), the Redis store ({@code RedisLockStore}, its connections, keys,
 * release channel and Lua scripts) and the JDBC store ({@code JdbcLockStore}, {@code
 * JdbcConnections}). Not public API; may change in any release. The public lock
 * types are in {@link dev.fencing.lock}; stores plug in through {@link dev.fencing.lock.spi}
 * ({@code StoreLocks}, {@code FencedLocksBuilder}); the SPI names no type of this package.
 */
package dev.fencing.internal.lock;
