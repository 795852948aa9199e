package dev.fencing.internal.jdbc;

import dev.fencing.internal.guard.SendHook;
import dev.fencing.internal.epoch.EpochClaims;
import dev.fencing.internal.guard.GuardHook;
import dev.fencing.internal.guard.CodeInTexts;

import dev.fencing.FencingConfig;
import dev.fencing.internal.sql.AnalyzerOptions;
import dev.fencing.internal.sql.Dialect;
import dev.fencing.internal.sql.StatementAnalyzer;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What the fenced connections of one entry path share, and the one way a connection gets fenced
 * ({@link #fence(Connection)}): the configuration, the analyzers (one per dialect, each with its
 * plan cache), the epoch claims, the event listeners and the {@link SendHook} factory.
 *
 * <p>Who has which context:
 * <ul>
 *   <li>each {@code FencingDataSource} has its own, with listeners of its own;</li>
 *   <li>the {@code jdbc:fencing:} driver and the agent ({@link ConnectionFencing}) share one per
 *       configuration ({@link #shared(FencingConfig)}: equal configurations, one context), with the
 *       process-wide listeners.</li>
 * </ul>
 *
 * <p><b>Epoch claims, the sharing rule.</b> A claim remembered as committed is a fact about one
 * database: its guard row never goes below that fence again. So claims are shared by the
 * connections of one context that report the same database URL
 * ({@link java.sql.DatabaseMetaData#getURL()}, never logged), and by nothing else; a connection
 * whose URL cannot be read keeps claims of its own. Two URLs of one database only cost an extra
 * claim; one context never carries a claim from one database to another, even over a routing data
 * source.
 */
public final class ConnectionContext {

    private static final int SHARED_CONTEXTS = 16;
    private static final int DATABASES = 64;

    /** The contexts of the URL driver and the agent, by configuration; least recently used dropped. */
    private static final Map<FencingConfig, ConnectionContext> SHARED = new LinkedHashMap<>(SHARED_CONTEXTS, 0.75f,
            true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<FencingConfig, ConnectionContext> eldest) {
            return size() > SHARED_CONTEXTS;
        }
    };

    private final FencingConfig config;
    private final AnalyzerCache analyzers;
    private final Listeners listeners;
    private final SendHook.Factory sendHooks;
    /** Epoch claims per database URL. Bounded; a dropped entry only costs its locks' next claim a statement. */
    private final Map<String, EpochClaims> claims = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, EpochClaims> eldest) {
            return size() > DATABASES;
        }
    };

    public ConnectionContext(FencingConfig config, Listeners listeners) {
        this(config, listeners, AnalyzerOptions.CHECKED);
    }

    /**
     * A context whose analyzers are made with {@code options}: only tests pass anything but
     * {@link AnalyzerOptions#CHECKED} (the guard's proof tests, with the rewrite off).
     */
    public ConnectionContext(FencingConfig config, Listeners listeners, AnalyzerOptions options) {
        this.config = Objects.requireNonNull(config, "config");
        this.analyzers = new AnalyzerCache(config, Objects.requireNonNull(options, "options"));
        this.listeners = listeners;
        this.sendHooks = sendHookFactory(config);
    }

    /** The context the URL driver and the agent use for {@code config}. */
    public static ConnectionContext shared(FencingConfig config) {
        synchronized (SHARED) {
            return SHARED.computeIfAbsent(config, key -> new ConnectionContext(key, Listeners.PROCESS_WIDE));
        }
    }

    /**
     * <b>Extension point</b>: the {@link SendHook} factory for {@code config}, or null for none. The
     * database guard plugs in here (its session fence, when {@code fencing.database-guard=required}).
     */
    static SendHook.Factory sendHookFactory(FencingConfig config) {
        if (!config.guardRequired()) {
            return null;
        }
        CodeInTexts codeInTexts = new CodeInTexts();
        return (database, dialect, transaction) -> GuardHook.of(database, dialect, transaction, config, codeInTexts);
    }

    FencingConfig config() {
        return config;
    }

    /** The fenced tables whose fence column passed its check on a connection of this context. */
    public Set<String> fenceColumnsChecked() {
        return analyzers.fenceColumnsChecked();
    }

    public Listeners listeners() {
        return listeners;
    }

    /**
     * Fences a connection just opened. When that fails, the connection is closed and the error
     * thrown: it is never handed out unfenced.
     */
    public FencedConnection fence(Connection raw) throws SQLException {
        Objects.requireNonNull(raw, "raw");
        try {
            Dialect dialect = dialectOf(raw);
            StatementAnalyzer analyzer = analyzers.get(dialect, urlOf(raw));
            EpochClaims epochClaims = config.hasEpochTables() ? claimsFor(raw) : null;
            return new FencedConnection(raw, analyzer, epochClaims, sendHooks, listeners);
        } catch (SQLException | RuntimeException | Error e) {
            try {
                raw.close();
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** The database's URL as its driver reports it, or null when it cannot say. */
    private static String urlOf(Connection raw) {
        try {
            return raw.getMetaData().getURL();
        } catch (SQLException | RuntimeException e) {
            return null;
        }
    }

    /** The claims shared by this context's connections to {@code raw}'s database; its own when the URL is unknown. */
    public EpochClaims claimsFor(Connection raw) {
        String url;
        try {
            url = raw.getMetaData().getURL();
        } catch (SQLException | RuntimeException e) {
            return new EpochClaims();
        }
        if (url == null) {
            return new EpochClaims();
        }
        synchronized (claims) {
            return claims.computeIfAbsent(url, key -> new EpochClaims());
        }
    }

    /** The dialect of the database behind {@code connection}, as its metadata names it. */
    public static Dialect dialectOf(Connection connection) throws SQLException {
        return Dialect.fromProductName(connection.getMetaData().getDatabaseProductName());
    }
}
