package dev.fencing.internal.jdbc;


import dev.fencing.FencingConfig;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;

/**
 * Fences a connection that something else opened. <strong>For the fencing agent; not for
 * applications</strong>: applications use {@code FencingDataSource} or the {@code jdbc:fencing:}
 * URL. This class may change or disappear in any release.
 *
 * <p>Connections fenced here get the same wrappers, and so the same enforcement, as those of
 * {@code FencingDataSource}: they go through the same {@link ConnectionContext} as the
 * {@code jdbc:fencing:} driver's, one per configuration (analyzers per dialect, epoch claims per
 * database URL, the process-wide listeners); a new configuration (the agent adds tables at run
 * time) gets a new context, used by the connections fenced after it.
 */
public final class ConnectionFencing {

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
        return ConnectionContext.shared(config).fence(raw);
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
        FencedConnection fenced = FencedConnection.fencedBehind(connection);
        return fenced == null ? null : fenced.config();
    }
}
