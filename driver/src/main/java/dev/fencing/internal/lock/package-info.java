/**
 * Internal: the lease machinery every lock store shares ({@code LeaseIssuer}: attempts, waits
 * with wake-ups, riding out store outages; {@code IssuedLease}; {@code Renewals};
 * {@code ReleaseSignals}) and the Redis store ({@code RedisLockStore}, its connections, keys,
 * release channel and Lua scripts). Not public API; may change in any release. The public lock
 * types are in {@link dev.fencing.lock}; stores plug in through {@link dev.fencing.lock.spi}
 * ({@code StoreLocks}, {@code FencedLocksBuilder}), which is what reaches this package.
 */
package dev.fencing.internal.lock;
