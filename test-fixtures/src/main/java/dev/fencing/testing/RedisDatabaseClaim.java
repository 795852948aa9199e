package dev.fencing.testing;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.UUID;

/**
 * Claims an empty logical database (1 and up; 0 is everyone's default) on a shared Redis server
 * for one test class, and flushes it when released.
 *
 * <p>The claim is {@code SET fencing-fixtures:claim <owner> NX EX 3600} in the database, kept
 * only if the key is then the database's only key: a database with other keys belongs to
 * someone else (or to a run that crashed; {@code FLUSHDB} it by hand). The expiry frees a
 * claim whose JVM died before releasing it, once its data is gone too.
 */
final class RedisDatabaseClaim {

    static final String CLAIM_KEY = "fencing-fixtures:claim";
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final String CLAIM_SECONDS = "3600";

    private final Server server;
    private final int database;
    private final String owner;

    private RedisDatabaseClaim(Server server, int database, String owner) {
        this.server = server;
        this.database = database;
        this.owner = owner;
    }

    /** Claims a database on the server at {@code baseUri}; the value is the URI naming it. */
    static StoredResource<String> claim(String baseUri) throws IOException {
        Server server = Server.parse(baseUri);
        String owner = "pid " + ProcessHandle.current().pid() + " " + UUID.randomUUID();
        try (Resp resp = server.connect()) {
            for (int database = 1; ; database++) {
                try {
                    resp.call("SELECT", Integer.toString(database));
                } catch (Resp.ErrorReply pastTheLast) {
                    throw new IOException("every logical database from 1 to " + (database - 1)
                            + " is in use (holds keys); FLUSHDB leftovers of crashed runs or raise 'databases' in redis.conf");
                }
                if ("OK".equals(resp.call("SET", CLAIM_KEY, owner, "NX", "EX", CLAIM_SECONDS))) {
                    if (Long.valueOf(1).equals(resp.call("DBSIZE"))) {
                        RedisDatabaseClaim claim = new RedisDatabaseClaim(server, database, owner);
                        return new StoredResource<>(server.uri(database), claim::release);
                    }
                    resp.call("DEL", CLAIM_KEY);
                }
            }
        }
    }

    /** Flushes the database, unless the claim was lost (expired and taken): then the data is not ours. */
    private void release() throws IOException {
        try (Resp resp = server.connect()) {
            resp.call("SELECT", Integer.toString(database));
            Object holder = resp.call("GET", CLAIM_KEY);
            if (holder != null && !owner.equals(holder)) {
                throw new IOException("the claim on Redis database " + database + " passed to " + holder
                        + " before the test class ended; not flushing it");
            }
            resp.call("FLUSHDB");
        }
    }

    /** Where the server is and how to log in, from a {@code redis://} URI. */
    static final class Server {
        final String host;
        final int port;
        final String user;
        final String password;
        private final String rawUserInfo;
        private final String rawQuery;

        private Server(URI uri) {
            this.host = uri.getHost();
            this.port = uri.getPort() < 0 ? 6379 : uri.getPort();
            this.rawUserInfo = uri.getRawUserInfo();
            this.rawQuery = uri.getRawQuery();
            String info = uri.getUserInfo();
            if (info == null || info.isEmpty()) {
                user = null;
                password = null;
            } else if (info.indexOf(':') < 0) {
                user = null;
                password = info;
            } else {
                String name = info.substring(0, info.indexOf(':'));
                user = name.isEmpty() ? null : name;
                password = info.substring(info.indexOf(':') + 1);
            }
        }

        static Server parse(String uri) {
            URI parsed;
            try {
                parsed = new URI(uri);
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("not a redis:// URI: " + Env.redact(uri), e);
            }
            if (!"redis".equalsIgnoreCase(parsed.getScheme()) || parsed.getHost() == null) {
                throw new IllegalArgumentException("only redis://[[user:]password@]host[:port] URIs are supported, not "
                        + Env.redact(uri));
            }
            return new Server(parsed);
        }

        Resp connect() throws IOException {
            Resp resp = Resp.connect(host, port, TIMEOUT);
            try {
                if (password != null) {
                    if (user == null) {
                        resp.call("AUTH", password);
                    } else {
                        resp.call("AUTH", user, password);
                    }
                }
                return resp;
            } catch (IOException e) {
                resp.close();
                throw e;
            }
        }

        /** The server's URI with {@code database} as its path, user info and query kept. */
        String uri(int database) {
            String hostPart = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
            return "redis://" + (rawUserInfo == null ? "" : rawUserInfo + "@") + hostPart + ":" + port + "/" + database
                    + (rawQuery == null ? "" : "?" + rawQuery);
        }
    }
}
