package dev.fencing.spring;

import liquibase.integration.spring.SpringLiquibase;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * Migrations run on the unwrapped data source: a fenced connection refuses DDL on fenced tables
 * (and a migration is not a fenced holder's write). Applies to the data source Flyway or
 * Liquibase would otherwise take from the context; one they build from their own URL is not
 * wrapped in the first place.
 *
 * <p>The database guard's migration mark that a script sets for itself does not outlive it: Flyway
 * clears it after each migration ({@link FlywayMigrationMarkCallback}), and every connection either
 * tool closes is cleared before its pool gets it back, or aborted when that fails
 * ({@link MigrationMarks#clearingOnClose}). Flyway is reached through the Spring Boot line's
 * {@code FlywayConfigurationCustomizer} ({@code FlywayOnUnwrappedDataSource}, one per line: Boot 4
 * moved it to another package), the rest through {@link FlywayRedirect}. Liquibase offers Spring no per-changeset hook, so there
 * a session-level mark lasts until Liquibase closes its connection (the end of its run).
 */
@AutoConfiguration(after = FencingAutoConfiguration.class)
@Import(FlywayOnUnwrappedDataSource.class)
public class FencingMigrationConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(SpringLiquibase.class)
    static class LiquibaseOnUnwrappedDataSource {

        @Bean
        static BeanPostProcessor fencingLiquibaseDataSource(ObjectProvider<FencedDataSources> fencedDataSources) {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessBeforeInitialization(Object bean, String beanName) {
                    FencedDataSources fenced = fencedDataSources.getIfAvailable();
                    if (bean instanceof SpringLiquibase liquibase && fenced != null && liquibase.getDataSource() != null) {
                        liquibase.setDataSource(MigrationMarks.clearingOnClose(fenced.unwrapped(liquibase.getDataSource())));
                    }
                    return bean;
                }
            };
        }
    }
}
