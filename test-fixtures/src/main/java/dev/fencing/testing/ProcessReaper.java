package dev.fencing.testing;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Makes sure no server process started by a test ({@code redis-server}, {@code pgbouncer})
 * outlives the JVM: a shutdown hook kills the live ones when the JVM exits, and a watchdog shell
 * kills them from their pid files when the JVM is killed and cannot run hooks.
 */
final class ProcessReaper {

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ProcessReaper::killAll, "fencing-server-reaper"));
    }

    /**
     * Waits for the JVM to die, then SIGKILLs every process whose pid file (named {@code $3})
     * lies one level below {@code $2} and whose command line still names {@code $4} (pids are
     * reused), and removes the directory. Sleeping one second between checks keeps it cheap.
     */
    private static final String WATCHDOG = String.join("\n",
            "while kill -0 \"$1\" 2>/dev/null; do sleep 1; done",
            "for f in \"$2\"/*/\"$3\"; do",
            "  [ -f \"$f\" ] || continue",
            "  p=$(cat \"$f\")",
            "  if [ ! -d /proc ] || grep -q \"$4\" \"/proc/$p/cmdline\" 2>/dev/null; then kill -9 \"$p\" 2>/dev/null; fi",
            "done",
            "rm -rf \"$2\"");

    private ProcessReaper() {
    }

    static void register(Process process) {
        LIVE.add(process);
        process.onExit().thenRun(() -> LIVE.remove(process));
    }

    /** Starts the watchdog for the redis-servers under {@code root}; stop it with {@code destroy()}. */
    static Process watchdog(Path root) {
        return watchdog(root, "redis.pid", "redis");
    }

    /**
     * Starts the watchdog for the servers under {@code root}, each with its pid in
     * {@code <root>/<server>/<pidFile>} and {@code commandMarker} in its command line; stop it
     * with {@code destroy()}.
     */
    static Process watchdog(Path root, String pidFile, String commandMarker) {
        try {
            return new ProcessBuilder("sh", "-c", WATCHDOG, "fencing-server-watchdog",
                    Long.toString(ProcessHandle.current().pid()), root.toString(), pidFile, commandMarker)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the watchdog shell (sh) that guards " + commandMarker + " processes", e);
        }
    }

    private static void killAll() {
        for (Process process : LIVE) {
            process.destroyForcibly();
        }
    }
}
