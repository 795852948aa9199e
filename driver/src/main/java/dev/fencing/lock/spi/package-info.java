/**
 * The extension point for lock stores: how to add a place fenced locks live in (etcd,
 * ZooKeeper, another database) from a module of its own, with the same {@link
 * dev.fencing.lock.Lease} and the same waiting, renewal and release behaviour as the built-in
 * Redis and JDBC stores.
 *
 * <p>A store implements {@link dev.fencing.lock.spi.LockStore} (take-and-issue-fence, extend,
 * release, each one atomic step at the store and each within a timeout given to it) and may
 * report releases and lost tenures through {@link dev.fencing.lock.spi.LeaseEvents}.
 * {@link dev.fencing.lock.spi.StoreLocks} wraps it in the lease machinery and is the
 * {@link dev.fencing.lock.FencedLocks} its users get; a store's own builder extends
 * {@link dev.fencing.lock.spi.FencedLocksBuilder}, which holds the settings every store shares
 * (watchdog, poll interval, operation timeout, renewal schedule):
 *
 * <pre>{@code
 * public static final class Builder extends FencedLocksBuilder<Builder> {
 *     public EtcdFencedLocks build() {
 *         return new EtcdFencedLocks(startMachinery(new EtcdLockStore(client(), keyPrefix)));
 *     }
 * }
 * }</pre>
 *
 * <h2>Stability</h2>
 * Stable (changes only with a major version, and then in the release notes):
 * {@link dev.fencing.lock.spi.LockStore}, {@link dev.fencing.lock.spi.LeaseEvents},
 * {@link dev.fencing.lock.spi.StoreLocks} and its builder,
 * {@link dev.fencing.lock.spi.FencedLocksBuilder},
 * {@link dev.fencing.lock.spi.LockStoreException}, and the records
 * {@link dev.fencing.lock.spi.Attempt} and {@link dev.fencing.lock.spi.Tenure}, to which
 * components may be added (stores read them and build {@code Attempt}s only through its
 * factory methods). New {@code LockStore} methods come with defaults, and new settings are
 * added to {@code FencedLocksBuilder}, so that every store has them at once. The machinery
 * itself lives in {@code dev.fencing.internal.lock} and may change at any time.
 *
 * <h2>The fence rule</h2>
 * The one thing the machinery cannot check for a store: a fence is never issued twice for a
 * resource, across restarts, failovers and clock changes of the store. Say in the store's
 * documentation under which assumptions that holds (see {@code docs/locks.md}).
 */
package dev.fencing.lock.spi;
