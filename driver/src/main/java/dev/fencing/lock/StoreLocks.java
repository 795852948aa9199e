package dev.fencing.lock;

import dev.fencing.lock.spi.LeaseEvents;
import dev.fencing.lock.spi.LockStore;
import dev.fencing.lock.spi.LockStoreException;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;

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
 *       interval, jittered, until its deadline;</li>
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
 * <p>Thread-safe. Closing it stops renewals and closes the store.
 */
public final class StoreLocks implements FencedLocks {

    private final LeaseIssuer issuer;

    private StoreLocks(LeaseIssuer issuer) {
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

    /** Settings of the machinery; {@link #build()} checks them. */
    public static final class Builder {
        private final LockStore store;
        private boolean watchdog;
        private ScheduledExecutorService renewalSchedule;
        private Duration pollInterval = Duration.ofMillis(100);
        private Duration operationTimeout = Duration.ofSeconds(5);

        private Builder(LockStore store) {
            this.store = Objects.requireNonNull(store, "store");
        }

        /**
         * Whether leases are renewed until closed (default {@code false}: a lease lasts its
         * TTL). Renewals come every third of the TTL.
         */
        public Builder watchdog(boolean enabled) {
            this.watchdog = enabled;
            return this;
        }

        /**
         * Keeps the renewal schedule on this executor instead of a daemon thread of the
         * instance's own (it is not shut down on close). The renewals themselves run on
         * threads of their own. Stopping this executor's thread stops renewals, as a paused
         * process would: tests use it.
         */
        public Builder renewalSchedule(ScheduledExecutorService executor) {
            this.renewalSchedule = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /**
         * The longest pause between two attempts of a waiting acquire when no release is
         * heard of (default 100 ms; each pause is jittered down by up to half).
         */
        public Builder pollInterval(Duration interval) {
            this.pollInterval = Objects.requireNonNull(interval, "pollInterval");
            return this;
        }

        /**
         * The most one call to the store may take (default 5 s): each acquire attempt, release
         * and renewal gets it as its timeout (a renewal gets less when its lease has less
         * time left).
         */
        public Builder operationTimeout(Duration timeout) {
            this.operationTimeout = Objects.requireNonNull(timeout, "operationTimeout");
            return this;
        }

        /**
         * Starts the store ({@link LockStore#start}) and the machinery around it.
         *
         * @throws IllegalArgumentException naming the setting whose value is not allowed
         */
        public StoreLocks build() {
            requirePositive("pollInterval", pollInterval);
            requirePositive("operationTimeout", operationTimeout);
            Renewals renewals = watchdog ? new Renewals(renewalSchedule, operationTimeout) : null;
            return new StoreLocks(new LeaseIssuer(store, renewals, pollInterval, operationTimeout));
        }

        private static void requirePositive(String name, Duration value) {
            if (value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(name + " must be positive, got " + value);
            }
        }
    }
}
