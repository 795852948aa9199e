package dev.fencing.spring;

import dev.fencing.lock.FencedLocks;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/** {@link FencingHealthCheck} as Spring Boot 4's {@link HealthIndicator} ({@code /actuator/health/fencing}). */
final class FencingHealthIndicator implements HealthIndicator {

    private final FencingHealthCheck check;

    FencingHealthIndicator(FencedLocks locks, FencedDataSources dataSources) {
        this.check = new FencingHealthCheck(locks, dataSources);
    }

    @Override
    public Health health() {
        FencingHealthCheck.Report report = check.check();
        return (report.up() ? Health.up() : Health.down()).withDetails(report.details()).build();
    }
}
