package dev.fencing.spring;

import dev.fencing.FencingConfig;
import dev.fencing.events.FencingListener;
import dev.fencing.jdbc.FencingDataSource;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * Wraps every {@link DataSource} bean in a {@link FencingDataSource} configured from the
 * application's {@code fencing.*} keys, and remembers each wrapped bean's delegate: migrations
 * (whose DDL on fenced tables a fenced connection refuses) and the JDBC lock store run on it.
 *
 * <p>{@link FencingDataSource#unwrap} stays closed: the delegate is reachable only through this
 * bean, which application code has no reason to use.
 */
final class FencedDataSources implements BeanPostProcessor, Ordered {

    private final Environment environment;
    private final Map<DataSource, DataSource> delegates = new IdentityHashMap<>();
    private final Map<String, FencingDataSource> byName = new LinkedHashMap<>();
    private final List<FencingListener> listeners = new ArrayList<>();
    private volatile FencingConfig config;

    FencedDataSources(Environment environment) {
        this.environment = environment;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (!(bean instanceof DataSource dataSource) || bean instanceof FencingDataSource) {
            return bean;
        }
        FencingDataSource fenced = new FencingDataSource(dataSource, config());
        synchronized (this) {
            delegates.put(fenced, dataSource);
            byName.put(beanName, fenced);
            listeners.forEach(fenced::addListener);
        }
        return fenced;
    }

    /** Runs late, so that other post-processors see the data source they expect before it is wrapped. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE - 10;
    }

    /** The configuration every data source is wrapped with. */
    FencingConfig config() {
        FencingConfig current = config;
        if (current == null) {
            synchronized (this) {
                if (config == null) {
                    config = FencingSettings.of(environment).fencingConfig();
                }
                current = config;
            }
        }
        return current;
    }

    /** The delegate of a data source this wrapped; any other data source as it is. */
    synchronized DataSource unwrapped(DataSource dataSource) {
        return delegates.getOrDefault(dataSource, dataSource);
    }

    /** Makes {@code listener} hear the statements of every data source wrapped so far and from now on. */
    synchronized void addListener(FencingListener listener) {
        if (!listeners.contains(listener)) {
            listeners.add(listener);
            byName.values().forEach(fenced -> fenced.addListener(listener));
        }
    }

    /** The data sources wrapped so far, unwrapped. */
    synchronized List<DataSource> delegates() {
        return new ArrayList<>(delegates.values());
    }

    /** The names of the beans wrapped so far. */
    synchronized List<String> beanNames() {
        return new ArrayList<>(byName.keySet());
    }
}
