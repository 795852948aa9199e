package dev.fencing.spring;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;

/**
 * Spring's Redis settings ({@code spring.data.redis.*}, the keys Spring Data Redis reads) turned
 * into the address {@link dev.fencing.lock.RedisFencedLocks} takes: standalone
 * ({@code redis://}, or {@code rediss://} with {@code ssl.enabled}), Sentinel
 * ({@code redis-sentinel://}) or Cluster ({@code redis-cluster://}, {@code rediss-cluster://}).
 * Precedence follows Spring Data Redis: sentinel, then cluster, then {@code url}, then host and port.
 *
 * <p>Settings an address cannot carry are refused rather than dropped: an SSL bundle, and
 * Sentinel credentials that differ from the data nodes'.
 */
record RedisLocation(String uri, Optional<Duration> timeout) {

    private static final String PREFIX = "spring.data.redis.";

    static RedisLocation bind(Binder binder) {
        Optional<Duration> timeout = binder.bind(PREFIX + "timeout", Duration.class).map(Optional::of).orElse(Optional.empty());
        String username = string(binder, "username");
        String password = string(binder, "password");
        boolean ssl = binder.bind(PREFIX + "ssl.enabled", Boolean.class).orElse(false);
        String bundle = string(binder, "ssl.bundle");
        if (bundle != null) {
            throw new FencingConfigurationException(PREFIX + "ssl.bundle (" + bundle + ") cannot be applied to the"
                    + " fenced locks' Redis client", "Use " + PREFIX + "ssl.enabled=true with the JVM's trust store, or"
                    + " define a FencedLocks bean of your own");
        }
        int database = binder.bind(PREFIX + "database", Integer.class).orElse(0);
        String master = string(binder, "sentinel.master");
        List<String> sentinels = binder.bind(PREFIX + "sentinel.nodes", Bindable.listOf(String.class)).orElse(List.of());
        List<String> clusterNodes = binder.bind(PREFIX + "cluster.nodes", Bindable.listOf(String.class)).orElse(List.of());
        String url = string(binder, "url");

        if (master != null) {
            if (sentinels.isEmpty()) {
                throw new FencingConfigurationException(PREFIX + "sentinel.master is set but " + PREFIX
                        + "sentinel.nodes is empty", "List the Sentinels in " + PREFIX + "sentinel.nodes as host:port");
            }
            String sentinelUser = string(binder, "sentinel.username");
            String sentinelPassword = string(binder, "sentinel.password");
            if (sentinelUser != null && !sentinelUser.equals(username)
                    || sentinelPassword != null && !sentinelPassword.equals(password)) {
                throw new FencingConfigurationException(PREFIX + "sentinel.username/password differ from " + PREFIX
                        + "username/password, which a Redis address cannot express", "Give Sentinels and data nodes"
                        + " the same credentials, or define a FencedLocks bean of your own");
            }
            if (ssl) {
                // Lettuce has no TLS form of its Sentinel scheme
                throw new FencingConfigurationException(PREFIX + "ssl.enabled with Sentinel cannot be expressed as a Redis "
                        + "address for the fenced locks", "Define a FencedLocks bean of your own");
            }
            return new RedisLocation("redis-sentinel://" + userInfo(username, password)
                    + String.join(",", trimmed(sentinels)) + (database != 0 ? "/" + database : "") + "#" + master,
                    timeout);
        }
        if (!clusterNodes.isEmpty()) {
            return new RedisLocation((ssl ? "rediss-cluster://" : "redis-cluster://") + userInfo(username, password)
                    + String.join(",", trimmed(clusterNodes)), timeout);
        }
        if (url != null) {
            String lower = url.toLowerCase(Locale.ROOT);
            if (!lower.startsWith("redis://") && !lower.startsWith("rediss://")) {
                throw new FencingConfigurationException(PREFIX + "url is not a Redis address",
                        "Write it as redis://host:port or rediss://host:port");
            }
            return new RedisLocation(ssl && lower.startsWith("redis://") ? "rediss://" + url.substring("redis://".length())
                    : url, timeout);
        }
        String host = Optional.ofNullable(string(binder, "host")).orElse("localhost");
        int port = binder.bind(PREFIX + "port", Integer.class).orElse(6379);
        String hostPart = host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
        return new RedisLocation((ssl ? "rediss://" : "redis://") + userInfo(username, password) + hostPart + ":" + port
                + (database != 0 ? "/" + database : ""), timeout);
    }

    /** The address without credentials, for messages and health details. */
    String redacted() {
        return uri.replaceAll("//[^/?#@]*@", "//***@");
    }

    private static String userInfo(String username, String password) {
        if (password == null) {
            if (username != null) {
                // "user@" would be read as a password
                throw new FencingConfigurationException(PREFIX + "username is set without " + PREFIX
                        + "password", "Set both, or neither");
            }
            return "";
        }
        return (username == null ? "" : encode(username) + ":") + encode(password) + "@";
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static List<String> trimmed(List<String> nodes) {
        return nodes.stream().map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    private static String string(Binder binder, String key) {
        String value = binder.bind(PREFIX + key, String.class).map(String::trim).orElse("");
        return value.isEmpty() ? null : value;
    }
}
