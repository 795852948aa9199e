package dev.fencing.spring;

import java.util.Arrays;

import liquibase.integration.spring.SpringLiquibase;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.callback.Callback;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.flyway.autoconfigure.FlywayConfigurationCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Migrations run on the unwrapped data source: a fenced connection refuses DDL on fenced tables
 * (and a migration is not a fenced holder's write). Applies to the data source Flyway or
 * Liquibase would otherwise take from the context; one they build from their own URL is not
 * wrapped in the first place.
 *
 * <p>The database guard's migration mark that a script sets for itself does not outlive it: Flyway
 * clears it after each migration ({@link FlywayMigrationMarkCallback}), and every connection either
 * tool closes is cleared before its pool gets it back, or aborted when that fails
 * ({@link MigrationMarks#clearingOnClose}). Liquibase offers Spring no per-changeset hook, so there
 * a session-level mark lasts until Liquibase closes its connection (the end of its run).
 */
@AutoConfiguration(after = FencingAutoConfiguration.class)
public class FencingMigrationConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({Flyway.class, FlywayConfigurationCustomizer.class})
    static class FlywayOnUnwrappedDataSource {

        @Bean
        FlywayConfigurationCustomizer fencingFlywayDataSource(ObjectProvider<FencedDataSources> fencedDataSources) {
            return configuration -> {
                FencedDataSources fenced = fencedDataSources.getIfAvailable();
                if (fenced != null && configuration.getDataSource() != null) {
                    configuration.dataSource(MigrationMarks.clearingOnClose(fenced.unwrapped(configuration.getDataSource())));
                    Callback[] callbacks = configuration.getCallbacks();
                    Callback[] withMark = Arrays.copyOf(callbacks, callbacks.length + 1);
                    withMark[callbacks.length] = new FlywayMigrationMarkCallback();
                    configuration.callbacks(withMark);
                }
            };
        }
    }

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
