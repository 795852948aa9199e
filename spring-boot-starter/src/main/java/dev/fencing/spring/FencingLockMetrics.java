package dev.fencing.spring;

import dev.fencing.lock.LockAcquisitionException;

import java.util.Locale;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Meters of {@link FencedLock} methods:
 * <ul>
 *   <li>{@code fencing.lock.acquire} (timer): time to acquire, tagged {@code outcome} =
 *       {@code acquired}, {@code timed_out}, {@code store_failed}, {@code not_replicated} or
 *       {@code interrupted};</li>
 *   <li>{@code fencing.lock.leases.lost} (counter): leases found lost while their method ran or
 *       before its transaction committed.</li>
 * </ul>
 * Bound to every registry Spring Boot configures; events before the first binding are not counted.
 */
final class FencingLockMetrics implements MeterBinder, LockObserver {

    static final String ACQUIRE = "fencing.lock.acquire";
    static final String LEASES_LOST = "fencing.lock.leases.lost";

    private volatile MeterRegistry registry;

    @Override
    public void bindTo(MeterRegistry registry) {
        this.registry = registry;
        timer(registry, "acquired");
        for (LockAcquisitionException.Reason reason : LockAcquisitionException.Reason.values()) {
            timer(registry, outcome(reason));
        }
        lost(registry);
    }

    @Override
    public void acquired(long nanos) {
        MeterRegistry current = registry;
        if (current != null) {
            timer(current, "acquired").record(nanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void failed(LockAcquisitionException.Reason reason, long nanos) {
        MeterRegistry current = registry;
        if (current != null) {
            timer(current, outcome(reason)).record(nanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void leaseLost() {
        MeterRegistry current = registry;
        if (current != null) {
            lost(current).increment();
        }
    }

    private static Timer timer(MeterRegistry registry, String outcome) {
        return Timer.builder(ACQUIRE).description("Time to acquire the lock of a @FencedLock method")
                .tag("outcome", outcome).register(registry);
    }

    private static Counter lost(MeterRegistry registry) {
        return Counter.builder(LEASES_LOST).description("@FencedLock leases found lost before their work was done")
                .register(registry);
    }

    private static String outcome(LockAcquisitionException.Reason reason) {
        return reason.name().toLowerCase(Locale.ROOT);
    }
}
