package dev.fencing.testing;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Makes sure no {@code redis-server} started by a test outlives the JVM: a shutdown hook kills
 * the live ones when the JVM exits, and a watchdog shell kills them from their pid files when
 * the JVM is killed and cannot run hooks.
 */
final class ProcessReaper {

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ProcessReaper::killAll, "fencing-redis-reaper"));
    }

    /**
     * Waits for the JVM to die, then SIGKILLs every process whose pid file lies one level below
     * {@code $2} and whose command line still names redis (pids are reused), and removes the
     * directory. Sleeping one second between checks keeps it cheap.
     */
    private static final String WATCHDOG = String.join("\n",
            "while kill -0 \"$1\" 2>/dev/null; do sleep 1; done",
            "for f in \"$2\"/*/redis.pid; do",
            "  [ -f \"$f\" ] || continue",
            "  p=$(cat \"$f\")",
            "  if [ ! -d /proc ] || grep -q redis \"/proc/$p/cmdline\" 2>/dev/null; then kill -9 \"$p\" 2>/dev/null; fi",
            "done",
            "rm -rf \"$2\"");

    private ProcessReaper() {
    }

    static void register(Process process) {
        LIVE.add(process);
        process.onExit().thenRun(() -> LIVE.remove(process));
    }

    /** Starts the watchdog for the servers under {@code root}; stop it with {@code destroy()}. */
    static Process watchdog(Path root) {
        try {
            return new ProcessBuilder("sh", "-c", WATCHDOG, "fencing-redis-watchdog",
                    Long.toString(ProcessHandle.current().pid()), root.toString())
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the watchdog shell (sh) that guards redis-server processes", e);
        }
    }

    private static void killAll() {
        for (Process process : LIVE) {
            process.destroyForcibly();
        }
    }
}
