package dev.fencing.jdbc;

import dev.fencing.FencingConfig;
import dev.fencing.sql.Dialect;
import dev.fencing.sql.StatementAnalyzer;

import java.util.EnumMap;
import java.util.Map;

/**
 * The analyzers of one {@link ConnectionContext}, one per dialect, so that every connection of the
 * context to the same kind of database shares one plan cache. At most one per {@link Dialect}.
 */
final class AnalyzerCache {

    private final FencingConfig config;
    private final Map<Dialect, StatementAnalyzer> analyzers = new EnumMap<>(Dialect.class);

    AnalyzerCache(FencingConfig config) {
        this.config = config;
    }

    synchronized StatementAnalyzer get(Dialect dialect) {
        return analyzers.computeIfAbsent(dialect, key -> new StatementAnalyzer(config, key));
    }

    synchronized int size() {
        return analyzers.size();
    }
}
