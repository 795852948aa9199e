package dev.fencing.internal.sql;

import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Analysed statements by SQL text, bounded. When full, an arbitrary tenth of the entries is
 * dropped: applications have a small working set of statement texts, and a text that comes back
 * is only analysed again, never run unchecked. Lookups take no lock.
 */
final class PlanCache {

    private final ConcurrentHashMap<String, FencePlan> plans;
    private final int capacity;
    private volatile int generation;

    PlanCache(int capacity) {
        this.capacity = capacity;
        this.plans = new ConcurrentHashMap<>(Math.min(capacity, 1024));
    }

    /** The plan analysed for {@code sql}, or null when it is not cached. */
    FencePlan cached(String sql) {
        return plans.get(sql);
    }

    FencePlan get(String sql, Function<String, FencePlan> analysis) {
        FencePlan plan = plans.get(sql);
        if (plan != null) {
            return plan;
        }
        int before = generation;
        int exhausted = AnalysisBudget.exhaustedOnThisThread();
        plan = analysis.apply(sql);
        if (before != generation) {
            return plan; // analysed while what plans depend on changed: correct for now, not kept
        }
        if (AnalysisBudget.exhaustedOnThisThread() != exhausted) {
            // the analysis ran out of time (a loaded machine, a pathological text): the refusal holds
            // for this execution, the next one analyses again instead of inheriting a verdict of the load
            return plan;
        }
        if (plans.size() >= capacity) {
            evictSome();
        }
        FencePlan raced = plans.putIfAbsent(sql, plan);
        return raced != null ? raced : plan;
    }

    /** Drops every plan: what they were analysed with (the schema's facts) has changed. */
    void clear() {
        generation++;
        plans.clear();
    }

    int size() {
        return plans.size();
    }

    private void evictSome() {
        int toDrop = Math.max(1, capacity / 10);
        Iterator<String> keys = plans.keySet().iterator();
        while (toDrop-- > 0 && keys.hasNext()) {
            keys.next();
            keys.remove();
        }
    }
}
