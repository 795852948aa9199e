package dev.fencing.lock.etcd;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An etcd address as users write it:
 * {@code etcd://[user:password@]host:port[,host:port...][?option=value&...]}, or
 * {@code etcds://...} for TLS. Options: {@code ca} (a PEM file of trusted certificates; without
 * it, the JVM's trust store), {@code cert} and {@code key} (a PEM client certificate and its
 * PKCS#8 key, for etcd's {@code --client-cert-auth}), {@code authority} (the name the server
 * certificate must carry, when it differs from the host), {@code prefix} (the prefix of lock
 * keys, default {@code fencing/locks/}). Messages show {@link #toString()}: no password.
 */
final class EtcdAddress {

    static final String DEFAULT_PREFIX = "fencing/locks/";
    private static final Set<String> OPTIONS = Set.of("ca", "cert", "key", "authority", "prefix");

    private final boolean tls;
    private final List<String> endpoints;
    private final String user;
    private final String password;
    private final Map<String, String> options;

    private EtcdAddress(boolean tls, List<String> endpoints, String user, String password, Map<String, String> options) {
        this.tls = tls;
        this.endpoints = List.copyOf(endpoints);
        this.user = user;
        this.password = password;
        this.options = Map.copyOf(options);
    }

    /**
     * @throws IllegalArgumentException naming what is wrong (never echoing a password)
     */
    static EtcdAddress parse(String uri) {
        if (uri == null || uri.isBlank()) {
            throw new IllegalArgumentException("an etcd address is required: etcd://host:port[,host:port...]");
        }
        String text = uri.trim();
        boolean tls;
        String rest;
        if (text.startsWith("etcd://")) {
            tls = false;
            rest = text.substring("etcd://".length());
        } else if (text.startsWith("etcds://")) {
            tls = true;
            rest = text.substring("etcds://".length());
        } else {
            int scheme = text.indexOf("://");
            throw new IllegalArgumentException("an etcd address starts with etcd:// (or etcds:// for TLS), got "
                    + (scheme > 0 ? text.substring(0, scheme) + "://..." : "no scheme"));
        }
        String query = null;
        int question = rest.indexOf('?');
        if (question >= 0) {
            query = rest.substring(question + 1);
            rest = rest.substring(0, question);
        }
        if (rest.endsWith("/")) {
            rest = rest.substring(0, rest.length() - 1);
        }
        if (rest.contains("/")) {
            throw new IllegalArgumentException("an etcd address has no path (set the key prefix with ?prefix=...): "
                    + redact(text));
        }
        String user = null;
        String password = null;
        int at = rest.lastIndexOf('@');
        if (at >= 0) {
            String userInfo = rest.substring(0, at);
            rest = rest.substring(at + 1);
            int colon = userInfo.indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("etcd credentials are written user:password@, got no password for the user in "
                        + redact(text));
            }
            user = decode(userInfo.substring(0, colon));
            password = decode(userInfo.substring(colon + 1));
        }
        List<String> endpoints = new ArrayList<>();
        for (String hostPort : rest.split(",", -1)) {
            endpoints.add(checkHostPort(hostPort.trim(), text));
        }
        Map<String, String> options = new LinkedHashMap<>();
        if (query != null && !query.isEmpty()) {
            for (String pair : query.split("&")) {
                int equals = pair.indexOf('=');
                if (equals <= 0) {
                    throw new IllegalArgumentException("etcd address option without a value: '" + pair + "' in " + redact(text));
                }
                String name = pair.substring(0, equals);
                if (!OPTIONS.contains(name)) {
                    throw new IllegalArgumentException("unknown etcd address option '" + name + "' in " + redact(text)
                            + "; allowed: ca, cert, key, authority, prefix");
                }
                options.put(name, decode(pair.substring(equals + 1)));
            }
        }
        if (!tls && (options.containsKey("ca") || options.containsKey("cert") || options.containsKey("key"))) {
            throw new IllegalArgumentException("the options ca, cert and key need TLS: write etcds:// instead of etcd:// in "
                    + redact(text));
        }
        if (options.containsKey("cert") != options.containsKey("key")) {
            throw new IllegalArgumentException("a client certificate needs both cert and key options, in " + redact(text));
        }
        for (String file : List.of("ca", "cert", "key")) {
            if (options.containsKey(file) && !Files.isReadable(Path.of(options.get(file)))) {
                throw new IllegalArgumentException("etcd address option " + file + ": cannot read " + options.get(file));
            }
        }
        if (options.containsKey("prefix") && options.get("prefix").isEmpty()) {
            throw new IllegalArgumentException("etcd address option prefix must not be empty (lock keys would mix with other keys)");
        }
        return new EtcdAddress(tls, endpoints, user, password, options);
    }

    private static String checkHostPort(String hostPort, String text) {
        if (hostPort.isEmpty()) {
            throw new IllegalArgumentException("an etcd address lists host:port pairs separated by commas; one is empty in "
                    + redact(text));
        }
        URI parsed;
        try {
            parsed = URI.create("x://" + hostPort);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a host:port in the etcd address: '" + hostPort + "'");
        }
        if (parsed.getHost() == null || parsed.getPort() < 1 || parsed.getPort() > 65535 || parsed.getRawPath().length() > 0) {
            throw new IllegalArgumentException("not a host:port in the etcd address (the port is required): '" + hostPort + "'");
        }
        return hostPort;
    }

    private static String decode(String text) {
        return URLDecoder.decode(text, StandardCharsets.UTF_8);
    }

    /** The address with the password replaced, for messages. */
    static String redact(String text) {
        int scheme = text.indexOf("://");
        int at = text.lastIndexOf('@');
        if (scheme >= 0 && at > scheme) {
            int colon = text.indexOf(':', scheme + 3);
            String user = colon > 0 && colon < at ? text.substring(scheme + 3, colon) : text.substring(scheme + 3, at);
            return text.substring(0, scheme + 3) + user + ":***" + text.substring(at);
        }
        return text;
    }

    boolean tls() {
        return tls;
    }

    /** {@code http://host:port} or {@code https://host:port}, as jetcd wants them. */
    List<URI> endpointUris() {
        List<URI> uris = new ArrayList<>();
        for (String endpoint : endpoints) {
            uris.add(URI.create((tls ? "https://" : "http://") + endpoint));
        }
        return uris;
    }

    List<String> endpoints() {
        return endpoints;
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

    String keyPrefix() {
        return options.getOrDefault("prefix", DEFAULT_PREFIX);
    }

    @Override
    public String toString() {
        return (tls ? "etcds://" : "etcd://") + (user != null ? user + "@" : "") + String.join(",", endpoints);
    }
}
