package dev.fencing.examples.jobs;

import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The application's jobs, written as any ShedLock user writes them. Both tables are fenced
 * ({@code fencing.tables}): each write carries the fence of the job's lease.
 */
@Component
class Jobs {

    private static final Logger LOG = LoggerFactory.getLogger(Jobs.class);

    private final JdbcTemplate database;

    Jobs(JdbcTemplate database) {
        this.database = database;
    }

    /** Adds up today's orders into one row per day. */
    @Scheduled(fixedDelayString = "${jobs.delay:PT5S}")
    @SchedulerLock(name = "daily-totals", lockAtMostFor = "PT30S", lockAtLeastFor = "${jobs.lock-at-least-for:PT1S}")
    public void rollUpDailyTotals() {
        java.util.Map<String, Object> today = database.queryForMap(
                "SELECT COUNT(*) AS orders, COALESCE(SUM(amount), 0) AS amount FROM orders WHERE placed_on = CURRENT_DATE");
        int changed = database.update("INSERT INTO daily_totals (day, orders, amount) VALUES (CURRENT_DATE, ?, ?)"
                + " ON CONFLICT (day) DO UPDATE SET orders = EXCLUDED.orders, amount = EXCLUDED.amount",
                ((Number) today.get("orders")).longValue(), ((Number) today.get("amount")).longValue());
        LOG.info("daily-totals: {} row(s) written", changed);
    }

    /** Releases the stock of reservations that were not paid in time. */
    @Scheduled(fixedDelayString = "${jobs.delay:PT5S}")
    @SchedulerLock(name = "expire-reservations", lockAtMostFor = "PT30S", lockAtLeastFor = "${jobs.lock-at-least-for:PT1S}")
    public void expireReservations() {
        int expired = database.update("UPDATE reservations SET status = 'expired'"
                + " WHERE status = 'held' AND held_until < CURRENT_TIMESTAMP");
        LOG.info("expire-reservations: {} reservation(s) expired", expired);
    }
}
