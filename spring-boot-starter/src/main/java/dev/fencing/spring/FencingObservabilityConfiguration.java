package dev.fencing.spring;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The health indicator {@code fencing} ({@code FencingHealthConfiguration}, one per Spring Boot line:
 * Boot 4 moved the health API to another package), the Micrometer meters of the lock and the driver, and the
 * Hikari pool meters that wrapping would otherwise hide.
 */
@AutoConfiguration(after = FencingAutoConfiguration.class)
@Import(FencingHealthConfiguration.class)
public class FencingObservabilityConfiguration {

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
