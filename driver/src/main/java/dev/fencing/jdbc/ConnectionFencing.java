package dev.fencing.jdbc;

import dev.fencing.FencingConfig;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Fences a connection that something else opened. <strong>For the fencing agent; not for
 * applications</strong>: applications use {@link FencingDataSource} or the {@code jdbc:fencing:}
 * URL. This class may change or disappear in any release.
 *
 * <p>Connections fenced here get the same wrappers, and so the same enforcement, as those of
 * {@link FencingDataSource}. Connections fenced with equal configurations share one analyzer (and
 * plan cache) per dialect, as with {@link FencingDriver}; a new configuration (the agent adds
 * tables at run time) gets new analyzers, used by the connections fenced after it.
 */
public final class ConnectionFencing {

    private static final AnalyzerCache ANALYZERS = new AnalyzerCache();
    /**
     * Epoch claims per database, as a {@link FencingDataSource} shares them among its connections:
     * keyed by the JDBC URL (one URL, one database), never logged. Bounded; a dropped entry only
     * costs its locks' next claim a statement.
     */
    private static final Map<String, EpochClaims> CLAIMS = new LinkedHashMap<>(64, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, EpochClaims> eldest) {
            return size() > 64;
        }
    };

    private ConnectionFencing() {
    }

    /**
     * Wraps {@code raw} so that its writes to the fenced tables of {@code config} carry the
     * fencing check. When that fails, {@code raw} is closed and the error thrown: it is never
     * handed back unfenced.
     *
     * @throws SQLException when the connection cannot be fenced (its metadata cannot be read)
     */
    public static Connection fence(Connection raw, FencingConfig config) throws SQLException {
        Objects.requireNonNull(raw, "raw");
        Objects.requireNonNull(config, "config");
        EpochClaims claims = config.hasEpochTables() ? claimsOf(raw) : null;
        return FencedConnection.fence(raw, fenced -> ANALYZERS.get(config, FencedConnection.dialectOf(fenced)), claims);
    }

    /** The claims shared by the connections to {@code raw}'s database; null (its own) when its URL is unknown. */
    private static EpochClaims claimsOf(Connection raw) {
        String url;
        try {
            url = raw.getMetaData().getURL();
        } catch (SQLException | RuntimeException e) {
            return null;
        }
        if (url == null) {
            return null;
        }
        synchronized (CLAIMS) {
            return CLAIMS.computeIfAbsent(url, key -> new EpochClaims());
        }
    }

    /**
     * True when {@code connection} is a fenced connection or unwraps to one (a pool's proxy over
     * a fenced connection). A connection that cannot answer counts as not fenced.
     */
    public static boolean isFenced(Connection connection) {
        return fencedWith(connection) != null;
    }

    /**
     * The configuration of the fenced connection that {@code connection} is, or that its
     * {@code unwrap(..)} hands back (a pool's proxy over one); null when it is neither. Only an
     * object that is a fenced connection counts: a wrapper that merely answers
     * {@code isWrapperFor} with true, or unwraps to something else, is not fenced.
     */
    public static FencingConfig fencedWith(Connection connection) {
        if (connection instanceof FencedConnection fenced) {
            return fenced.config();
        }
        if (connection == null) {
            return null;
        }
        try {
            if (!connection.isWrapperFor(FencedConnection.class)) {
                return null; // the common case, answered without the exception a failed unwrap costs
            }
            Object inner = connection.unwrap(FencedConnection.class);
            return inner instanceof FencedConnection fenced ? fenced.config() : null;
        } catch (SQLException | RuntimeException e) {
            return null;
        }
    }
}
