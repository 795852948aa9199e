package dev.fencing.lock.spi;

import dev.fencing.internal.lock.IssuedLease;
import dev.fencing.internal.lock.LeaseIssuer;
import dev.fencing.lock.FencedLocks;
import dev.fencing.lock.Lease;
import dev.fencing.lock.LockAcquisitionException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The lease machinery around one {@link LockStore}: what turns a store's three atomic
 * operations into {@link FencedLocks}. The same for every store ({@code RedisFencedLocks},
 * {@code JdbcFencedLocks} and stores in other modules are built on it):
 * <ul>
 *   <li>leases: a random UUID as the ownership token of each attempt, the {@link Lease} handed
 *       back (fence, resource, {@link Lease#isHeld()} judged by this process's monotonic clock
 *       from before the acquire was sent, the fenced helpers), release on close;</li>
 *   <li>waiting: a waiting acquire tries again when a release wakes it (one waiter of this
 *       process per release: releases here, and releases the store reports through
 *       {@link LeaseEvents#released}), else after the holder's remaining TTL or the poll
 *       interval, jittered, until its deadline; an attempt that fails with
 *       {@link LockStoreException} (the store restarting, failing over) is made again after a
 *       pause that grows to the poll interval, until the deadline, and only {@code tryAcquire}
 *       (or a wait of zero) fails at once;</li>
 *   <li>renewal (with {@link Builder#watchdog(boolean)}): every third of the TTL, each lease on
 *       its own, each renewal limited to the operation timeout and to the time the lease is
 *       still believed held; a lease whose renewal finds the lock gone, or that the store
 *       reports {@linkplain LeaseEvents#lost lost}, turns not held at once;</li>
 *   <li>argument checks before anything is sent, and failures reported as
 *       {@link LockAcquisitionException}s naming the resource and {@link LockStore#address()}.</li>
 * </ul>
 *
 * <pre>{@code
 * FencedLocks locks = StoreLocks.builder(new MyEtcdLockStore(client)).watchdog(true).build();
 * }</pre>
 *
 * A store's own {@code FencedLocks} class builds it through {@link FencedLocksBuilder}, which
 * holds the settings every store shares:
 *
 * <pre>{@code
 * public MyFencedLocks build() { return new MyFencedLocks(startMachinery(new MyLockStore(..))); }
 * }</pre>
 *
 * <p>Thread-safe. Closing it stops renewals and closes the store.
 */
public final class StoreLocks implements FencedLocks {

    private final LeaseIssuer issuer;

    StoreLocks(LeaseIssuer issuer) {
        this.issuer = issuer;
    }

    /** Starts configuring the machinery around {@code store}. */
    public static Builder builder(LockStore store) {
        return new Builder(store);
    }

    /**
     * @throws IllegalArgumentException if the resource is blank or the store refuses its name,
     *         or the TTL is not positive
     */
    @Override
    public Optional<Lease> tryAcquire(String resource, Duration ttl) {
        return issuer.tryAcquire(resource, ttl);
    }

    /**
     * @throws IllegalArgumentException if the resource is blank or the store refuses its name,
     *         the TTL is not positive or {@code maxWait} negative
     */
    @Override
    public Lease acquire(String resource, Duration ttl, Duration maxWait) {
        return issuer.acquire(resource, ttl, maxWait);
    }

    /** Where the locks live (the store's {@link LockStore#address()}). */
    public String address() {
        return issuer.address();
    }

    /** Stops renewing leases and closes the store; leases still open expire by their TTL. */
    @Override
    public void close() {
        issuer.close();
    }

    @Override
    public String toString() {
        return "StoreLocks[" + issuer.address() + "]";
    }

    /**
     * Renews {@code lease} now, outside its schedule, as a renewal would: for a store's own
     * tests (a contract test checks compare-and-extend with it) and diagnostics.
     *
     * @return whether the lease is still held: {@code false} when the store no longer has it
     *         as this lease's or its TTL ran out here (the lease is then lost for good)
     * @throws LockStoreException when the outcome is unknown
     * @throws IllegalArgumentException if the lease was not issued by a {@code StoreLocks}
     */
    public static boolean renewNow(Lease lease, Duration timeout) {
        return issued(lease).renew(Objects.requireNonNull(timeout, "timeout"));
    }

    /** Whether renewals of {@code lease} are still scheduled; for tests and diagnostics. */
    public static boolean isRenewing(Lease lease) {
        return issued(lease).isRenewing();
    }

    private static IssuedLease issued(Lease lease) {
        if (!(lease instanceof IssuedLease)) {
            throw new IllegalArgumentException("not a lease issued by StoreLocks: " + lease);
        }
        return (IssuedLease) lease;
    }

    /** Settings of the machinery (the shared ones of every store's builder); {@link #build()} checks them. */
    public static final class Builder extends FencedLocksBuilder<Builder> {
        private final LockStore store;

        private Builder(LockStore store) {
            super(Duration.ofMillis(100));
            this.store = Objects.requireNonNull(store, "store");
        }

        /**
         * Starts the store ({@link LockStore#start}) and the machinery around it.
         *
         * @throws IllegalArgumentException naming the setting whose value is not allowed
         */
        public StoreLocks build() {
            return startMachinery(store);
        }
    }
}
