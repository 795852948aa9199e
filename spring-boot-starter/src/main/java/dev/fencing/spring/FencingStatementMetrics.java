package dev.fencing.spring;

import dev.fencing.events.FencingListener;
import dev.fencing.events.PlanningEvent;
import dev.fencing.events.StatementEvent;
import dev.fencing.events.Refusal;
import dev.fencing.events.Rejection;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Micrometer meters of what the driver does with the statements of the wrapped data sources:
 * <ul>
 *   <li>{@code fencing.statements} (counter), tag {@code outcome}: {@code fenced} (with {@code table}),
 *       {@code passed}, {@code refused} (with {@code kind} = {@code missing_fence}, {@code unfenceable},
 *       {@code other}, and {@code table});</li>
 *   <li>{@code fencing.writes.rejected} (counter): stale writes, tags {@code kind} = {@code row_fence}
 *       or {@code epoch_row}, and {@code table};</li>
 *   <li>{@code fencing.statement.planning} (timer): planning a statement text, tag {@code cache} =
 *       {@code hit} or {@code miss} (the hit ratio is hits over all; a miss's time is the analysis);</li>
 *   <li>{@code fencing.plan.cache.size} (gauge): plans cached, as last reported.</li>
 * </ul>
 * Meters are looked up once per tag combination and kept, so a statement costs a map read and an
 * increment. Events before the binder is bound are not counted.
 */
final class FencingStatementMetrics implements MeterBinder, FencingListener {

    static final String STATEMENTS = "fencing.statements";
    static final String REJECTED = "fencing.writes.rejected";
    static final String PLANNING = "fencing.statement.planning";
    static final String CACHE_SIZE = "fencing.plan.cache.size";
    private static final String NO_TABLE = "none";

    private final AtomicInteger cachedPlans = new AtomicInteger();
    private final Map<String, Counter> fenced = new ConcurrentHashMap<>();
    private final Map<Refusal, Map<String, Counter>> refused = new EnumMap<>(Refusal.class);
    private final Map<Rejection, Map<String, Counter>> rejected = new EnumMap<>(Rejection.class);
    private volatile MeterRegistry registry;
    private volatile Counter passed;
    private volatile Timer hits;
    private volatile Timer misses;

    FencingStatementMetrics() {
        for (Refusal kind : Refusal.values()) {
            refused.put(kind, new ConcurrentHashMap<>());
        }
        for (Rejection kind : Rejection.values()) {
            rejected.put(kind, new ConcurrentHashMap<>());
        }
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        passed = Counter.builder(STATEMENTS).description("Statements run through fenced data sources")
                .tag("outcome", "passed").register(registry);
        hits = planning(registry, "hit");
        misses = planning(registry, "miss");
        Gauge.builder(CACHE_SIZE, cachedPlans, AtomicInteger::get)
                .description("Statement plans cached, as last reported").register(registry);
        this.registry = registry;
    }

    @Override
    public void statementFenced(StatementEvent event) {
        MeterRegistry current = registry;
        if (current != null) {
            String table = event.table();
            Counter counter = fenced.get(tableTag(table));
            if (counter == null) {
                counter = fenced.computeIfAbsent(tableTag(table), t -> Counter.builder(STATEMENTS)
                        .tag("outcome", "fenced").tag("table", t).register(current));
            }
            counter.increment();
        }
    }

    @Override
    public void statementPassedThrough(StatementEvent event) {
        Counter counter = passed;
        if (counter != null) {
            counter.increment();
        }
    }

    @Override
    public void statementRefused(StatementEvent event) {
        MeterRegistry current = registry;
        if (current != null) {
            Refusal kind = event.refusal();
            String table = event.table();
            refused.get(kind).computeIfAbsent(tableTag(table), t -> Counter.builder(STATEMENTS)
                    .tag("outcome", "refused").tag("kind", kind.name().toLowerCase(Locale.ROOT)).tag("table", t)
                    .register(current)).increment();
        }
    }

    @Override
    public void writeRejected(StatementEvent event) {
        MeterRegistry current = registry;
        if (current != null) {
            Rejection kind = event.rejection();
            String table = event.table();
            rejected.get(kind).computeIfAbsent(tableTag(table), t -> Counter.builder(REJECTED)
                    .description("Writes rejected because their fence was stale")
                    .tag("kind", kind.name().toLowerCase(Locale.ROOT)).tag("table", t).register(current)).increment();
        }
    }

    @Override
    public void statementPlanned(PlanningEvent event) {
        Timer timer = event.cacheHit() ? hits : misses;
        if (timer != null) {
            timer.record(event.nanos(), TimeUnit.NANOSECONDS);
            cachedPlans.set(event.cachedPlans());
        }
    }

    private static Timer planning(MeterRegistry registry, String cache) {
        return Timer.builder(PLANNING).description("Time to plan a statement text (a miss is an analysis)")
                .tag("cache", cache).register(registry);
    }

    private static String tableTag(String table) {
        return table == null ? NO_TABLE : table;
    }
}
