package dev.fencing.jdbc;

import dev.fencing.FencingConfig;
import dev.fencing.sql.Dialect;
import dev.fencing.sql.StatementAnalyzer;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The driver's analyzers, one per (configuration, dialect, database URL), so that connections opened with the
 * same configuration share one plan cache. Bounded: the least recently used analyzer is dropped
 * beyond {@link #CAPACITY} (its plans are then built again on demand).
 */
final class AnalyzerCache {

    static final int CAPACITY = 16;

    /** The URL is part of the key: plans depend on what one database's metadata says (keys, cascades). */
    private record Key(FencingConfig config, Dialect dialect, String url) {
    }

    private final Map<Key, StatementAnalyzer> analyzers = new LinkedHashMap<>(CAPACITY, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, StatementAnalyzer> eldest) {
            return size() > CAPACITY;
        }
    };

    /** The analyzer for connections like {@code connection}: same configuration, dialect and database URL. */
    StatementAnalyzer get(FencingConfig config, java.sql.Connection connection) throws java.sql.SQLException {
        Dialect dialect = FencedConnection.dialectOf(connection);
        return get(config, dialect, connection.getMetaData().getURL());
    }

    private synchronized StatementAnalyzer get(FencingConfig config, Dialect dialect, String url) {
        return analyzers.computeIfAbsent(new Key(config, dialect, url), key -> new StatementAnalyzer(config, dialect));
    }

    synchronized int size() {
        return analyzers.size();
    }
}
