package dev.fencing.testing.locks;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A throw-away ZooKeeper ensemble (or one standalone server) of real server processes: child
 * JVMs running {@code org.apache.zookeeper.server.quorum.QuorumPeerMain} from this JVM's own
 * class path, so the server version is the {@code org.apache.zookeeper:zookeeper} jar the test
 * depends on. Members can be killed (SIGKILL), paused (SIGSTOP) and restarted.
 *
 * <pre>{@code
 * try (ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.start(3)) {
 *     ZooKeeperFencedLocks locks = ZooKeeperFencedLocks.create(ensemble.uri());
 *     ensemble.awaitLeader(Duration.ofSeconds(20)).process().kill();
 * }
 * }</pre>
 *
 * <h2>Timing on a small, shared machine</h2>
 * {@code tickTime} 250 ms, {@code initLimit} 40 ticks (10 s for a follower to sync after a
 * restart), {@code syncLimit} 8 ticks (a follower that has not answered the leader for 2 s is
 * dropped; the default of a few ticks of 2 s is for dedicated machines, 5 ticks of 250 ms drops
 * followers of a loaded 2-core machine). Sessions may last 0.5 to 30 s. Servers run with
 * {@code forceSync=no} (a SIGKILLed process loses nothing the kernel already has; tests never
 * crash the kernel), a 96 MB heap, the serial collector and C1 only, so that three of them fit
 * beside a build. The admin HTTP server is off; the four-letter words {@code srvr} and
 * {@code ruok} are on, for {@link Member#isLeader()}.
 */
public final class ZooKeeperEnsemble extends ServerCluster<ZooKeeperEnsemble.Member> {

    private static final Duration STARTUP = Duration.ofSeconds(60);

    /** One server: its process and client port. */
    public static final class Member extends ServerCluster.Member {

        Member(ServerProcess process, int clientPort) {
            super(process, clientPort);
        }

        /** {@code leader}, {@code follower} or {@code standalone} when the server serves; empty otherwise. */
        public Optional<String> mode() {
            return fourLetterWord("srvr").flatMap(reply -> reply.lines()
                    .filter(line -> line.startsWith("Mode: "))
                    .map(line -> line.substring("Mode: ".length()).trim())
                    .findFirst());
        }

        /** Whether this server answers and leads the ensemble, or stands alone. */
        @Override
        public boolean isLeader() {
            return mode().map(mode -> mode.equals("leader") || mode.equals("standalone")).orElse(false);
        }

        @Override
        boolean serves() {
            return mode().isPresent();
        }

        private Optional<String> fourLetterWord(String word) {
            if (!process().isRunning() || process().isPaused()) {
                return Optional.empty();
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", clientPort()), 1000);
                socket.setSoTimeout(2000);
                OutputStream out = socket.getOutputStream();
                out.write(word.getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = socket.getInputStream();
                return Optional.of(new String(in.readAllBytes(), StandardCharsets.US_ASCII));
            } catch (IOException e) {
                return Optional.empty();
            }
        }
    }

    private ZooKeeperEnsemble(Workspace workspace, List<Member> members) {
        super(workspace, members, STARTUP, "a ZooKeeper server leads", "every running ZooKeeper server serves");
    }

    /** Starts {@code size} servers (1: standalone) without fsync, and waits until every one serves. */
    public static ZooKeeperEnsemble start(int size) {
        return start(size, false);
    }

    /**
     * Starts {@code size} servers (1: standalone) and waits until every one serves.
     *
     * @param forceSync whether servers fsync their transaction log before acknowledging, as
     *        production servers do (benchmarks); tests that only kill processes do not need it
     */
    public static ZooKeeperEnsemble start(int size, boolean forceSync) {
        if (size < 1) {
            throw new IllegalArgumentException("a ZooKeeper ensemble needs at least one server, got " + size);
        }
        Workspace workspace = Workspace.create("fencing-zookeeper-", "QuorumPeerMain");
        int[] clientPorts = freePorts(size);
        int[] quorumPorts = freePorts(size);
        int[] electionPorts = freePorts(size);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classPath = System.getProperty("java.class.path");
        List<Member> members = new ArrayList<>();
        try {
            for (int i = 0; i < size; i++) {
                Path directory = workspace.member("zk" + (i + 1));
                Path data = directory.resolve("data");
                Files.createDirectories(data);
                List<String> config = new ArrayList<>(List.of(
                        "tickTime=250",
                        "initLimit=40",
                        "syncLimit=8",
                        "minSessionTimeout=500",
                        "maxSessionTimeout=30000",
                        "dataDir=" + data,
                        "clientPort=" + clientPorts[i],
                        "clientPortAddress=127.0.0.1",
                        "maxClientCnxns=0",
                        "forceSync=" + (forceSync ? "yes" : "no"),
                        "preAllocSize=1024",
                        "admin.enableServer=false",
                        "4lw.commands.whitelist=srvr,ruok",
                        "autopurge.purgeInterval=0"));
                if (size > 1) {
                    config.add("standaloneEnabled=false");
                    for (int j = 0; j < size; j++) {
                        config.add("server." + (j + 1) + "=127.0.0.1:" + quorumPorts[j] + ":" + electionPorts[j]);
                    }
                    Files.writeString(data.resolve("myid"), Integer.toString(i + 1));
                }
                Path file = directory.resolve("zoo.cfg");
                Files.write(file, config, StandardCharsets.UTF_8);
                List<String> command = List.of(java, "-Xmx96m", "-Xss512k", "-XX:+UseSerialGC",
                        "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData",
                        "-Dzookeeper.admin.enableServer=false",
                        "-Dzookeeper.jmx.log4j.disable=true",
                        "-cp", classPath,
                        "org.apache.zookeeper.server.quorum.QuorumPeerMain", file.toString());
                members.add(new Member(new ServerProcess("zookeeper " + (i + 1), command, directory), clientPorts[i]));
            }
        } catch (IOException e) {
            workspace.discard();
            throw new UncheckedIOException("cannot write the ZooKeeper configuration under " + workspace.root(), e);
        }
        ZooKeeperEnsemble ensemble = new ZooKeeperEnsemble(workspace, members);
        ensemble.startMembers("ZooKeeper ensemble of " + size + " did not start");
        return ensemble;
    }

    /** {@code zookeeper://127.0.0.1:p1,127.0.0.1:p2,...}, every server, no chroot. */
    public String uri() {
        return "zookeeper://" + connectString();
    }

    /** {@code 127.0.0.1:p1,127.0.0.1:p2,...}. */
    public String connectString() {
        return endpoints();
    }

    /** Waits until every running, unpaused server serves clients (leads, follows or stands alone). */
    public void awaitServing(Duration timeout) {
        awaitEveryRunningMemberServes(timeout);
    }
}
