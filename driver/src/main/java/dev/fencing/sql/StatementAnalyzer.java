package dev.fencing.sql;

import dev.fencing.FencingConfig;

/**
 * Turns SQL text into {@link FencePlan}s for one configuration and dialect. Thread-safe; plans
 * are cached per text in a bounded cache, and text that names no fenced table is passed without
 * being parsed.
 */
public final class StatementAnalyzer {

    private final FencingConfig config;
    private final Dialect dialect;

    public StatementAnalyzer(FencingConfig config, Dialect dialect) {
        this.config = config;
        this.dialect = dialect;
    }

    public FencingConfig config() {
        return config;
    }

    public Dialect dialect() {
        return dialect;
    }

    /** The plan of a statement text; never throws for bad SQL (refusals are plans). */
    public FencePlan plan(String sql) {
        throw new UnsupportedOperationException("analyzer under construction");
    }

    /**
     * The plan of a text given to {@code Connection.prepareCall}: whatever it says, a procedure
     * may write anything, so it follows {@link FencingConfig#procedureCalls()} unless it is a
     * write the analyzer can fence.
     */
    public FencePlan planCall(String sql) {
        throw new UnsupportedOperationException("analyzer under construction");
    }
}
