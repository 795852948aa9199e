package dev.fencing.testing.locks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * One server process (an etcd member, a ZooKeeper server) started by a test: it can be killed
 * (SIGKILL), paused (SIGSTOP), resumed and started again on the same ports and data directory.
 *
 * <p>No process outlives the JVM that started it: a shutdown hook kills the live ones, and a
 * watchdog shell per root directory ({@code reapOnExit}) kills them from their pid files
 * when the JVM is killed and cannot run hooks.
 */
public final class ServerProcess {

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly),
                "fencing-server-reaper"));
    }

    /** Kills every process whose pid file lies one level below $2 once the JVM ($1) is gone. */
    private static final String WATCHDOG = String.join("\n",
            "while kill -0 \"$1\" 2>/dev/null; do sleep 1; done",
            "for f in \"$2\"/*/server.pid; do",
            "  [ -f \"$f\" ] || continue",
            "  p=$(cat \"$f\")",
            "  if grep -q \"$3\" \"/proc/$p/cmdline\" 2>/dev/null; then kill -9 \"$p\" 2>/dev/null; fi",
            "done",
            "rm -rf \"$2\"");

    private final String name;
    private final List<String> command;
    private final Path directory;
    private Process process;
    private boolean paused;

    /**
     * @param directory the server's own directory: its pid file and log live there, and its
     *        data below it
     */
    ServerProcess(String name, List<String> command, Path directory) {
        this.name = name;
        this.command = List.copyOf(command);
        this.directory = directory;
    }

    /** Starts the watchdog that removes {@code root} and kills the servers below it when this JVM dies. */
    static Process reapOnExit(Path root, String commandMarker) {
        try {
            return new ProcessBuilder("sh", "-c", WATCHDOG, "fencing-server-watchdog",
                    Long.toString(ProcessHandle.current().pid()), root.toString(), commandMarker)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the watchdog shell (sh) that guards test servers", e);
        }
    }

    /** A loopback port nobody listens on right now. */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    public String name() {
        return name;
    }

    /** Starts the process (again); its output goes to {@code server.log} in its directory. */
    synchronized void start() {
        if (isRunning()) {
            throw new IllegalStateException(name + " is already running");
        }
        try {
            Files.createDirectories(directory);
            Path log = directory.resolve("server.log");
            process = new ProcessBuilder(command)
                    .directory(directory.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            LIVE.add(process);
            Process started = process;
            started.onExit().thenRun(() -> LIVE.remove(started));
            Files.writeString(directory.resolve("server.pid"), Long.toString(process.pid()), StandardCharsets.US_ASCII);
            paused = false;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + command.get(0), e);
        }
    }

    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    public synchronized boolean isPaused() {
        return paused && isRunning();
    }

    public synchronized long pid() {
        return running().pid();
    }

    /** SIGKILL, and waits until the process is gone. */
    public synchronized void kill() {
        Process running = running();
        running.destroyForcibly();
        try {
            if (!running.waitFor(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException(name + " did not die within 10 s of SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while killing " + name, e);
        }
        paused = false;
    }

    /** SIGSTOP: the process keeps its sockets but answers nothing until {@link #resume()}. */
    public synchronized void pause() {
        signal("STOP");
        paused = true;
    }

    /** SIGCONT. */
    public synchronized void resume() {
        signal("CONT");
        paused = false;
    }

    /** Stops the process (SIGKILL: servers under test must survive it) if it runs. */
    synchronized void stop() {
        if (isRunning()) {
            if (paused) {
                signal("CONT");
            }
            kill();
        }
    }

    /** The last lines of the server's log, for failure messages. */
    String logTail() {
        try {
            List<String> lines = Files.readAllLines(directory.resolve("server.log"), StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private void signal(String signal) {
        long pid = running().pid();
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid + " (" + name + ") failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill -" + signal, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling " + name, e);
        }
    }

    private Process running() {
        if (!isRunning()) {
            throw new IllegalStateException(name + " is not running");
        }
        return process;
    }

    /** Polls {@code condition} every 20 ms until it holds, or fails naming {@code what}. */
    public static void awaitUntil(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout + " waiting until " + what);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting until " + what, e);
            }
        }
    }

    static List<String> concat(List<String> first, List<String> second) {
        List<String> all = new ArrayList<>(first);
        all.addAll(second);
        return all;
    }

    @Override
    public String toString() {
        return name;
    }
}
