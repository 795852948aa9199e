package dev.fencing.lock.zookeeper;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
    private static final Set<String> OPTIONS = Set.of("sessionTimeout", "truststore", "truststorePassword", "keystore",
            "keystorePassword");

    private final boolean tls;
    private final List<String> hosts;
    private final String chroot;
    private final String user;
    private final String password;
    private final Map<String, String> options;

    private ZooKeeperAddress(boolean tls, List<String> hosts, String chroot, String user, String password,
            Map<String, String> options) {
        this.tls = tls;
        this.hosts = List.copyOf(hosts);
        this.chroot = chroot;
        this.user = user;
        this.password = password;
        this.options = Map.copyOf(options);
    }

    /**
     * @throws IllegalArgumentException naming what is wrong (never echoing a password)
     */
    static ZooKeeperAddress parse(String uri) {
        if (uri == null || uri.isBlank()) {
            throw new IllegalArgumentException("a ZooKeeper address is required: zookeeper://host:port[,host:port...][/chroot]");
        }
        String text = uri.trim();
        boolean tls;
        String rest;
        if (text.startsWith("zookeeper://")) {
            tls = false;
            rest = text.substring("zookeeper://".length());
        } else if (text.startsWith("zookeepers://")) {
            tls = true;
            rest = text.substring("zookeepers://".length());
        } else {
            int scheme = text.indexOf("://");
            throw new IllegalArgumentException("a ZooKeeper address starts with zookeeper:// (or zookeepers:// for TLS), got "
                    + (scheme > 0 ? text.substring(0, scheme) + "://..." : "no scheme"));
        }
        String query = null;
        int question = rest.indexOf('?');
        if (question >= 0) {
            query = rest.substring(question + 1);
            rest = rest.substring(0, question);
        }
        String user = null;
        String password = null;
        int slash = rest.indexOf('/');
        String authority = slash >= 0 ? rest.substring(0, slash) : rest;
        String path = slash >= 0 ? rest.substring(slash) : "";
        int at = authority.lastIndexOf('@');
        if (at >= 0) {
            String userInfo = authority.substring(0, at);
            authority = authority.substring(at + 1);
            int colon = userInfo.indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("ZooKeeper digest credentials are written user:password@, in " + redact(text));
            }
            user = decode(userInfo.substring(0, colon));
            password = decode(userInfo.substring(colon + 1));
        }
        List<String> hosts = new ArrayList<>();
        for (String hostPort : authority.split(",", -1)) {
            hosts.add(checkHostPort(hostPort.trim(), text));
        }
        String chroot = null;
        if (path.length() > 1) {
            chroot = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
            for (String segment : chroot.substring(1).split("/", -1)) {
                if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                    throw new IllegalArgumentException("not a valid ZooKeeper chroot: '" + chroot + "' in " + redact(text));
                }
            }
        }
        Map<String, String> options = new LinkedHashMap<>();
        if (query != null && !query.isEmpty()) {
            for (String pair : query.split("&")) {
                int equals = pair.indexOf('=');
                if (equals <= 0) {
                    throw new IllegalArgumentException("ZooKeeper address option without a value: '" + pair.split("=")[0]
                            + "' in " + redact(text));
                }
                String name = pair.substring(0, equals);
                if (!OPTIONS.contains(name)) {
                    throw new IllegalArgumentException("unknown ZooKeeper address option '" + name + "' in " + redact(text)
                            + "; allowed: sessionTimeout, truststore, truststorePassword, keystore, keystorePassword");
                }
                options.put(name, decode(pair.substring(equals + 1)));
            }
        }
        if (!tls && options.keySet().stream().anyMatch(name -> name.startsWith("trust") || name.startsWith("key"))) {
            throw new IllegalArgumentException("the truststore and keystore options need TLS: write zookeepers:// in "
                    + redact(text));
        }
        for (String file : List.of("truststore", "keystore")) {
            if (options.containsKey(file) && !Files.isReadable(Path.of(options.get(file)))) {
                throw new IllegalArgumentException("ZooKeeper address option " + file + ": cannot read " + options.get(file));
            }
        }
        ZooKeeperAddress address = new ZooKeeperAddress(tls, hosts, chroot, user, password, options);
        address.sessionTimeout(); // checks the value
        return address;
    }

    private static String checkHostPort(String hostPort, String text) {
        if (hostPort.isEmpty()) {
            throw new IllegalArgumentException("a ZooKeeper address lists host:port pairs separated by commas; one is empty in "
                    + redact(text));
        }
        URI parsed;
        try {
            parsed = URI.create("x://" + hostPort);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a host:port in the ZooKeeper address: '" + hostPort + "'");
        }
        if (parsed.getHost() == null || parsed.getPort() < 1 || parsed.getPort() > 65535) {
            throw new IllegalArgumentException("not a host:port in the ZooKeeper address (the port is required): '"
                    + hostPort + "'");
        }
        return hostPort;
    }

    /** {@code sessionTimeout}: a number of milliseconds, or a duration such as {@code 15s}, {@code 500ms}, {@code PT15S}. */
    Duration sessionTimeout() {
        String value = options.get("sessionTimeout");
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

    private static String decode(String text) {
        return URLDecoder.decode(text, StandardCharsets.UTF_8);
    }

    static String redact(String text) {
        int scheme = text.indexOf("://");
        int at = text.lastIndexOf('@');
        int slash = text.indexOf('/', scheme + 3);
        if (scheme >= 0 && at > scheme && (slash < 0 || at < slash)) {
            int colon = text.indexOf(':', scheme + 3);
            String user = colon > 0 && colon < at ? text.substring(scheme + 3, colon) : text.substring(scheme + 3, at);
            text = text.substring(0, scheme + 3) + user + ":***" + text.substring(at);
        }
        return text.replaceAll("(?i)(Password=)[^&]*", "$1***");
    }

    boolean tls() {
        return tls;
    }

    /** {@code host:port,host:port}, without the chroot. */
    String connectString() {
        return String.join(",", hosts);
    }

    /** The chroot without its leading slash (Curator's namespace), or null. */
    String namespace() {
        return chroot == null ? null : chroot.substring(1);
    }

    String user() {
        return user;
    }

    String password() {
        return password;
    }

    String option(String name) {
        return options.get(name);
    }

    @Override
    public String toString() {
        return (tls ? "zookeepers://" : "zookeeper://") + (user != null ? user + "@" : "") + connectString()
                + (chroot != null ? chroot : "");
    }
}
