package dev.fencing.spring;

import dev.fencing.jdbc.DatabaseGuard;
import dev.fencing.lock.FencedLocks;
import dev.fencing.lock.Lease;
import dev.fencing.lock.LockAcquisitionException;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Health of fencing, apart from the Spring Boot line's health API ({@code FencingHealthIndicator}
 * of each line turns a {@link Report} into its {@code Health}): UP when the lock store answers an
 * acquire of the resource {@value #PROBE} (taken and released at once; a probe held by a concurrent
 * check counts as an answer), DOWN with the store's error otherwise. With
 * {@code fencing.database-guard=required} it is also DOWN while the guard of a wrapped data source
 * is missing or outdated ({@link DatabaseGuard#verify}), since every fenced write then fails closed.
 * Details name the lock store (no credentials), the wrapped data source beans, the fenced tables
 * and the tables whose fence column the driver has checked so far.
 */
final class FencingHealthCheck {

    static final String PROBE = "fencing-health-probe";

    /** UP or DOWN, with the details to show. */
    record Report(boolean up, Map<String, Object> details) {
    }

    private final FencedLocks locks;
    private final FencedDataSources dataSources;

    FencingHealthCheck(FencedLocks locks, FencedDataSources dataSources) {
        this.locks = locks;
        this.dataSources = dataSources;
    }

    Report check() {
        Map<String, Object> details = new LinkedHashMap<>();
        boolean up = true;
        try {
            Optional<Lease> probe = locks.tryAcquire(PROBE, Duration.ofSeconds(5));
            probe.ifPresent(Lease::close);
        } catch (LockAcquisitionException e) {
            up = false;
            details.put("lockStoreError", e.reason() + ": " + e.getMessage());
        }
        if (dataSources != null && dataSources.config().guardRequired()) {
            List<String> problems = guardProblems();
            if (!problems.isEmpty()) {
                up = false;
                details.put("databaseGuard", problems);
            } else {
                details.put("databaseGuard", "installed and current");
            }
        }
        details.put("lockStore", locks.toString());
        details.put("fencedDataSources", dataSources == null ? List.of() : dataSources.beanNames());
        if (dataSources != null) {
            details.put("fencedTables", dataSources.config().tables().stream().map(Object::toString).toList());
            details.put("fenceColumnChecked", dataSources.fenceColumnsChecked());
        }
        return new Report(up, details);
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
