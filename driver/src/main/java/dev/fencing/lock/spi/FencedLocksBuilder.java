package dev.fencing.lock.spi;

import dev.fencing.internal.lock.LeaseIssuer;
import dev.fencing.internal.lock.Renewals;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The settings every lock store's builder shares, and the one place they are checked and handed
 * to the lease machinery: {@code RedisFencedLocks.Builder}, {@code JdbcFencedLocks.Builder},
 * {@code EtcdFencedLocks.Builder}, {@code ZooKeeperFencedLocks.Builder} and
 * {@link StoreLocks.Builder} extend it and add only what is their store's own (an address, a key
 * prefix, a table).
 *
 * <pre>{@code
 * public static final class Builder extends FencedLocksBuilder<Builder> {
 *     Builder(String uri) { super(Duration.ofSeconds(5)); ... }   // the store's default poll interval
 *     public MyFencedLocks build() {
 *         checkSettings();
 *         return new MyFencedLocks(startMachinery(new MyLockStore(...)));
 *     }
 * }
 * }</pre>
 *
 * <p>A setting added here reaches every store at once. Not thread-safe; build once.
 *
 * @param <B> the store's own builder, which every setter returns
 */
public abstract class FencedLocksBuilder<B extends FencedLocksBuilder<B>> {

    /** The default of {@link #operationTimeout}. */
    public static final Duration DEFAULT_OPERATION_TIMEOUT = Duration.ofSeconds(5);

    private boolean watchdog;
    private Duration pollInterval;
    private Duration operationTimeout = DEFAULT_OPERATION_TIMEOUT;
    private ScheduledExecutorService renewalSchedule;

    /** @param defaultPollInterval the store's default for {@link #pollInterval} */
    protected FencedLocksBuilder(Duration defaultPollInterval) {
        this.pollInterval = Objects.requireNonNull(defaultPollInterval, "defaultPollInterval");
    }

    /**
     * Whether leases are renewed until closed (default {@code false}: a lease lasts its TTL).
     * Renewals come every third of the TTL, each lease on its own.
     */
    public B watchdog(boolean enabled) {
        this.watchdog = enabled;
        return self();
    }

    /**
     * The longest pause between two attempts of a waiting acquire when no release is heard of
     * (each pause is jittered down by up to half); also the longest pause between attempts while
     * the store cannot be reached. The default is the store's (see its class).
     */
    public B pollInterval(Duration interval) {
        this.pollInterval = Objects.requireNonNull(interval, "pollInterval");
        return self();
    }

    /**
     * The most one call to the store may take, connecting included (default 5 s): each acquire
     * attempt, release and renewal gets it as its timeout (a renewal gets less when its lease
     * has less time left).
     */
    public B operationTimeout(Duration timeout) {
        this.operationTimeout = Objects.requireNonNull(timeout, "operationTimeout");
        return self();
    }

    /**
     * Keeps the renewal schedule on this executor instead of a daemon thread of the instance's
     * own (it is not shut down on close). The renewals themselves run on threads of their own.
     * Stopping this executor's thread stops renewals, as a paused process would: tests use it.
     */
    public B renewalSchedule(ScheduledExecutorService executor) {
        this.renewalSchedule = Objects.requireNonNull(executor, "renewalSchedule");
        return self();
    }

    /** Whether {@link #watchdog} is on. */
    protected final boolean watchdog() {
        return watchdog;
    }

    /** The {@link #operationTimeout} set (or the default). */
    protected final Duration operationTimeout() {
        return operationTimeout;
    }

    /**
     * Checks the shared settings; call it before opening anything.
     *
     * @throws IllegalArgumentException naming the setting whose value is not allowed
     */
    protected final void checkSettings() {
        requirePositive("pollInterval", pollInterval);
        requirePositive("operationTimeout", operationTimeout);
    }

    /**
     * Starts {@code store} ({@link LockStore#start}) and the lease machinery around it, with
     * these settings.
     */
    protected final StoreLocks startMachinery(LockStore store) {
        checkSettings();
        Renewals renewals = watchdog ? new Renewals(renewalSchedule, operationTimeout) : null;
        return new StoreLocks(new LeaseIssuer(Objects.requireNonNull(store, "store"), renewals, pollInterval,
                operationTimeout));
    }

    /** The shared settings, for a store's DEBUG line about its configuration. */
    protected final String describeSettings() {
        return "watchdog=" + watchdog + ", pollInterval=" + pollInterval + ", operationTimeout=" + operationTimeout;
    }

    /**
     * @throws IllegalArgumentException naming {@code name} when {@code value} is zero or negative
     */
    protected static void requirePositive(String name, Duration value) {
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }
}
