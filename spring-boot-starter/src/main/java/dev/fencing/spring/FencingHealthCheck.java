package dev.fencing.spring;

import dev.fencing.jdbc.DatabaseGuard;
import dev.fencing.lock.FencedLocks;
import dev.fencing.lock.Lease;
import dev.fencing.lock.LockAcquisitionException;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Health of fencing ({@code /actuator/health/fencing}): UP when the lock store answers an acquire
 * of the resource {@value #PROBE} (taken and released at once; a probe held by a concurrent check
 * counts as an answer), DOWN with the store's error otherwise. With
 * {@code fencing.database-guard=required} it is also DOWN while the guard of a wrapped data source
 * is missing or outdated ({@link DatabaseGuard#verify}), since every fenced write then fails closed.
 * Details name the lock store (no credentials) and the wrapped data source beans.
 */
final class FencingHealthIndicator implements HealthIndicator {

    static final String PROBE = "fencing-health-probe";

    private final FencedLocks locks;
    private final FencedDataSources dataSources;

    FencingHealthIndicator(FencedLocks locks, FencedDataSources dataSources) {
        this.locks = locks;
        this.dataSources = dataSources;
    }

    @Override
    public Health health() {
        Health.Builder health;
        try {
            Optional<Lease> probe = locks.tryAcquire(PROBE, Duration.ofSeconds(5));
            probe.ifPresent(Lease::close);
            health = Health.up();
        } catch (LockAcquisitionException e) {
            health = Health.down().withDetail("lockStoreError", e.reason() + ": " + e.getMessage());
        }
        if (dataSources != null && dataSources.config().guardRequired()) {
            List<String> problems = guardProblems();
            if (!problems.isEmpty()) {
                health.down().withDetail("databaseGuard", problems);
            } else {
                health.withDetail("databaseGuard", "installed and current");
            }
        }
        health.withDetail("lockStore", locks.toString());
        health.withDetail("fencedDataSources", dataSources == null ? List.of() : dataSources.beanNames());
        if (dataSources != null) {
            health.withDetail("fencedTables", dataSources.config().tables().stream().map(Object::toString).toList());
        }
        return health.build();
    }

    /** What {@link DatabaseGuard#verify} says about each wrapped data source; empty when all are guarded. */
    private List<String> guardProblems() {
        List<String> problems = new ArrayList<>();
        for (DataSource raw : dataSources.delegates()) {
            try {
                DatabaseGuard.verify(raw, dataSources.config());
            } catch (SQLException | RuntimeException e) {
                problems.add(e.getMessage());
            }
        }
        return problems;
    }
}
