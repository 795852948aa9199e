package dev.fencing.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throw-away {@code pgbouncer} process on a free loopback port in front of the PostgreSQL
 * server at {@code FENCING_PG_URL} (default {@code jdbc:postgresql://127.0.0.1:5432/test?user=postgres}),
 * for tests of what a connection pooler does to session state.
 *
 * <pre>{@code
 * try (PgBouncer bouncer = PgBouncer.start(PgBouncer.PoolMode.TRANSACTION, 1)) {
 *     Connection a = DriverManager.getConnection(bouncer.jdbcUrl());  // prepareThreshold=0
 *     Connection b = DriverManager.getConnection(bouncer.jdbcUrl());
 *     // pool size 1: a's and b's transactions run, one after the other, on one server session
 * }                                                                  // the process is stopped
 * }</pre>
 *
 * <p>The generated {@code pgbouncer.ini} (in a temporary directory, removed on {@link #close()}):
 * one wildcard database entry ({@code * = host=.. port=..}, so every database name of the server
 * is reachable), {@code pool_mode} as given, {@code default_pool_size} as given (server sessions
 * per database and user), {@code auth_type = trust} with an {@code auth_file} naming the user of
 * {@code FENCING_PG_URL} (and its password, if the URL has one, which pgbouncer then uses to log
 * in to the server), {@code ignore_startup_parameters = extra_float_digits,options} (pgjdbc sends
 * {@code extra_float_digits}), {@code query_wait_timeout = 15} (a client waiting for a server
 * session fails after 15 s, not 120), no Unix socket, and pgbouncer's defaults for everything else:
 * in session mode {@code server_reset_query = DISCARD ALL} runs when a client leaves; in
 * transaction mode nothing is reset between clients, as in production.
 *
 * <p>pgbouncer 1.18 (Debian 12) has no prepared statements in transaction mode, so
 * {@link #jdbcUrl()} carries {@code prepareThreshold=0}. pgbouncer 1.18 passes no
 * {@code search_path} from the client, so the URL carries no {@code currentSchema} either: name
 * tables with their schema.
 *
 * <p>pgbouncer refuses to run as root: started by root, it runs as {@code postgres}
 * ({@code -u}; {@code FENCING_PGBOUNCER_USER} overrides it), and its directory is made readable
 * for that user (it holds no secret unless {@code FENCING_PG_URL} has a password).
 *
 * <p>Nothing outlives the test: {@link #close()} stops the process (SIGTERM, then SIGKILL) and
 * waits for it; a JVM shutdown hook kills it when the test never gets to close, and a small
 * watchdog process when the JVM itself is killed. The binary is {@code pgbouncer} on the
 * {@code PATH} or in {@code /usr/sbin} (Debian package {@code pgbouncer}, installed by
 * {@code scripts/ensure-services.sh}), or {@code FENCING_PGBOUNCER_BINARY}; without it
 * {@link #start} fails with a message that says so ({@link #available()} lets a test skip
 * instead).
 */
public final class PgBouncer implements AutoCloseable {

    /** pgbouncer's {@code pool_mode}s that a fenced application can meet. */
    public enum PoolMode {
        /** A client keeps one server session from connect to disconnect. */
        SESSION,
        /** A client holds a server session for one transaction; the next may run on another. */
        TRANSACTION;

        String ini() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    static final String HOST = "127.0.0.1";
    private static final String DEFAULT_PG_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    private static final int PORT_ATTEMPTS = 5;
    private static final Duration STARTUP = Duration.ofSeconds(15);
    private static final Duration EXIT = Duration.ofSeconds(10);
    private static final String PID_FILE = "pgbouncer.pid";

    private final PoolMode mode;
    private final int poolSize;
    private final Upstream upstream;
    private final Path root;
    private final Path directory;
    private final int port;
    private final Process process;
    private final Process watchdog;
    private boolean closed;

    private PgBouncer(PoolMode mode, int poolSize, Upstream upstream, Path root, Path directory, int port,
                      Process process, Process watchdog) {
        this.mode = mode;
        this.poolSize = poolSize;
        this.upstream = upstream;
        this.root = root;
        this.directory = directory;
        this.port = port;
        this.process = process;
        this.watchdog = watchdog;
    }

    /**
     * Starts pgbouncer in {@code mode} with at most {@code poolSize} server sessions per database
     * and user, and returns once its port accepts connections.
     *
     * @throws IllegalStateException if the binary is missing or the process does not come up (the
     *         message holds the end of its log)
     */
    public static PgBouncer start(PoolMode mode, int poolSize) {
        if (poolSize < 1) {
            throw new IllegalArgumentException("poolSize must be at least 1, got " + poolSize);
        }
        String binary = binary();
        Upstream upstream = Upstream.parse(Env.get(TestDatabase.Kind.POSTGRESQL.variable(), DEFAULT_PG_URL));
        Path root;
        try {
            root = Files.createTempDirectory("fencing-pgbouncer-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory for pgbouncer", e);
        }
        Process watchdog = ProcessReaper.watchdog(root, PID_FILE, "pgbouncer");
        IllegalStateException portTaken = null;
        try {
            for (int attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
                int port = freePort();
                Path directory = root.resolve(Integer.toString(port));
                Process process = launch(binary, mode, poolSize, upstream, root, directory, port);
                try {
                    awaitPort(process, port, directory);
                } catch (PortInUse e) {
                    portTaken = e;
                    continue;
                }
                return new PgBouncer(mode, poolSize, upstream, root, directory, port, process, watchdog);
            }
        } catch (RuntimeException e) {
            deleteTree(root);
            watchdog.destroy();
            throw e;
        }
        deleteTree(root);
        watchdog.destroy();
        throw new IllegalStateException("pgbouncer found no free port in " + PORT_ATTEMPTS + " attempts", portTaken);
    }

    /**
     * Whether {@link #start} can find a pgbouncer binary; for a test that should be skipped, not
     * failed, without one ({@code Assumptions.assumeTrue(PgBouncer.available())}). The default
     * build installs it (scripts/ensure-services.sh), so the project's own tests fail instead.
     */
    public static boolean available() {
        try {
            binary();
            return true;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    public PoolMode poolMode() {
        return mode;
    }

    /** {@code default_pool_size}: server sessions per database and user. */
    public int poolSize() {
        return poolSize;
    }

    /** Always {@code 127.0.0.1}. */
    public String host() {
        return HOST;
    }

    public int port() {
        return port;
    }

    /** The process id of pgbouncer. */
    public long pid() {
        return process.pid();
    }

    public synchronized boolean isRunning() {
        return !closed && process.isAlive();
    }

    /**
     * A pgjdbc URL through this pgbouncer to the database of {@code FENCING_PG_URL}, as its user,
     * with {@code prepareThreshold=0}.
     */
    public String jdbcUrl() {
        return jdbcUrl(upstream.database);
    }

    /** Like {@link #jdbcUrl()}, to {@code database} on the same server. */
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://" + HOST + ":" + port + "/" + encode(database)
                + "?user=" + encode(upstream.user) + "&prepareThreshold=0";
    }

    /** The database of {@code FENCING_PG_URL}, which {@link #jdbcUrl()} connects to. */
    public String database() {
        return upstream.database;
    }

    /** The user of {@code FENCING_PG_URL}, the only one the generated {@code auth_file} names. */
    public String user() {
        return upstream.user;
    }

    /** The last lines of pgbouncer's log, for failure messages. */
    public String logTail() {
        return logTail(directory);
    }

    /** Stops pgbouncer (SIGTERM, SIGKILL after 10 s), waits for it and removes its files. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            stop(process);
        } finally {
            deleteTree(root);
            watchdog.destroy();
        }
    }

    @Override
    public String toString() {
        return "pgbouncer " + HOST + ":" + port + " (pool_mode=" + mode.ini() + ", default_pool_size=" + poolSize
                + ") in front of " + upstream.host + ":" + upstream.port;
    }

    // ---- starting -------------------------------------------------------------------------------

    /** The port was taken between choosing it and binding it. */
    private static final class PortInUse extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        PortInUse(String message) {
            super(message);
        }
    }

    private static Process launch(String binary, PoolMode mode, int poolSize, Upstream upstream,
                                  Path root, Path directory, int port) {
        try {
            Files.createDirectories(directory);
            Path ini = directory.resolve("pgbouncer.ini");
            Path users = directory.resolve("userlist.txt");
            Files.writeString(users, quote(upstream.user) + " " + quote(upstream.password) + "\n");
            Files.writeString(ini, ini(mode, poolSize, upstream, users, port));
            String runAs = runAs();
            if (runAs != null) {
                // pgbouncer reads its files after dropping root (auth_file on reload too).
                for (Path path : new Path[] {root, directory}) {
                    Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwxr-xr-x"));
                }
                for (Path path : new Path[] {ini, users}) {
                    Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-r--r--"));
                }
            }
            ProcessBuilder builder = runAs == null
                    ? new ProcessBuilder(binary, ini.toString())
                    : new ProcessBuilder(binary, "-u", runAs, ini.toString());
            Process process = builder.directory(directory.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(directory.resolve("pgbouncer.log").toFile()))
                    .start();
            ProcessReaper.register(process);
            // pgbouncer -u stays in the foreground: this pid is pgbouncer's, for the watchdog.
            Files.writeString(directory.resolve(PID_FILE), Long.toString(process.pid()), StandardCharsets.US_ASCII);
            return process;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + binary + " on port " + port, e);
        }
    }

    static String ini(PoolMode mode, int poolSize, Upstream upstream, Path users, int port) {
        return String.join("\n",
                "; generated by dev.fencing.testing.PgBouncer",
                "[databases]",
                "* = host=" + upstream.host + " port=" + upstream.port,
                "",
                "[pgbouncer]",
                "listen_addr = " + HOST,
                "listen_port = " + port,
                "unix_socket_dir =",
                "auth_type = trust",
                "auth_file = " + users,
                "pool_mode = " + mode.ini(),
                "default_pool_size = " + poolSize,
                "min_pool_size = 0",
                "reserve_pool_size = 0",
                "max_client_conn = 200",
                "ignore_startup_parameters = extra_float_digits,options",
                // A client waiting for a server session fails after 15 s instead of 120 s: a test
                // that left a transaction open on a pool of one fails fast.
                "query_wait_timeout = 15",
                "",
                "");
    }

    private static void awaitPort(Process process, int port, Path directory) {
        long deadline = System.nanoTime() + STARTUP.toNanos();
        IOException last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                String log = logTail(directory);
                String message = "pgbouncer on port " + port + " exited with code " + process.exitValue()
                        + " while starting. End of its log:\n" + log;
                throw log.contains("Address already in use") ? new PortInUse(message) : new IllegalStateException(message);
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(HOST, port), 500);
                return;
            } catch (IOException e) {
                last = e;
            }
            sleep(20);
        }
        stop(process);
        throw new IllegalStateException("pgbouncer on port " + port + " did not accept connections within "
                + STARTUP.toSeconds() + " s. End of its log:\n" + logTail(directory), last);
    }

    /** The OS user to run as when this JVM is root (pgbouncer refuses root), else null. */
    private static String runAs() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return null;
        }
        return Env.get("FENCING_PGBOUNCER_USER", "postgres");
    }

    static String binary() {
        String configured = Env.get("FENCING_PGBOUNCER_BINARY", "");
        if (!configured.isEmpty()) {
            if (Files.isRegularFile(Path.of(configured)) && Files.isExecutable(Path.of(configured))) {
                return configured;
            }
            throw new IllegalStateException("FENCING_PGBOUNCER_BINARY=" + configured + " is not an executable file");
        }
        String path = System.getenv("PATH");
        String searched = (path == null ? "" : path + File.pathSeparator) + "/usr/sbin" + File.pathSeparator + "/usr/local/sbin";
        for (String directory : searched.split(File.pathSeparator)) {
            if (!directory.isEmpty()) {
                Path candidate = Path.of(directory, "pgbouncer");
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return candidate.toString();
                }
            }
        }
        throw new IllegalStateException("pgbouncer is not installed (searched PATH, /usr/sbin, /usr/local/sbin). "
                + "Install it with scripts/ensure-services.sh (Debian: apt-get install pgbouncer), "
                + "or set FENCING_PGBOUNCER_BINARY to its path.");
    }

    // ---- stopping -------------------------------------------------------------------------------

    private static void stop(Process process) {
        process.destroy();
        try {
            if (!process.waitFor(EXIT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                if (!process.waitFor(EXIT.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("pgbouncer (pid " + process.pid() + ") did not end after SIGKILL");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IllegalStateException("interrupted while waiting for pgbouncer to end", e);
        }
    }

    // ---- helpers --------------------------------------------------------------------------------

    /** Host, port, database, user and password of the PostgreSQL server that pgbouncer fronts. */
    record Upstream(String host, int port, String database, String user, String password) {

        static Upstream parse(String jdbcUrl) {
            if (!jdbcUrl.startsWith("jdbc:postgresql://")) {
                throw new IllegalArgumentException("not a jdbc:postgresql://host:port/database URL: " + Env.redact(jdbcUrl));
            }
            URI uri;
            try {
                uri = URI.create(jdbcUrl.substring("jdbc:".length()));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("pgbouncer can only front one host: " + Env.redact(jdbcUrl), e);
            }
            if (uri.getHost() == null) {
                throw new IllegalArgumentException("pgbouncer can only front one host: " + Env.redact(jdbcUrl));
            }
            Map<String, String> query = new LinkedHashMap<>();
            if (uri.getRawQuery() != null) {
                for (String pair : uri.getRawQuery().split("&")) {
                    int equals = pair.indexOf('=');
                    if (equals > 0) {
                        query.put(decode(pair.substring(0, equals)), decode(pair.substring(equals + 1)));
                    }
                }
            }
            String path = uri.getPath() == null ? "" : uri.getPath();
            String database = path.startsWith("/") ? path.substring(1) : path;
            String user = query.getOrDefault("user", System.getProperty("user.name"));
            return new Upstream(uri.getHost(), uri.getPort() < 0 ? 5432 : uri.getPort(),
                    database.isEmpty() ? user : decode(database), user, query.getOrDefault("password", ""));
        }

        @Override
        public String toString() {
            return "Upstream[" + host + ":" + port + "/" + database + " as " + user + "]";
        }
    }

    private static String quote(String value) {
        return '"' + value.replace("\"", "\"\"") + '"';
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    private static String decode(String value) {
        return URLDecoder.decode(value, StandardCharsets.UTF_8);
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free loopback port", e);
        }
    }

    private static String logTail(Path directory) {
        try {
            String text = Files.readString(directory.resolve("pgbouncer.log"), StandardCharsets.UTF_8);
            return text.length() <= 2000 ? text : text.substring(text.length() - 2000);
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for pgbouncer", e);
        }
    }

    private static void deleteTree(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            // A leftover temporary directory is harmless; the process is what must not survive.
        }
    }
}
