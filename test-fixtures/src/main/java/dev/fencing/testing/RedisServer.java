package dev.fencing.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One {@code redis-server} process started by {@link RedisServers}, on {@code 127.0.0.1} and
 * a port of its own that it keeps across {@link #restart()}.
 *
 * <pre>{@code
 * RedisServer server = servers.start();
 * RedisClient client = RedisClient.create(server.uri());
 * server.pause();      // the process is stopped (SIGSTOP): commands hang until resume()
 * server.resume();
 * server.kill();       // SIGKILL; isRunning() is false
 * server.restart();    // a fresh, empty server on the same port
 * }</pre>
 *
 * <p>Servers keep no data across a kill or restart (no automatic persistence) and come back as
 * primaries: a replica that is restarted must be made a replica again. Two ways to lose only
 * the most recent writes, as Redis does in production: {@link #snapshot()} then
 * {@link #crashAndRestartFromSnapshot()} (what a {@code kill -9} does to a server that saves
 * RDB snapshots), and a replica cut off before its promotion. A server started with
 * {@link RedisServers#startWithShiftableClock()} can have its wall clock set back or forward
 * while it runs ({@link #shiftClock(Duration)}).
 */
public final class RedisServer {

    static final String HOST = "127.0.0.1";
    private static final Duration STARTUP = Duration.ofSeconds(10);
    private static final Duration EXIT = Duration.ofSeconds(10);
    private static final Duration REPLY = Duration.ofSeconds(2);
    private static final Duration POLL = Duration.ofMillis(10);

    /** The port was taken between choosing it and binding it. */
    static final class PortInUse extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        PortInUse(String message) {
            super(message);
        }
    }

    /** libfaketime and tcmalloc as Debian installs them (scripts/ensure-services.sh). */
    static final Path LIBFAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");
    /**
     * Preloaded before libfaketime: in Debian's redis-server, linked with jemalloc, libfaketime's
     * start-up and jemalloc's deadlock (each calls the other while holding its own lock); with
     * tcmalloc serving malloc, libfaketime starts before jemalloc does.
     */
    static final Path TCMALLOC = Path.of("/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4");

    private final RedisServers owner;
    private final int port;
    private final Path directory;
    private final boolean shiftableClock;
    private final List<String> options;
    private Process process;
    private boolean paused;

    /** {@code options}: more {@code redis-server} options, after the fixed ones. */
    RedisServer(RedisServers owner, int port, Path directory, boolean shiftableClock, List<String> options) {
        this.owner = owner;
        this.port = port;
        this.directory = directory;
        this.shiftableClock = shiftableClock;
        this.options = List.copyOf(options);
    }

    /** Always {@code 127.0.0.1}. */
    public String host() {
        return HOST;
    }

    public int port() {
        return port;
    }

    /** A Lettuce-style URI, {@code redis://127.0.0.1:<port>}. */
    public String uri() {
        return "redis://" + HOST + ":" + port;
    }

    /**
     * The process id of the running server.
     *
     * @throws IllegalStateException if it is not running
     */
    public synchronized long pid() {
        return running().pid();
    }

    /** True while the process is alive, paused or not. */
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** True between {@link #pause()} and {@link #resume()} (or the process's end). */
    public synchronized boolean isPaused() {
        return paused && isRunning();
    }

    /**
     * Makes this server a replica of {@code primary} ({@code REPLICAOF}) and waits until the
     * replication link is up and the initial sync is done.
     *
     * @throws IllegalStateException if the link is not up within 10 seconds
     */
    public void replicaOf(RedisServer primary) {
        call("REPLICAOF", primary.host(), Integer.toString(primary.port()));
        long deadline = System.nanoTime() + STARTUP.toNanos();
        String info = "";
        while (System.nanoTime() < deadline) {
            info = String.valueOf(call("INFO", "replication"));
            if (info.contains("master_link_status:up") && info.contains("master_sync_in_progress:0")) {
                return;
            }
            pauseBriefly();
        }
        throw new IllegalStateException(this + " did not connect to its primary " + primary
                + " within " + STARTUP.toSeconds() + " s. INFO replication:\n" + info);
    }

    /** Makes this server a primary again ({@code REPLICAOF NO ONE}); it keeps its data. */
    public void promote() {
        call("REPLICAOF", "NO", "ONE");
    }

    /**
     * Stops the process with SIGSTOP and returns once the kernel reports it stopped. Clients can
     * still connect (the kernel accepts the connection) but get no reply until {@link #resume()}.
     */
    public synchronized void pause() {
        Process running = running();
        if (paused) {
            return;
        }
        signal(running, "STOP");
        awaitState(running, 'T');
        paused = true;
    }

    /** Continues a paused process with SIGCONT. Does nothing when it is not paused. */
    public synchronized void resume() {
        if (!paused) {
            return;
        }
        paused = false;
        if (isRunning()) {
            signal(process, "CONT");
        }
    }

    /**
     * Shuts the server down cleanly ({@code SHUTDOWN NOSAVE}) and waits for the process to
     * end. A paused server is resumed first. Does nothing when it is not running.
     */
    public synchronized void stop() {
        if (!isRunning()) {
            return;
        }
        resume();
        try {
            Resp.once(HOST, port, REPLY, "SHUTDOWN", "NOSAVE");
        } catch (IOException expected) {
            // The server closes the connection instead of replying.
        }
        awaitExit(process, "SHUTDOWN NOSAVE");
    }

    /** Kills the process with SIGKILL (paused or not) and waits for it to end. Idempotent. */
    public synchronized void kill() {
        paused = false;
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        awaitExit(process, "SIGKILL");
    }

    /**
     * Stops the server if it is running, then starts a fresh one on the same port and returns
     * once it answers {@code PING}. The new server is an empty primary (a snapshot taken
     * before is deleted).
     */
    public synchronized void restart() {
        owner.checkOpen();
        stop();
        try {
            Files.deleteIfExists(snapshotFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the snapshot of " + this, e);
        }
        launch();
    }

    /** Writes an RDB snapshot of the current data ({@code SAVE}) and returns once it is on disk. */
    public void snapshot() {
        Object reply = call("SAVE");
        if (!"OK".equals(reply)) {
            throw new IllegalStateException(this + " did not save a snapshot: " + reply);
        }
    }

    /**
     * Kills the server (SIGKILL, as a crash would), then starts it again on the same port from
     * the last {@link #snapshot()}: every write after the snapshot is lost.
     *
     * @throws IllegalStateException if no snapshot was taken
     */
    public synchronized void crashAndRestartFromSnapshot() {
        owner.checkOpen();
        if (!Files.exists(snapshotFile())) {
            throw new IllegalStateException(this + " has no snapshot to restart from: call snapshot() first");
        }
        kill();
        launch();
    }

    /**
     * Sets this server's wall clock (what {@code TIME} and key expiry read) {@code offset} away
     * from the real one, from now on (negative: back). Its monotonic clock is left alone.
     *
     * @throws IllegalStateException if it was not started with {@link RedisServers#startWithShiftableClock()}
     */
    public void shiftClock(Duration offset) {
        if (!shiftableClock) {
            throw new IllegalStateException(this + " was not started with a shiftable clock");
        }
        try {
            Files.writeString(clockFile(), String.format(java.util.Locale.ROOT, "%+.6f%n", offset.toNanos() / 1e9));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot shift the clock of " + this, e);
        }
    }

    private Path snapshotFile() {
        return directory.resolve("dump.rdb");
    }

    private Path clockFile() {
        return directory.resolve("clock-offset");
    }

    /** Sends one command on a fresh connection and returns the reply (see {@link Resp}). */
    Object call(String... command) {
        try {
            return Resp.once(HOST, port, REPLY, command);
        } catch (IOException e) {
            throw new UncheckedIOException(this + " did not answer " + command[0], e);
        }
    }

    synchronized void launch() {
        try {
            Files.createDirectories(directory);
            Path pidFile = directory.resolve("redis.pid");
            Files.deleteIfExists(pidFile);
            List<String> command = new ArrayList<>(List.of(owner.executable(),
                    "--port", Integer.toString(port), "--bind", HOST,
                    "--save", "", "--appendonly", "no", "--daemonize", "no",
                    // A replica's first sync would otherwise wait 5 s for more replicas to join.
                    "--repl-diskless-sync-delay", "0",
                    "--dir", directory.toString(), "--pidfile", pidFile.toString()));
            command.addAll(options);
            ProcessBuilder builder = new ProcessBuilder(command)
                    .directory(directory.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log().toFile()));
            if (shiftableClock) {
                if (!Files.exists(clockFile())) {
                    Files.writeString(clockFile(), "+0\n");
                }
                builder.environment().put("LD_PRELOAD", TCMALLOC + " " + LIBFAKETIME);
                builder.environment().put("FAKETIME_TIMESTAMP_FILE", clockFile().toString());
                builder.environment().put("FAKETIME_NO_CACHE", "1");
                builder.environment().put("FAKETIME_DONT_FAKE_MONOTONIC", "1");
            }
            process = builder.start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + owner.executable() + " on port " + port, e);
        }
        paused = false;
        ProcessReaper.register(process);
        awaitPing(process);
    }

    private void awaitPing(Process started) {
        long deadline = System.nanoTime() + STARTUP.toNanos();
        IOException last = null;
        while (System.nanoTime() < deadline) {
            if (!started.isAlive()) {
                String log = logTail();
                String message = "redis-server on port " + port + " exited with code " + started.exitValue()
                        + " while starting. End of its log:\n" + log;
                throw log.contains("Address already in use") ? new PortInUse(message) : new IllegalStateException(message);
            }
            try {
                if ("PONG".equals(Resp.once(HOST, port, REPLY, "PING"))) {
                    return;
                }
            } catch (IOException e) {
                last = e;
            }
            pauseBriefly();
        }
        started.destroyForcibly();
        throw new IllegalStateException("redis-server on port " + port + " did not answer PING within "
                + STARTUP.toSeconds() + " s. End of its log:\n" + logTail(), last);
    }

    private Process running() {
        if (!isRunning()) {
            throw new IllegalStateException(this + " is not running");
        }
        return process;
    }

    private void awaitExit(Process target, String how) {
        try {
            if (!target.waitFor(EXIT.toMillis(), TimeUnit.MILLISECONDS)) {
                target.destroyForcibly();
                if (!target.waitFor(EXIT.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException(this + " (pid " + target.pid() + ") did not end after " + how);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            target.destroyForcibly();
            throw new IllegalStateException("interrupted while waiting for " + this + " to end", e);
        }
        try {
            Files.deleteIfExists(directory.resolve("redis.pid"));
        } catch (IOException ignored) {
            // The watchdog only reads pid files of processes that may still run.
        }
    }

    private static void signal(Process target, String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(target.pid()))
                    .redirectErrorStream(true).start();
            String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + target.pid() + " failed: " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill -" + signal, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending SIG" + signal, e);
        }
    }

    /** Waits until /proc reports the process in {@code state} (Linux); elsewhere returns at once. */
    private static void awaitState(Process target, char state) {
        Path stat = Path.of("/proc", Long.toString(target.pid()), "stat");
        if (!Files.exists(stat)) {
            return;
        }
        long deadline = System.nanoTime() + EXIT.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                String text = Files.readString(stat);
                // pid (comm) state ...: comm may hold spaces, so read after the last ')'.
                if (text.charAt(text.lastIndexOf(')') + 2) == state) {
                    return;
                }
            } catch (IOException | IndexOutOfBoundsException e) {
                return;
            }
            pauseBriefly();
        }
        throw new IllegalStateException("process " + target.pid() + " did not reach state " + state);
    }

    private static void pauseBriefly() {
        try {
            Thread.sleep(POLL.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for redis-server", e);
        }
    }

    private Path log() {
        return directory.resolve("redis.log");
    }

    private String logTail() {
        try {
            String text = Files.readString(log(), StandardCharsets.UTF_8);
            return text.length() <= 2000 ? text : text.substring(text.length() - 2000);
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    @Override
    public String toString() {
        return "redis-server " + HOST + ":" + port;
    }
}
