package dev.fencing.lock.etcd;

import dev.fencing.internal.config.ServerAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

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
    private static final ServerAddress.Syntax SYNTAX = new ServerAddress.Syntax("etcd", "an etcd address", "etcd", "etcds",
            "etcd credentials are written user:password@, got no password for the user",
            null, "an etcd address has no path (set the key prefix with ?prefix=...)",
            List.of("ca", "cert", "key", "authority", "prefix"));

    private final ServerAddress address;

    private EtcdAddress(ServerAddress address) {
        this.address = address;
    }

    /**
     * @throws IllegalArgumentException naming what is wrong (never echoing a password)
     */
    static EtcdAddress parse(String uri) {
        ServerAddress address = ServerAddress.parse(uri, SYNTAX);
        if (!address.tls() && (address.hasOption("ca") || address.hasOption("cert") || address.hasOption("key"))) {
            throw new IllegalArgumentException("the options ca, cert and key need TLS: write etcds:// instead of etcd:// in "
                    + address.redacted());
        }
        if (address.hasOption("cert") != address.hasOption("key")) {
            throw new IllegalArgumentException("a client certificate needs both cert and key options, in " + address.redacted());
        }
        for (String file : List.of("ca", "cert", "key")) {
            address.requireReadable(file);
        }
        if (address.hasOption("prefix") && address.option("prefix").isEmpty()) {
            throw new IllegalArgumentException("etcd address option prefix must not be empty (lock keys would mix with other keys)");
        }
        return new EtcdAddress(address);
    }

    boolean tls() {
        return address.tls();
    }

    /** {@code http://host:port} or {@code https://host:port}, as jetcd wants them. */
    List<URI> endpointUris() {
        List<URI> uris = new ArrayList<>();
        for (String endpoint : address.hosts()) {
            uris.add(URI.create((address.tls() ? "https://" : "http://") + endpoint));
        }
        return uris;
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

    String keyPrefix() {
        String prefix = address.option("prefix");
        return prefix != null ? prefix : DEFAULT_PREFIX;
    }

    @Override
    public String toString() {
        return address.toString();
    }
}
