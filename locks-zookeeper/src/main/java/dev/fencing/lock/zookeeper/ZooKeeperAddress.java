package dev.fencing.lock.zookeeper;

import dev.fencing.internal.config.ServerAddress;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.stream.Stream;

/**
 * A ZooKeeper address as users write it:
 * {@code zookeeper://[user:password@]host:port[,host:port...][/chroot][?option=value&...]}, or
 * {@code zookeepers://...} for TLS (ZooKeeper's Netty client). Credentials are ZooKeeper
 * {@code digest} authentication. Options: {@code sessionTimeout} (default {@code 15s}),
 * {@code truststore}, {@code truststorePassword}, {@code keystore}, {@code keystorePassword}
 * (TLS; JKS or PKCS12 files). Messages show {@link #toString()}: no passwords.
 */
final class ZooKeeperAddress {

    static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(15);
    private static final ServerAddress.Syntax SYNTAX = new ServerAddress.Syntax("ZooKeeper", "a ZooKeeper address",
            "zookeeper", "zookeepers", "ZooKeeper digest credentials are written user:password@,", "chroot", null,
            List.of("sessionTimeout", "truststore", "truststorePassword", "keystore", "keystorePassword"));

    private final ServerAddress address;

    private ZooKeeperAddress(ServerAddress address) {
        this.address = address;
    }

    /**
     * @throws IllegalArgumentException naming what is wrong (never echoing a password)
     */
    static ZooKeeperAddress parse(String uri) {
        ServerAddress address = ServerAddress.parse(uri, SYNTAX);
        if (!address.tls() && Stream.of("truststore", "truststorePassword", "keystore", "keystorePassword")
                .anyMatch(address::hasOption)) {
            throw new IllegalArgumentException("the truststore and keystore options need TLS: write zookeepers:// in "
                    + address.redacted());
        }
        for (String file : List.of("truststore", "keystore")) {
            address.requireReadable(file);
        }
        ZooKeeperAddress parsed = new ZooKeeperAddress(address);
        parsed.sessionTimeout(); // checks the value
        return parsed;
    }

    /** {@code sessionTimeout}: a number of milliseconds, or a duration such as {@code 15s}, {@code 500ms}, {@code PT15S}. */
    Duration sessionTimeout() {
        String value = address.option("sessionTimeout");
        if (value == null) {
            return DEFAULT_SESSION_TIMEOUT;
        }
        Duration parsed;
        try {
            if (value.matches("\\d+")) {
                parsed = Duration.ofMillis(Long.parseLong(value));
            } else if (value.matches("\\d+ms")) {
                parsed = Duration.ofMillis(Long.parseLong(value.substring(0, value.length() - 2)));
            } else if (value.matches("\\d+s")) {
                parsed = Duration.ofSeconds(Long.parseLong(value.substring(0, value.length() - 1)));
            } else {
                parsed = Duration.parse(value);
            }
        } catch (NumberFormatException | DateTimeParseException e) {
            parsed = null;
        }
        if (parsed == null || parsed.isNegative() || parsed.isZero() || parsed.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("ZooKeeper address option sessionTimeout must be a positive duration "
                    + "(milliseconds, 500ms, 15s or PT15S), got '" + value + "'");
        }
        return parsed;
    }

    boolean tls() {
        return address.tls();
    }

    /** {@code host:port,host:port}, without the chroot. */
    String connectString() {
        return String.join(",", address.hosts());
    }

    /** The chroot without its leading slash (Curator's namespace), or null. */
    String namespace() {
        return address.path() == null ? null : address.path().substring(1);
    }

    String user() {
        return address.user();
    }

    String password() {
        return address.password();
    }

    String option(String name) {
        return address.option(name);
    }

    @Override
    public String toString() {
        return address.toString();
    }
}
