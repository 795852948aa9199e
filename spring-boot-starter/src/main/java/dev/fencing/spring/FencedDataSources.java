package dev.fencing.spring;

import dev.fencing.FencingConfig;
import dev.fencing.events.FencingListener;
import dev.fencing.jdbc.FencingDataSource;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import javax.sql.DataSource;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.datasource.lookup.AbstractRoutingDataSource;

/**
 * Wraps every {@link DataSource} bean in a {@link FencingDataSource} configured from the
 * application's {@code fencing.*} keys, and remembers each wrapped bean's delegate: migrations
 * (whose DDL on fenced tables a fenced connection refuses) and the JDBC lock store run on it.
 *
 * <p>Each physical data source is wrapped once: a bean that is a proxy over a bean wrapped
 * already, or a routing data source whose every target is, is left as it is (it hands out the
 * fenced connections of what it forwards to); a routing data source with a target that is not
 * fenced is wrapped, and its {@link FencingDataSource} hands on the connections of its fenced
 * targets as they are (see {@link FencingDataSource#getConnection()}).
 *
 * <p>{@link FencingDataSource#unwrap} stays closed: the delegate is reachable only through this
 * bean, which application code has no reason to use.
 */
final class FencedDataSources implements BeanPostProcessor, Ordered {

    private final Environment environment;
    private final Map<DataSource, DataSource> delegates = new IdentityHashMap<>();
    /** Beans left unwrapped because they forward to a wrapped one, with that one. */
    private final Map<DataSource, FencingDataSource> proxies = new IdentityHashMap<>();
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
        FencingDataSource underneath = fencedUnderneath(dataSource);
        if (underneath != null) {
            // a proxy over a data source wrapped already: a second layer would splice the first one's text
            synchronized (this) {
                proxies.put(dataSource, underneath);
            }
            return bean;
        }
        if (dataSource instanceof AbstractRoutingDataSource routing && everyTargetFenced(routing)) {
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

    /**
     * The fencing data source this one forwards to, through any proxies that answer
     * {@code isWrapperFor}/{@code unwrap} ({@code LazyConnectionDataSourceProxy},
     * {@code TransactionAwareDataSourceProxy}, any {@code DelegatingDataSource}, datasource-proxy...);
     * null when there is none or it cannot tell (then the bean is wrapped, and the data source's own
     * check at {@code getConnection} keeps a connection fenced already from being fenced twice).
     * A routing data source is asked for its targets instead: which one it forwards to depends on
     * the moment.
     */
    private static FencingDataSource fencedUnderneath(DataSource dataSource) {
        if (dataSource instanceof AbstractRoutingDataSource) {
            return null;
        }
        try {
            if (!dataSource.isWrapperFor(FencingDataSource.class)) {
                return null;
            }
            Object inner = dataSource.unwrap(FencingDataSource.class);
            return inner instanceof FencingDataSource fenced ? fenced : null;
        } catch (SQLException | RuntimeException cannotTell) {
            return null;
        }
    }

    /** True when every target of {@code routing}, and its default, is fenced already (then it needs no layer of its own). */
    private static boolean everyTargetFenced(AbstractRoutingDataSource routing) {
        List<DataSource> targets = new ArrayList<>(routing.getResolvedDataSources().values());
        if (routing.getResolvedDefaultDataSource() != null) {
            targets.add(routing.getResolvedDefaultDataSource());
        }
        if (targets.isEmpty()) {
            return false;
        }
        for (DataSource target : targets) {
            if (!(target instanceof FencingDataSource) && fencedUnderneath(target) == null
                    && !(target instanceof AbstractRoutingDataSource nested && everyTargetFenced(nested))) {
                return false;
            }
        }
        return true;
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

    /**
     * The delegate of a data source this wrapped, or of the wrapped one a proxy bean forwards to
     * (migrations and the lock store then bypass the proxy); any other data source as it is.
     */
    synchronized DataSource unwrapped(DataSource dataSource) {
        FencingDataSource behindProxy = proxies.get(dataSource);
        return delegates.getOrDefault(behindProxy == null ? dataSource : behindProxy, dataSource);
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

    /** The fenced tables whose fence column a wrapped data source has checked and found, sorted. */
    synchronized List<String> fenceColumnsChecked() {
        TreeSet<String> checked = new TreeSet<>();
        byName.values().forEach(fenced -> checked.addAll(fenced.fenceColumnsChecked()));
        return new ArrayList<>(checked);
    }

    /** The names of the beans wrapped so far. */
    synchronized List<String> beanNames() {
        return new ArrayList<>(byName.keySet());
    }
}
