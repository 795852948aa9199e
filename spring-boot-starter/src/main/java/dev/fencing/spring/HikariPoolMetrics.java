package dev.fencing.spring;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Binds the Hikari pools under the wrapped data sources to Micrometer ({@code hikaricp.*}), as
 * Spring Boot does for data sources it can unwrap: {@link dev.fencing.jdbc.FencingDataSource}
 * refuses {@code unwrap}, so Boot's own binder no longer finds the pool. A pool that already has
 * a metrics registry or tracker is left alone.
 */
final class HikariPoolMetrics implements MeterBinder {

    private final FencedDataSources dataSources;

    HikariPoolMetrics(FencedDataSources dataSources) {
        this.dataSources = dataSources;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (Object delegate : dataSources.delegates()) {
            if (delegate instanceof HikariDataSource hikari
                    && hikari.getMetricRegistry() == null && hikari.getMetricsTrackerFactory() == null) {
                hikari.setMetricsTrackerFactory(new MicrometerMetricsTrackerFactory(registry));
            }
        }
    }
}
