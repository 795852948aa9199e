package dev.fencing.lock;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * A {@code redis-server} of the test's own on a loopback port, for tests that stop, pause,
 * kill or promote a server. The test must {@link #kill()} it (in {@code @AfterAll}).
 */
final class RedisServerProcess implements AutoCloseable {

    /** Threads shared by the short-lived test clients, so that each costs only a connection. */
    private static final ClientResources SHARED_RESOURCES = DefaultClientResources.create();

    /** libfaketime as Debian's {@code faketime} package installs it (scripts/ensure-services.sh). */
    private static final Path LIBFAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");
    /**
     * Preloaded before libfaketime: in Debian's redis-server, linked with jemalloc, libfaketime's
     * start-up and jemalloc's deadlock (each calls the other while holding its own lock); with
     * tcmalloc serving malloc, libfaketime starts before jemalloc does.
     */
    private static final Path TCMALLOC = Path.of("/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4");

    private final int port;
    private final List<String> extraArgs;
    private final Path log;
    private final Path clockFile;
    private Process process;

    private RedisServerProcess(int port, List<String> extraArgs, Path log, Path clockFile) {
        this.port = port;
        this.extraArgs = extraArgs;
        this.log = log;
        this.clockFile = clockFile;
    }

    /**
     * Starts a server without automatic persistence (a {@code SAVE} still writes
     * {@code dump.rdb} into {@code dir}, and a restart loads it); {@code extraArgs} are more
     * {@code --name value} options.
     */
    static RedisServerProcess start(Path dir, String... extraArgs) throws IOException {
        int port = TestServices.freePort();
        RedisServerProcess server = new RedisServerProcess(port, List.of(extraArgs), dir.resolve("redis-" + port + ".log"), null);
        server.startProcess(dir);
        return server;
    }

    /**
     * Like {@link #start}, but the server's wall clock (what {@code TIME} reports) can be set
     * off the real one while it runs, with {@link #shiftClock}: libfaketime, preloaded, reads
     * the offset from a file of the server's own on every clock read. Its monotonic clock is
     * left alone.
     *
     * @throws org.opentest4j.TestAbortedException when libfaketime is not installed
     */
    static RedisServerProcess startWithShiftableClock(Path dir, String... extraArgs) throws IOException {
        for (Path library : List.of(LIBFAKETIME, TCMALLOC)) {
            org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isReadable(library), library
                    + " is missing: install Debian's faketime and libtcmalloc-minimal4 (scripts/ensure-services.sh does)");
        }
        int port = TestServices.freePort();
        Path clockFile = dir.resolve("clock-" + port);
        java.nio.file.Files.writeString(clockFile, "+0\n");
        RedisServerProcess server = new RedisServerProcess(port, List.of(extraArgs), dir.resolve("redis-" + port + ".log"),
                clockFile);
        server.startProcess(dir);
        return server;
    }

    /** Sets the server's wall clock {@code offset} away from the real one (negative: back). */
    void shiftClock(Duration offset) throws IOException {
        if (clockFile == null) {
            throw new IllegalStateException("started without a shiftable clock");
        }
        java.nio.file.Files.writeString(clockFile, String.format(java.util.Locale.ROOT, "%+.6f%n", offset.toNanos() / 1e9));
    }

    private void startProcess(Path dir) throws IOException {
        List<String> command = new ArrayList<>(List.of("redis-server",
                "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", dir.toString(),
                // Replicas sync at once instead of after the default 5 s wait for more replicas.
                "--repl-diskless-sync-delay", "0"));
        command.addAll(extraArgs);
        ProcessBuilder builder = new ProcessBuilder(command);
        if (clockFile != null) {
            builder.environment().put("LD_PRELOAD", TCMALLOC + " " + LIBFAKETIME);
            builder.environment().put("FAKETIME_TIMESTAMP_FILE", clockFile.toString());
            builder.environment().put("FAKETIME_NO_CACHE", "1");
            builder.environment().put("FAKETIME_DONT_FAKE_MONOTONIC", "1");
        }
        process = builder
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        awaitUntil("redis-server on port " + port + " answers", Duration.ofSeconds(10), this::answers);
    }

    /** Starts the server again on the same port with the same options (after {@link #kill()}). */
    void restart(Path dir) throws IOException {
        startProcess(dir);
    }

    int port() {
        return port;
    }

    String uri() {
        return "redis://127.0.0.1:" + port;
    }

    long pid() {
        return process.pid();
    }

    /** Freezes the process (SIGSTOP): it keeps its sockets but answers nothing. */
    void pause() throws Exception {
        signal("-STOP");
    }

    /** Thaws the process (SIGCONT). */
    void resume() throws Exception {
        signal("-CONT");
    }

    /** Kills the process at once (SIGKILL), as a crash would; harmless when it is not running. */
    void kill() {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() {
        kill();
    }

    private void signal(String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid()))
                .redirectErrorStream(true).redirectOutput(new File("/dev/null")).start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill " + signal + " " + process.pid() + " failed");
        }
    }

    /** Runs {@code action} with a short-lived connection to this server. */
    <T> T withCommands(java.util.function.Function<RedisCommands<String, String>, T> action) {
        RedisURI uri = RedisURI.create(uri());
        uri.setTimeout(Duration.ofSeconds(5));
        RedisClient client = RedisClient.create(SHARED_RESOURCES, uri);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return action.apply(connection.sync());
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }

    /** A raw PING: cheaper than a Lettuce client per poll. */
    private boolean answers() {
        try (java.net.Socket socket = new java.net.Socket()) {
            socket.connect(new java.net.InetSocketAddress("127.0.0.1", port), 200);
            socket.setSoTimeout(500);
            socket.getOutputStream().write("PING\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            byte[] reply = new byte[7];
            int read = socket.getInputStream().readNBytes(reply, 0, reply.length);
            return read == 7 && new String(reply, java.nio.charset.StandardCharsets.US_ASCII).equals("+PONG\r\n");
        } catch (IOException e) {
            return false;
        }
    }

    static void awaitUntil(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout + " waiting until " + what);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting until " + what);
            }
        }
    }
}
