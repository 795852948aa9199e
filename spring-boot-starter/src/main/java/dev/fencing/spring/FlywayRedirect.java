package dev.fencing.spring;

import java.util.Arrays;

import org.flywaydb.core.api.callback.Callback;
import org.flywaydb.core.api.configuration.FluentConfiguration;

/**
 * Points Flyway at the unwrapped data source (a fenced connection refuses DDL on fenced tables)
 * and adds {@link FlywayMigrationMarkCallback}. Called by each Spring Boot line's
 * {@code FlywayConfigurationCustomizer}; a Flyway given its own URL has no data source from the
 * context and is left as it is.
 */
final class FlywayRedirect {

    private FlywayRedirect() {
    }

    static void apply(FluentConfiguration configuration, FencedDataSources fenced) {
        if (fenced == null || configuration.getDataSource() == null) {
            return;
        }
        configuration.dataSource(MigrationMarks.clearingOnClose(fenced.unwrapped(configuration.getDataSource())));
        Callback[] callbacks = configuration.getCallbacks();
        Callback[] withMark = Arrays.copyOf(callbacks, callbacks.length + 1);
        withMark[callbacks.length] = new FlywayMigrationMarkCallback();
        configuration.callbacks(withMark);
    }
}
