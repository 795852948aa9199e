package dev.fencing.internal.jdbc;

import dev.fencing.FencingConfig;
import dev.fencing.internal.sql.AnalyzerOptions;
import dev.fencing.internal.sql.Dialect;
import dev.fencing.internal.sql.StatementAnalyzer;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The analyzers of one {@link ConnectionContext}, one per (dialect, database URL), so that every
 * connection of the context to the same database shares one plan cache. The URL is part of the key
 * because plans depend on what one database's metadata says (keys for zero-row diagnosis, foreign
 * keys that cascade into fenced tables). Bounded: beyond {@link #CAPACITY} databases the least
 * recently used analyzer is dropped and its plans are built again on demand.
 */
final class AnalyzerCache {

    static final int CAPACITY = 64;

    private record Key(Dialect dialect, String url) {
    }

    private final FencingConfig config;
    private final AnalyzerOptions options;
    private final Map<Key, StatementAnalyzer> analyzers = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, StatementAnalyzer> eldest) {
            return size() > CAPACITY;
        }
    };

    AnalyzerCache(FencingConfig config, AnalyzerOptions options) {
        this.config = config;
        this.options = options;
    }

    /** The analyzer for connections of {@code dialect} to the database at {@code url} (null when unknown). */
    synchronized StatementAnalyzer get(Dialect dialect, String url) {
        return analyzers.computeIfAbsent(new Key(dialect, url), key -> new StatementAnalyzer(config, dialect, options));
    }

    /** The fenced tables whose fence column passed its check on any of these databases, sorted. */
    synchronized Set<String> fenceColumnsChecked() {
        Set<String> checked = new TreeSet<>();
        analyzers.values().forEach(analyzer -> checked.addAll(analyzer.fenceColumns().passed()));
        return checked;
    }

    synchronized int size() {
        return analyzers.size();
    }
}
