package dev.fencing.spring;

import dev.fencing.lock.FencedLocks;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The {@code fencing} health indicator on Spring Boot 3.5 ({@code spring-boot-actuator}). */
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
