package dev.fencing.testing.locks;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A throw-away etcd cluster of real {@code etcd} processes on loopback ports chosen at run
 * time, for tests that kill, pause and restart members.
 *
 * <pre>{@code
 * try (EtcdCluster cluster = EtcdCluster.start(3)) {
 *     EtcdFencedLocks locks = EtcdFencedLocks.create(cluster.uri());   // etcd://127.0.0.1:p1,...
 *     cluster.leader().process().kill();                               // SIGKILL
 *     cluster.awaitLeader(Duration.ofSeconds(15));
 * }
 * }</pre>
 *
 * <h2>Timing on a small, shared machine</h2>
 * etcd's defaults (heartbeat 100 ms, election timeout 1000 ms) assume members that are
 * scheduled promptly. On a 2-core machine shared with builds, a member that misses ten
 * heartbeats starts an election. A cluster of several members therefore runs with heartbeat
 * 150 ms and election timeout 1500 ms, and with pre-vote on, so that a member that was paused
 * (SIGSTOP) and resumes does not depose a healthy leader. etcd's smallest lease TTL follows
 * from these: {@code 1.5 * electionTicks * heartbeat} = 2.25 s, rounded up to 3 s. A single
 * member never holds an election against anyone, so it runs with 50/500 ms: a 1 s minimum TTL.
 *
 * <p>The binary is {@code etcd} on the {@code PATH} (Debian {@code etcd-server}; installed by
 * {@code scripts/ensure-services.sh}), or {@code FENCING_ETCD_BINARY}.
 */
public final class EtcdCluster extends ServerCluster<EtcdCluster.Member> {

    private static final Duration STARTUP = Duration.ofSeconds(30);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    /** One member: its process and client port. */
    public static final class Member extends ServerCluster.Member {
        private final boolean tls;

        Member(ServerProcess process, int clientPort, boolean tls) {
            super(process, clientPort);
            this.tls = tls;
        }

        @Override
        public boolean isLeader() {
            return metric("etcd_server_is_leader").map(v -> v == 1).orElse(false);
        }

        /**
         * Whether this member answers {@code /health} with a leader known (a TLS member that
         * requires client certificates: whether it accepts connections).
         */
        public boolean isHealthy() {
            if (tls) {
                if (!process().isRunning() || process().isPaused()) {
                    return false;
                }
                try (java.net.Socket socket = new java.net.Socket()) {
                    socket.connect(new java.net.InetSocketAddress("127.0.0.1", clientPort()), 1000);
                    return true;
                } catch (IOException e) {
                    return false;
                }
            }
            return get("/health").map(body -> body.contains("\"health\":\"true\"")).orElse(false);
        }

        @Override
        boolean serves() {
            return isHealthy();
        }

        private Optional<Double> metric(String name) {
            return get("/metrics").flatMap(body -> body.lines()
                    .filter(line -> line.startsWith(name + " "))
                    .findFirst()
                    .map(line -> Double.parseDouble(line.substring(name.length() + 1).trim())));
        }

        private Optional<String> get(String path) {
            if (!process().isRunning() || process().isPaused()) {
                return Optional.empty();
            }
            try {
                HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + endpoint() + path))
                        .timeout(Duration.ofSeconds(2)).build();
                HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
                return response.statusCode() == 200 ? Optional.of(response.body()) : Optional.empty();
            } catch (IOException e) {
                return Optional.empty();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }
    }

    private EtcdCluster(Workspace workspace, List<Member> members) {
        super(workspace, members, STARTUP, "an etcd member is leader", "every running etcd member is healthy");
    }

    /** Starts {@code size} members and waits until the cluster has a leader and every member is healthy. */
    public static EtcdCluster start(int size) {
        return start(size, null);
    }

    /**
     * Starts one member that serves clients over TLS only and requires a client certificate
     * signed by {@code ca}: {@code --cert-file}, {@code --key-file}, {@code --client-cert-auth},
     * {@code --trusted-ca-file}. Peers talk plain HTTP (one member has none).
     */
    public static EtcdCluster startWithTls(Path ca, Path serverCert, Path serverKey) {
        return start(1, List.of("--cert-file", serverCert.toString(), "--key-file", serverKey.toString(),
                "--client-cert-auth=true", "--trusted-ca-file", ca.toString()));
    }

    private static EtcdCluster start(int size, List<String> tlsFlags) {
        boolean tls = tlsFlags != null;
        String scheme = tls ? "https://" : "http://";
        if (size < 1) {
            throw new IllegalArgumentException("an etcd cluster needs at least one member, got " + size);
        }
        String binary = System.getenv().getOrDefault("FENCING_ETCD_BINARY", "etcd");
        int heartbeat = size == 1 ? 50 : 150;
        int election = size == 1 ? 500 : 1500;
        Workspace workspace = Workspace.create("fencing-etcd-", "etcd");
        String token = workspace.root().getFileName().toString();
        int[] clientPorts = freePorts(size);
        int[] peerPorts = freePorts(size);
        List<String> initialCluster = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            initialCluster.add("m" + i + "=http://127.0.0.1:" + peerPorts[i]);
        }
        List<Member> members = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            Path directory = workspace.member("m" + i);
            List<String> command = new ArrayList<>(List.of(binary,
                    "--name", "m" + i,
                    "--data-dir", directory.resolve("data").toString(),
                    "--listen-client-urls", scheme + "127.0.0.1:" + clientPorts[i],
                    "--advertise-client-urls", scheme + "127.0.0.1:" + clientPorts[i],
                    "--listen-peer-urls", "http://127.0.0.1:" + peerPorts[i],
                    "--initial-advertise-peer-urls", "http://127.0.0.1:" + peerPorts[i],
                    "--initial-cluster", String.join(",", initialCluster),
                    "--initial-cluster-state", "new",
                    "--initial-cluster-token", token,
                    "--heartbeat-interval", Integer.toString(heartbeat),
                    "--election-timeout", Integer.toString(election),
                    "--pre-vote=true",
                    "--logger", "zap",
                    "--log-level", "warn"));
            if (tls) {
                command.addAll(tlsFlags);
            }
            members.add(new Member(new ServerProcess("etcd m" + i, command, directory), clientPorts[i], tls));
        }
        EtcdCluster cluster = new EtcdCluster(workspace, members);
        cluster.startMembers("etcd cluster of " + size + " did not start (" + binary + ")");
        return cluster;
    }

    /** {@code etcd://127.0.0.1:p1,127.0.0.1:p2,...} ({@code etcds://} with TLS): every member, for EtcdFencedLocks. */
    public String uri() {
        return (members().get(0).tls ? "etcds://" : "etcd://") + endpoints();
    }

    /** Waits until every running, unpaused member is healthy (knows a leader). */
    public void awaitHealthy(Duration timeout) {
        awaitEveryRunningMemberServes(timeout);
    }
}
