package dev.fencing.events;

/**
 * What a {@link FencingListener} hears of one text being planned. Made only when a listener is
 * registered.
 *
 * @param nanos       how long the planning took
 * @param cacheHit    true when no analysis was needed: the plan came from the cache, or the
 *                    pre-filter passed a text that names no fenced table without analysing it
 *                    (the hit ratio is the share of hits). Under concurrency a hit may be reported
 *                    as a miss when another thread analysed a text at the same moment.
 * @param cachedPlans how many plans the cache holds now
 */
public record PlanningEvent(long nanos, boolean cacheHit, int cachedPlans) {
}
