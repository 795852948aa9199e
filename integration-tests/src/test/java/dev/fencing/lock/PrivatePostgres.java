package dev.fencing.lock;

import dev.fencing.it.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A PostgreSQL server of the test's own: {@code initdb} into a temporary directory, on a free
 * loopback port, started and stopped with {@code pg_ctl} from
 * {@code /usr/lib/postgresql/<version>/bin} (or {@code FENCING_PG_BIN}), for tests that crash
 * and restart a database, which the shared server must never suffer. Closing it stops the
 * server at once and removes its directory; a shutdown hook does the same if the test never
 * gets to.
 *
 * <p>When the JVM runs as root, the server runs as the {@code postgres} user (PostgreSQL
 * refuses to run as root).
 */
public final class PrivatePostgres implements AutoCloseable {

    private final Path bin;
    private final Path root;
    private final Path data;
    private final int port;
    private final boolean asPostgresUser;
    private final Thread cleanup;

    private PrivatePostgres(Path bin, Path root, int port, boolean asPostgresUser) {
        this.bin = bin;
        this.root = root;
        this.data = root.resolve("data");
        this.port = port;
        this.asPostgresUser = asPostgresUser;
        this.cleanup = new Thread(this::stopAndDelete, "private-postgres-cleanup");
    }

    /**
     * Initialises a cluster whose {@code postgresql.conf} ends with {@code settings} (lines
     * such as {@code synchronous_commit = off}) and starts it.
     *
     * @throws org.opentest4j.TestAbortedException when no PostgreSQL server binaries are installed
     */
    public static PrivatePostgres start(String... settings) throws IOException {
        Path bin = findBin();
        boolean root = "root".equals(System.getProperty("user.name"));
        Path dir = Files.createTempDirectory("fencing-pg-");
        PrivatePostgres server = new PrivatePostgres(bin, dir, FreePorts.next(), root);
        Runtime.getRuntime().addShutdownHook(server.cleanup);
        try {
            if (root) {
                server.run(List.of("chown", "postgres", dir.toString()), false);
            }
            server.run(List.of(bin.resolve("initdb").toString(), "-D", server.data.toString(), "-U", "postgres",
                    "--auth=trust", "--no-sync", "-E", "UTF8"), true);
            List<String> conf = new ArrayList<>(List.of(
                    "port = " + server.port,
                    "listen_addresses = '127.0.0.1'",
                    "unix_socket_directories = '" + dir + "'",
                    "max_connections = 20",
                    "shared_buffers = 16MB"));
            conf.addAll(List.of(settings));
            Files.writeString(server.data.resolve("postgresql.conf"), String.join("\n", conf) + "\n",
                    StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.APPEND);
            server.startServer();
            return server;
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    private static Path findBin() {
        String configured = System.getenv("FENCING_PG_BIN");
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured);
        }
        Path versions = Path.of("/usr/lib/postgresql");
        Path found = null;
        if (Files.isDirectory(versions)) {
            try (Stream<Path> each = Files.list(versions)) {
                found = each.map(version -> version.resolve("bin"))
                        .filter(candidate -> Files.isExecutable(candidate.resolve("pg_ctl")))
                        .max(Comparator.comparing(Path::toString)).orElse(null);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(found != null,
                "no PostgreSQL server binaries under /usr/lib/postgresql/*/bin (install postgresql, or set FENCING_PG_BIN)");
        return found;
    }

    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
    }

    /** The server's log ({@code pg_ctl -l}): what {@code log_statement} and the like write. */
    public Path log() {
        return root.resolve("server.log");
    }

    /** Stops the server as a crash would ({@code pg_ctl stop -m immediate}: no checkpoint, no WAL flush). */
    void crash() {
        run(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "immediate", "-w", "stop"), true);
    }

    /** Starts the server again (after {@link #crash()}): it recovers from its WAL. */
    void startServer() {
        run(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-l", root.resolve("server.log").toString(),
                "-w", "-t", "60", "start"), true);
    }

    private void run(List<String> command, boolean asServerUser) {
        List<String> full = new ArrayList<>();
        if (asServerUser && asPostgresUser) {
            full.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        full.addAll(command);
        try {
            Process process = new ProcessBuilder(full).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (process.waitFor() != 0) {
                throw new IllegalStateException(String.join(" ", full) + " failed:\n" + output + logTail());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + full, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + full, e);
        }
    }

    private String logTail() {
        try {
            String log = Files.readString(root.resolve("server.log"));
            return "\nserver log:\n" + (log.length() > 2000 ? log.substring(log.length() - 2000) : log);
        } catch (IOException e) {
            return "";
        }
    }

    private void stopAndDelete() {
        if (Files.exists(data.resolve("postmaster.pid"))) {
            try {
                crash();
            } catch (RuntimeException e) {
                // Deleting the directory below still leaves no data behind.
            }
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            // A leftover temporary directory is harmless once the server is stopped.
        }
    }

    @Override
    public void close() {
        stopAndDelete();
        try {
            Runtime.getRuntime().removeShutdownHook(cleanup);
        } catch (IllegalStateException e) {
            // Shutting down already.
        }
    }
}
