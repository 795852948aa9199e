package dev.fencing.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

/**
 * Starts throw-away {@code redis-server} processes on free loopback ports, for tests that need
 * to stop, pause, kill or fail over a Redis server: things the shared test server must never
 * suffer.
 *
 * <pre>{@code
 * try (RedisServers servers = new RedisServers()) {
 *     RedisServer primary = servers.start();
 *     RedisServer replica = servers.start();
 *     replica.replicaOf(primary);              // returns once the replication link is up
 *
 *     RedisFencedLocks locks = RedisFencedLocks.create(primary.uri());
 *     primary.pause();                         // SIGSTOP: the server hangs, clients time out
 *     primary.resume();                        // SIGCONT
 *     primary.kill();                          // SIGKILL: its data is gone
 *     replica.promote();                       // REPLICAOF NO ONE
 *     primary.restart();                       // an empty server on the same port
 * }                                            // every process is killed, its files removed
 * }</pre>
 *
 * <p>Each server runs without persistence ({@code --save "" --appendonly no}) in its own
 * directory under a temporary directory. Nothing outlives the test: {@link #close()} kills
 * every server; a JVM shutdown hook kills them if the test never gets to close; and a small
 * watchdog process kills them if the JVM itself is killed.
 *
 * <p>Thread-safe. Needs {@code redis-server} on {@code PATH}, or its path given to
 * {@link #RedisServers(String)}.
 */
public final class RedisServers implements AutoCloseable {

    private static final int PORT_ATTEMPTS = 5;

    private final String executable;
    private final Path root;
    private final Process watchdog;
    private final List<RedisServer> servers = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    /**
     * Uses the {@code redis-server} found on {@code PATH}.
     *
     * @throws IllegalStateException if there is none
     */
    public RedisServers() {
        this("redis-server");
    }

    /**
     * Uses {@code executable}: a path, or a bare name looked up on {@code PATH}.
     *
     * @throws IllegalStateException if it cannot be found or run
     */
    public RedisServers(String executable) {
        this.executable = locate(executable);
        try {
            this.root = Files.createTempDirectory("fencing-redis-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory for redis-server", e);
        }
        this.watchdog = ProcessReaper.watchdog(root);
    }

    /**
     * Starts a new server on a free loopback port and returns once it answers {@code PING}.
     *
     * @throws IllegalStateException if it does not start (the message holds the end of its log)
     */
    public RedisServer start() {
        return start(false, List.of());
    }

    /**
     * Like {@link #start()}, but the server's wall clock can be shifted while it runs
     * ({@link RedisServer#shiftClock}), through libfaketime.
     *
     * @throws IllegalStateException if libfaketime or tcmalloc is not installed (Debian:
     *         {@code apt-get install faketime libtcmalloc-minimal4}; scripts/ensure-services.sh does)
     */
    public RedisServer startWithShiftableClock() {
        for (Path library : List.of(RedisServer.LIBFAKETIME, RedisServer.TCMALLOC)) {
            if (!Files.isReadable(library)) {
                throw new IllegalStateException(library + " is missing: install Debian's faketime and"
                        + " libtcmalloc-minimal4 (scripts/ensure-services.sh does)");
            }
        }
        return start(true, List.of());
    }

    /**
     * Whether {@link #startWithShiftableClock()} can work on this machine: libfaketime and
     * tcmalloc are installed. For a test that should be skipped, not failed, without them
     * ({@code Assumptions.assumeTrue(RedisServers.shiftableClocksAvailable())}).
     */
    public static boolean shiftableClocksAvailable() {
        return Files.isReadable(RedisServer.LIBFAKETIME) && Files.isReadable(RedisServer.TCMALLOC);
    }

    /**
     * Like {@link #start()}, but the server runs in cluster mode ({@code --cluster-enabled yes},
     * node timeout 2 s) and is a cluster of its own until joined with others, for example by
     * {@code redis-cli --cluster create 127.0.0.1:<port> ... --cluster-replicas 0 --cluster-yes}.
     * Its cluster configuration ({@code nodes.conf}) survives a {@link RedisServer#restart()}.
     */
    public RedisServer startClusterNode() {
        return start(false, List.of("--cluster-enabled", "yes", "--cluster-node-timeout", "2000",
                "--cluster-config-file", "nodes.conf"));
    }

    private RedisServer start(boolean shiftableClock, List<String> options) {
        checkOpen();
        IllegalStateException portTaken = null;
        for (int attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
            int port = freePort();
            RedisServer server = new RedisServer(this, port, root.resolve(Integer.toString(port)), shiftableClock, options);
            try {
                server.launch();
            } catch (RedisServer.PortInUse e) {
                portTaken = e;
                continue;
            }
            servers.add(server);
            if (closed) {
                server.kill();
                checkOpen();
            }
            return server;
        }
        throw new IllegalStateException("redis-server found no free port in " + PORT_ATTEMPTS + " attempts", portTaken);
    }

    /** The servers started so far, running or not, in start order. */
    public List<RedisServer> servers() {
        return List.copyOf(servers);
    }

    /** Kills every server (SIGKILL, paused ones too) and removes their directories. Idempotent. */
    @Override
    public void close() {
        closed = true;
        List<RuntimeException> failures = new ArrayList<>();
        for (RedisServer server : servers) {
            try {
                server.kill();
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }
        deleteTree(root);
        watchdog.destroy();
        if (!failures.isEmpty()) {
            IllegalStateException error = new IllegalStateException("some redis-server processes could not be killed");
            failures.forEach(error::addSuppressed);
            throw error;
        }
    }

    String executable() {
        return executable;
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("these RedisServers are closed");
        }
    }

    @Override
    public String toString() {
        return "RedisServers" + servers;
    }

    static String locate(String executable) {
        if (executable.contains(File.separator)) {
            Path path = Paths.get(executable);
            if (Files.isRegularFile(path) && Files.isExecutable(path)) {
                return path.toString();
            }
            throw new IllegalStateException(executable + " is not an executable file. "
                    + "Install Redis (Debian: apt-get install redis-server) or pass the path of redis-server.");
        }
        String pathVariable = System.getenv("PATH");
        if (pathVariable != null) {
            for (String directory : pathVariable.split(File.pathSeparator)) {
                if (directory.isEmpty()) {
                    continue;
                }
                Path candidate = Paths.get(directory, executable);
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return candidate.toString();
                }
            }
        }
        throw new IllegalStateException(executable + " is not on PATH (" + pathVariable + "). "
                + "Install Redis (Debian: apt-get install redis-server) or pass the path of redis-server "
                + "to new RedisServers(path).");
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free loopback port", e);
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
            // A leftover temporary directory is harmless; the processes are what must not survive.
        }
    }
}
