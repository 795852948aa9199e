package dev.fencing.spring;

import dev.fencing.lock.FencedLocks;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The {@code fencing} health indicator on Spring Boot 4 (module {@code spring-boot-health}). */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnEnabledHealthIndicator("fencing")
class FencingHealthConfiguration {

    @Bean
    @ConditionalOnBean(FencedLocks.class)
    FencingHealthIndicator fencingHealthIndicator(FencedLocks locks, ObjectProvider<FencedDataSources> dataSources) {
        return new FencingHealthIndicator(locks, dataSources.getIfAvailable());
    }
}
