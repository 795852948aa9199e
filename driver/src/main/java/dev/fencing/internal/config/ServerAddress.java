package dev.fencing.internal.config;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The address of a store that clients reach through a list of servers, as users write it:
 * {@code scheme://[user:password@]host:port[,host:port...][/path][?name=value&...]}, with a
 * second scheme for TLS (the lock modules' {@code etcd://} and {@code zookeeper://}). A
 * {@link Syntax} says what a store's addresses may hold; {@link #parse} checks the parts every
 * such address has and leaves the meaning of options to the store. Messages name what is wrong
 * and show the address with its password replaced.
 */
public final class ServerAddress {

    /**
     * What one store's addresses look like.
     *
     * @param store the store's name in messages ({@code etcd}, {@code ZooKeeper})
     * @param address the start of a sentence about one address ({@code an etcd address})
     * @param scheme the scheme of plain connections, without {@code ://}
     * @param tlsScheme the scheme of TLS connections, without {@code ://}
     * @param credentials how credentials are written, the message for {@code user@} without a password
     * @param path what a path after the servers names ({@code chroot}), or null when the
     *        store takes none
     * @param noPath the message for a path, when the store takes none
     * @param options the option names, in the order messages list them
     */
    public record Syntax(String store, String address, String scheme, String tlsScheme, String credentials,
            String path, String noPath, List<String> options) {

        public Syntax {
            Objects.requireNonNull(store, "store");
            Objects.requireNonNull(address, "address");
            Objects.requireNonNull(scheme, "scheme");
            Objects.requireNonNull(tlsScheme, "tlsScheme");
            Objects.requireNonNull(credentials, "credentials");
            if ((path == null) == (noPath == null)) {
                throw new IllegalArgumentException("a syntax names either its path or the message for a path it does not take");
            }
            options = List.copyOf(options);
        }

        /** {@code etcd://host:port[,host:port...]}, with {@code [/chroot]} when the store takes a path. */
        String form() {
            return scheme + "://host:port[,host:port...]" + (path != null ? "[/" + path + "]" : "");
        }
    }

    private final Syntax syntax;
    private final String text;
    private final boolean tls;
    private final List<String> hosts;
    private final String path;
    private final String user;
    private final String password;
    private final Map<String, String> options;

    private ServerAddress(Syntax syntax, String text, boolean tls, List<String> hosts, String path, String user,
            String password, Map<String, String> options) {
        this.syntax = syntax;
        this.text = text;
        this.tls = tls;
        this.hosts = List.copyOf(hosts);
        this.path = path;
        this.user = user;
        this.password = password;
        this.options = Map.copyOf(options);
    }

    /**
     * Splits {@code uri} into its parts and checks each: the scheme, every {@code host:port}
     * (a port from 1 to 65535 is required), credentials with a password, the path, option
     * names; {@code %}-escapes in credentials and option values are decoded.
     *
     * @throws IllegalArgumentException naming what is wrong (never echoing a password)
     */
    public static ServerAddress parse(String uri, Syntax syntax) {
        if (uri == null || uri.isBlank()) {
            throw new IllegalArgumentException(syntax.address() + " is required: " + syntax.form());
        }
        String text = uri.trim();
        boolean tls;
        String rest;
        if (text.startsWith(syntax.scheme() + "://")) {
            tls = false;
            rest = text.substring(syntax.scheme().length() + 3);
        } else if (text.startsWith(syntax.tlsScheme() + "://")) {
            tls = true;
            rest = text.substring(syntax.tlsScheme().length() + 3);
        } else {
            int scheme = text.indexOf("://");
            throw new IllegalArgumentException(syntax.address() + " starts with " + syntax.scheme() + ":// (or "
                    + syntax.tlsScheme() + ":// for TLS), got " + (scheme > 0 ? text.substring(0, scheme) + "://..." : "no scheme"));
        }
        String query = null;
        int question = rest.indexOf('?');
        if (question >= 0) {
            query = rest.substring(question + 1);
            rest = rest.substring(0, question);
        }
        int slash = rest.indexOf('/');
        String authority = slash >= 0 ? rest.substring(0, slash) : rest;
        String pathText = slash >= 0 ? rest.substring(slash) : "";
        // Checked before the credentials: without a path, a '/' can only be part of a password.
        if (syntax.path() == null && pathText.length() > 1) {
            throw new IllegalArgumentException(syntax.noPath() + ": " + redact(text, false));
        }
        String user = null;
        String password = null;
        int at = authority.lastIndexOf('@');
        if (at >= 0) {
            String userInfo = authority.substring(0, at);
            authority = authority.substring(at + 1);
            int colon = userInfo.indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException(syntax.credentials() + " in " + redact(text, syntax.path() != null));
            }
            user = decode(userInfo.substring(0, colon));
            password = decode(userInfo.substring(colon + 1));
        }
        List<String> hosts = new ArrayList<>();
        for (String hostPort : authority.split(",", -1)) {
            hosts.add(checkHostPort(hostPort.trim(), text, syntax));
        }
        return new ServerAddress(syntax, text, tls, hosts, path(pathText, text, syntax), user, password,
                options(query, text, syntax));
    }

    /** The path without a trailing slash, or null for none; no empty, {@code .} or {@code ..} segment. */
    private static String path(String pathText, String text, Syntax syntax) {
        if (pathText.length() <= 1) {
            return null;
        }
        String path = pathText.endsWith("/") ? pathText.substring(0, pathText.length() - 1) : pathText;
        for (String segment : path.substring(1).split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                throw new IllegalArgumentException("not a valid " + syntax.store() + " " + syntax.path() + ": '" + path
                        + "' in " + redact(text, true));
            }
        }
        return path;
    }

    /** The {@code name=value} options after {@code ?}, each a name the store knows, values decoded. */
    private static Map<String, String> options(String query, String text, Syntax syntax) {
        Map<String, String> options = new LinkedHashMap<>();
        if (query == null || query.isEmpty()) {
            return options;
        }
        for (String pair : query.split("&")) {
            int equals = pair.indexOf('=');
            if (equals <= 0) {
                throw new IllegalArgumentException(syntax.store() + " address option without a value: '" + pair
                        + "' in " + redact(text, syntax.path() != null));
            }
            String name = pair.substring(0, equals);
            if (!syntax.options().contains(name)) {
                throw new IllegalArgumentException("unknown " + syntax.store() + " address option '" + name + "' in "
                        + redact(text, syntax.path() != null) + "; allowed: " + String.join(", ", syntax.options()));
            }
            options.put(name, decode(pair.substring(equals + 1)));
        }
        return options;
    }

    private static String checkHostPort(String hostPort, String text, Syntax syntax) {
        if (hostPort.isEmpty()) {
            throw new IllegalArgumentException(syntax.address() + " lists host:port pairs separated by commas; one is empty in "
                    + redact(text, syntax.path() != null));
        }
        URI parsed;
        try {
            parsed = URI.create("x://" + hostPort);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a host:port in the " + syntax.store() + " address: '" + hostPort + "'");
        }
        if (parsed.getHost() == null || parsed.getPort() < 1 || parsed.getPort() > 65535 || !parsed.getRawPath().isEmpty()) {
            throw new IllegalArgumentException("not a host:port in the " + syntax.store() + " address (the port is required): '"
                    + hostPort + "'");
        }
        return hostPort;
    }

    private static String decode(String text) {
        return URLDecoder.decode(text, StandardCharsets.UTF_8);
    }

    /**
     * {@code text} with the password after {@code user:} and the values of options named
     * {@code ...Password} replaced by {@code ***}.
     *
     * @param takesPath whether a {@code /} may start a path: then an {@code @} after it belongs
     *        to the path; otherwise a {@code /} can only be part of the password
     */
    static String redact(String text, boolean takesPath) {
        int scheme = text.indexOf("://");
        int at = text.lastIndexOf('@');
        int slash = takesPath ? text.indexOf('/', scheme + 3) : -1;
        if (scheme >= 0 && at > scheme && (slash < 0 || at < slash)) {
            int colon = text.indexOf(':', scheme + 3);
            String user = colon > 0 && colon < at ? text.substring(scheme + 3, colon) : text.substring(scheme + 3, at);
            text = text.substring(0, scheme + 3) + user + ":***" + text.substring(at);
        }
        return text.replaceAll("(?i)(Password=)[^&]*", "$1***");
    }

    /** The address as written, its password replaced: for the store's own messages about it. */
    public String redacted() {
        return redact(text, syntax.path() != null);
    }

    public boolean tls() {
        return tls;
    }

    /** The {@code host:port} pairs, in the order written. */
    public List<String> hosts() {
        return hosts;
    }

    /** The path with its leading slash and without a trailing one, or null. */
    public String path() {
        return path;
    }

    /** The decoded user, or null. */
    public String user() {
        return user;
    }

    /** The decoded password, or null. */
    public String password() {
        return password;
    }

    /** The decoded value of option {@code name}, or null. */
    public String option(String name) {
        return options.get(name);
    }

    public boolean hasOption(String name) {
        return options.containsKey(name);
    }

    /**
     * @throws IllegalArgumentException when option {@code name} names a file this process cannot read
     */
    public void requireReadable(String name) {
        String file = options.get(name);
        if (file != null && !Files.isReadable(Path.of(file))) {
            throw new IllegalArgumentException(syntax.store() + " address option " + name + ": cannot read " + file);
        }
    }

    /** The scheme, user (no password), servers and path: the address for messages. */
    @Override
    public String toString() {
        return (tls ? syntax.tlsScheme() : syntax.scheme()) + "://" + (user != null ? user + "@" : "") + String.join(",", hosts)
                + (path != null ? path : "");
    }
}
