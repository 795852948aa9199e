package dev.fencing.spring;

import org.flywaydb.core.Flyway;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.flyway.FlywayConfigurationCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Spring Boot 3.5's Flyway customizer (package {@code org.springframework.boot.autoconfigure.flyway}), applying {@link FlywayRedirect}. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({Flyway.class, FlywayConfigurationCustomizer.class})
class FlywayOnUnwrappedDataSource {

    @Bean
    FlywayConfigurationCustomizer fencingFlywayDataSource(ObjectProvider<FencedDataSources> fencedDataSources) {
        return configuration -> FlywayRedirect.apply(configuration, fencedDataSources.getIfAvailable());
    }
}
