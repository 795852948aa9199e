package dev.fencing.testing.locks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Server processes on loopback ports that together make one replicated store: what
 * {@link EtcdCluster} and {@link ZooKeeperEnsemble} have in common, and the type that
 * {@link ClusterFailoverContractTest} kills, pauses and restarts members of. Only the fixtures
 * of this package extend it: each supplies its server's command line and how to ask a member
 * whether it leads and whether it serves.
 *
 * <p>Every member lives in a directory of its own below one temporary root (its data, its
 * {@code server.log}, its pid file); a watchdog shell removes the root and kills the members when
 * the JVM dies without running {@link #close()}.
 *
 * @param <M> the store's member type
 */
public abstract class ServerCluster<M extends ServerCluster.Member> implements AutoCloseable {

    private final Workspace workspace;
    private final List<M> members;
    private final Duration startup;
    private final String leaderElected;
    private final String everyMemberServes;

    /** One server process of the cluster and the loopback port it serves clients on. */
    public abstract static class Member {
        private final ServerProcess process;
        private final int clientPort;

        Member(ServerProcess process, int clientPort) {
            this.process = process;
            this.clientPort = clientPort;
        }

        public ServerProcess process() {
            return process;
        }

        public int clientPort() {
            return clientPort;
        }

        /** {@code 127.0.0.1:port}. */
        public String endpoint() {
            return "127.0.0.1:" + clientPort;
        }

        /** Whether this member answers and reports itself the leader. */
        public abstract boolean isLeader();

        /** Whether this member answers clients now (a leader is known to it). */
        abstract boolean serves();

        @Override
        public String toString() {
            return process.name() + "@" + endpoint();
        }
    }

    /**
     * The temporary root of a cluster's member directories and the watchdog that cleans up
     * after a JVM that died before {@link ServerCluster#close()}.
     */
    record Workspace(Path root, Process watchdog) {

        /**
         * @param commandMarker text in the members' command lines, so that the watchdog kills
         *        only processes that are still this cluster's servers (pids are reused)
         */
        static Workspace create(String prefix, String commandMarker) {
            Path root;
            try {
                root = Files.createTempDirectory(memoryBackedTemp(), prefix);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return new Workspace(root, ServerProcess.reapOnExit(root, commandMarker));
        }

        /**
         * /dev/shm where it is a writable directory, else the JVM's temporary directory: the
         * servers sync their logs to disk at every write, and on a machine whose disk the build
         * keeps busy one sync took seconds, so a test's lock call ran out of time on a server that
         * was only waiting for the disk. A test cluster keeps nothing worth a disk.
         */
        private static Path memoryBackedTemp() {
            Path shm = Path.of("/dev/shm");
            return Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
        }

        /** A member's own directory. */
        Path member(String name) {
            return root.resolve(name);
        }

        void discard() {
            watchdog.destroy();
            deleteRecursively(root);
        }
    }

    /**
     * @param startup how long the members may take to serve at start, and again after the
     *        failover tests heal the cluster
     * @param leaderElected what {@link #awaitLeader} waits for, for its timeout message
     * @param everyMemberServes what {@link #awaitEveryRunningMemberServes} waits for
     */
    ServerCluster(Workspace workspace, List<M> members, Duration startup, String leaderElected,
            String everyMemberServes) {
        this.workspace = workspace;
        this.members = List.copyOf(members);
        this.startup = startup;
        this.leaderElected = leaderElected;
        this.everyMemberServes = everyMemberServes;
    }

    /** {@code count} loopback ports nobody listens on right now. */
    static int[] freePorts(int count) {
        return IntStream.range(0, count).map(i -> ServerProcess.freePort()).toArray();
    }

    /**
     * Starts every member and waits until each serves. A member that exits, or a cluster that
     * does not serve in time, closes the cluster and fails with {@code failure} and the tail of
     * every member's log.
     */
    final void startMembers(String failure) {
        try {
            members.forEach(member -> member.process().start());
            requireEveryMemberRunning();
            awaitEveryRunningMemberServes(startup);
            requireEveryMemberRunning();
        } catch (RuntimeException | Error e) {
            String logs = members.stream().map(m -> m + ":\n" + m.process().logTail()).collect(Collectors.joining("\n"));
            close();
            throw new IllegalStateException(failure + ": " + e.getMessage() + "\n" + logs, e);
        }
    }

    private void requireEveryMemberRunning() {
        for (M member : members) {
            if (!member.process().isRunning()) {
                throw new IllegalStateException(member + " exited at start");
            }
        }
    }

    public List<M> members() {
        return members;
    }

    /** {@code 127.0.0.1:p1,127.0.0.1:p2,...}: every member's client endpoint. */
    final String endpoints() {
        return members.stream().map(Member::endpoint).collect(Collectors.joining(","));
    }

    /** How long the members may take to serve after a start or a restart. */
    final Duration startupTimeout() {
        return startup;
    }

    /** The current leader, waiting up to {@code timeout} for one to be elected. */
    public M awaitLeader(Duration timeout) {
        AtomicReference<M> leader = new AtomicReference<>();
        ServerProcess.awaitUntil(leaderElected, timeout, () -> {
            members.stream().filter(Member::isLeader).findFirst().ifPresent(leader::set);
            return leader.get() != null;
        });
        return leader.get();
    }

    /** Waits until every running, unpaused member serves clients. */
    final void awaitEveryRunningMemberServes(Duration timeout) {
        ServerProcess.awaitUntil(everyMemberServes, timeout, () -> members.stream()
                .filter(m -> m.process().isRunning() && !m.process().isPaused())
                .allMatch(Member::serves));
    }

    /** Starts a killed member again on its ports and data directory. */
    public void restart(M member) {
        member.process().start();
    }

    @Override
    public void close() {
        for (M member : members) {
            try {
                member.process().stop();
            } catch (RuntimeException e) {
                // keep stopping the others
            }
        }
        workspace.discard();
    }

    static void deleteRecursively(Path root) {
        try (var paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // a temp directory left behind is harmless
        }
    }
}
