package dev.fencing.jdbc;

import dev.fencing.FencingConfig;
import dev.fencing.sql.Dialect;
import dev.fencing.sql.StatementAnalyzer;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The driver's analyzers, one per (configuration, dialect), so that connections opened with the
 * same configuration share one plan cache. Bounded: the least recently used analyzer is dropped
 * beyond {@link #CAPACITY} (its plans are then built again on demand).
 */
final class AnalyzerCache {

    static final int CAPACITY = 16;

    private record Key(FencingConfig config, Dialect dialect) {
    }

    private final Map<Key, StatementAnalyzer> analyzers = new LinkedHashMap<>(CAPACITY, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, StatementAnalyzer> eldest) {
            return size() > CAPACITY;
        }
    };

    synchronized StatementAnalyzer get(FencingConfig config, Dialect dialect) {
        return analyzers.computeIfAbsent(new Key(config, dialect), key -> new StatementAnalyzer(config, dialect));
    }

    synchronized int size() {
        return analyzers.size();
    }
}
