package dev.fencing.spring;

import dev.fencing.lock.FencedLocks;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The health indicator {@code fencing}, the Micrometer meters of the lock and the driver, and the
 * Hikari pool meters that wrapping would otherwise hide.
 */
@AutoConfiguration(after = FencingAutoConfiguration.class)
public class FencingObservabilityConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    @ConditionalOnEnabledHealthIndicator("fencing")
    static class Health {

        @Bean
        @ConditionalOnBean(FencedLocks.class)
        HealthIndicator fencingHealthIndicator(FencedLocks locks, ObjectProvider<FencedDataSources> dataSources) {
            return new FencingHealthIndicator(locks, dataSources.getIfAvailable());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static class Metrics {

        @Bean
        FencingLockMetrics fencingLockMetrics() {
            return new FencingLockMetrics();
        }

        @Bean
        FencingStatementMetrics fencingStatementMetrics() {
            return new FencingStatementMetrics();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"io.micrometer.core.instrument.MeterRegistry", "com.zaxxer.hikari.HikariDataSource"})
    static class HikariMetrics {

        @Bean
        @ConditionalOnBean(FencedDataSources.class)
        HikariPoolMetrics fencingHikariPoolMetrics(FencedDataSources dataSources) {
            return new HikariPoolMetrics(dataSources);
        }
    }
}
