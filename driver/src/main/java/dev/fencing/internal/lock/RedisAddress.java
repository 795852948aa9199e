package dev.fencing.internal.lock;

import io.lettuce.core.RedisURI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * A parsed Redis address: the Lettuce URIs to connect to, whether they are cluster seed
 * nodes, and a description for messages that never contains credentials.
 *
 * <p>Standalone ({@code redis://}, {@code rediss://}, {@code redis-socket://}) and Sentinel
 * ({@code redis-sentinel://}) URIs are Lettuce's own syntax. Lettuce has no URI scheme for a
 * cluster, so this adds {@code redis-cluster://} (and {@code rediss-cluster://} for TLS):
 * the same syntax as {@code redis://} with a comma-separated list of seed nodes, for example
 * {@code redis-cluster://user:secret@10.0.0.1:7000,10.0.0.2:7000?timeout=5s}. The user
 * information, database and query apply to every seed.
 */
public final class RedisAddress {

    private static final String CLUSTER = "redis-cluster://";
    private static final String CLUSTER_TLS = "rediss-cluster://";

    private final List<RedisURI> uris;
    private final boolean cluster;
    private final String description;

    private RedisAddress(List<RedisURI> uris, boolean cluster, String description) {
        this.uris = uris;
        this.cluster = cluster;
        this.description = description;
    }

    public static RedisAddress parse(String text) {
        Objects.requireNonNull(text, "redisUri");
        String lower = text.trim().toLowerCase(Locale.ROOT);
        try {
            if (lower.startsWith(CLUSTER) || lower.startsWith(CLUSTER_TLS)) {
                return parseCluster(text.trim(), lower.startsWith(CLUSTER_TLS));
            }
            RedisURI uri = RedisURI.create(text.trim());
            return new RedisAddress(List.of(uri), false, describe(uri));
        } catch (IllegalArgumentException e) {
            // Lettuce's message may quote the URI with its password: neither it nor the
            // exception is passed on.
            throw new IllegalArgumentException("not a valid Redis URI: " + withoutCredentials(text)
                    + " (expected redis://, rediss://, redis-socket://, redis-sentinel:// or redis-cluster://)");
        }
    }

    private static RedisAddress parseCluster(String text, boolean tls) {
        String rest = text.substring(tls ? CLUSTER_TLS.length() : CLUSTER.length());
        int end = rest.length();
        for (int i = 0; i < rest.length(); i++) {
            if (rest.charAt(i) == '/' || rest.charAt(i) == '?') {
                end = i;
                break;
            }
        }
        String authority = rest.substring(0, end);
        String tail = rest.substring(end);
        int at = authority.lastIndexOf('@');
        String userInfo = authority.substring(0, at + 1);
        String scheme = tls ? "rediss://" : "redis://";
        List<RedisURI> seeds = new ArrayList<>();
        for (String host : authority.substring(at + 1).split(",")) {
            if (host.isBlank()) {
                throw new IllegalArgumentException("empty seed node");
            }
            seeds.add(RedisURI.create(scheme + userInfo + host.trim() + tail));
        }
        String description = (tls ? CLUSTER_TLS : CLUSTER)
                + seeds.stream().map(RedisAddress::hostAndPort).collect(Collectors.joining(","));
        return new RedisAddress(List.copyOf(seeds), true, description);
    }

    /** The URIs to connect to: one for standalone and Sentinel, the seed nodes for a cluster. */
    public List<RedisURI> uris() {
        return uris;
    }

    public boolean isCluster() {
        return cluster;
    }

    @Override
    public String toString() {
        return description;
    }

    private static String describe(RedisURI uri) {
        if (uri.getSentinelMasterId() != null && !uri.getSentinels().isEmpty()) {
            return "redis-sentinel://"
                    + uri.getSentinels().stream().map(RedisAddress::hostAndPort).collect(Collectors.joining(","))
                    + "#" + uri.getSentinelMasterId();
        }
        if (uri.getSocket() != null) {
            return "redis-socket://" + uri.getSocket();
        }
        return (uri.isSsl() ? "rediss://" : "redis://") + hostAndPort(uri)
                + (uri.getDatabase() != 0 ? "/" + uri.getDatabase() : "");
    }

    private static String hostAndPort(RedisURI uri) {
        String host = uri.getHost();
        return (host != null && host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + uri.getPort();
    }

    /** The text with any user information between "//" and "@" replaced. */
    public static String withoutCredentials(String text) {
        return text.replaceAll("//[^/?#]*@", "//***@");
    }
}
