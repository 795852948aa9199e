package dev.fencing.spring;

import dev.fencing.FencingConfig;
import dev.fencing.lock.FencedLocks;

import java.util.ArrayList;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * One INFO line once the application's beans exist, saying that fencing is on and what it covers:
 * the fenced tables with their mode (and fence column), the wrapped data source beans, the lock
 * store (no credentials) and the database guard's mode. With {@code fencing.enabled=false} the line
 * says that the data sources are not wrapped.
 */
final class FencingStartupReport implements SmartInitializingSingleton {

    private static final Log LOG = LogFactory.getLog(FencingStartupReport.class);

    private final ObjectProvider<FencedDataSources> dataSources;
    private final ObjectProvider<FencedLocks> locks;

    FencingStartupReport(ObjectProvider<FencedDataSources> dataSources, ObjectProvider<FencedLocks> locks) {
        this.dataSources = dataSources;
        this.locks = locks;
    }

    @Override
    public void afterSingletonsInstantiated() {
        if (LOG.isInfoEnabled()) {
            LOG.info(line(dataSources.getIfAvailable(), locks.getIfAvailable()));
        }
    }

    static String line(FencedDataSources fenced, FencedLocks lockStore) {
        String store = "lock store " + (lockStore == null ? "none" : lockStore.toString());
        if (fenced == null) {
            return "fencing-jdbc: data sources NOT wrapped (" + FencingKeys.ENABLED + "=false), no write is fenced; " + store;
        }
        FencingConfig config = fenced.config();
        List<String> tables = new ArrayList<>();
        for (String table : config.tables()) {
            tables.add(config.modeOf(table) == FencingConfig.Mode.EPOCH ? table + " (epoch)"
                    : table + " (row, column " + config.column() + ")");
        }
        return "fencing-jdbc on: fenced tables " + String.join(", ", tables) + "; wrapped data sources "
                + (fenced.beanNames().isEmpty() ? "none" : String.join(", ", fenced.beanNames())) + "; " + store
                + "; database guard " + (config.guardRequired() ? "required" : "off");
    }
}
