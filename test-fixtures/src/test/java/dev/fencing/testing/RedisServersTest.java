package dev.fencing.testing;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link RedisServers} against real {@code redis-server} processes. */
class RedisServersTest {

    private static final Duration SHORT = Duration.ofMillis(300);

    private static RedisServers servers;

    @BeforeAll
    static void start() {
        servers = new RedisServers();
    }

    @AfterAll
    static void stopAll() {
        servers.close();
    }

    @Test
    void startsAServerThatAnswersOnItsOwnLoopbackPort() throws IOException {
        RedisServer server = servers.start();
        assertTrue(server.isRunning());
        assertEquals("redis://127.0.0.1:" + server.port(), server.uri());
        assertEquals("PONG", ping(server));
        assertEquals("", config(server, "save"), "no snapshots");
        assertEquals("no", config(server, "appendonly"));
        assertNotEquals(server.port(), servers.start().port());
    }

    @Test
    void replicaFollowsItsPrimaryAndCanBePromoted() throws IOException {
        RedisServer primary = servers.start();
        RedisServer replica = servers.start();
        replica.replicaOf(primary);
        try (Resp connection = Resp.connect(primary.host(), primary.port(), Duration.ofSeconds(5))) {
            connection.call("SET", "fence", "34");
            // WAIT counts replicas that have this connection's writes: it must share the connection.
            assertEquals(1L, connection.call("WAIT", "1", "5000"));
        }
        assertEquals("34", replica.call("GET", "fence"));
        assertTrue(String.valueOf(replica.call("INFO", "replication")).contains("role:slave"));

        replica.promote();
        assertTrue(String.valueOf(replica.call("INFO", "replication")).contains("role:master"));
        assertEquals("34", replica.call("GET", "fence"), "a promoted replica keeps what it had");
    }

    @Test
    void aCrashAfterASnapshotLosesTheWritesAfterIt_andARestartLosesEverything() throws IOException {
        RedisServer server = servers.start();
        server.call("SET", "fence", "3");
        server.snapshot();
        server.call("SET", "fence", "4");
        server.crashAndRestartFromSnapshot();
        assertEquals("3", server.call("GET", "fence"), "the snapshot's value, not the one written after it");
        server.restart();
        assertNull(server.call("GET", "fence"), "a restart starts empty");
        assertThrows(IllegalStateException.class, server::crashAndRestartFromSnapshot);
    }

    @Test
    void aClusterNodeRunsInClusterModeAndKeepsItsNodeIdAcrossARestart() {
        RedisServer node = servers.startClusterNode();
        assertTrue(String.valueOf(node.call("INFO", "cluster")).contains("cluster_enabled:1"));
        Object id = node.call("CLUSTER", "MYID");
        node.restart();
        assertEquals(id, node.call("CLUSTER", "MYID"), "nodes.conf survives the restart");
        assertTrue(String.valueOf(servers.start().call("INFO", "cluster")).contains("cluster_enabled:0"));
    }

    @Test
    void aShiftableClockMovesWhatTimeReports() throws IOException {
        Assumptions.assumeTrue(RedisServers.shiftableClocksAvailable(),
                "libfaketime and tcmalloc are not installed (scripts/ensure-services.sh installs them)");
        RedisServer server = servers.startWithShiftableClock();
        long real = serverSeconds(server);
        server.shiftClock(Duration.ofSeconds(-3600));
        long shifted = serverSeconds(server);
        assertTrue(Math.abs(real - 3600 - shifted) <= 2, "TIME after setting the clock back an hour: " + shifted
                + ", before: " + real);
        assertThrows(IllegalStateException.class, () -> servers.start().shiftClock(Duration.ofSeconds(1)));
    }

    private static long serverSeconds(RedisServer server) {
        return Long.parseLong(String.valueOf(((List<?>) server.call("TIME")).get(0)));
    }

    @Test
    void pausedServerHangsUntilResumed() throws IOException {
        RedisServer server = servers.start();
        server.pause();
        assertTrue(server.isPaused());
        assertTrue(server.isRunning());
        assertThrows(SocketTimeoutException.class, () -> Resp.once(RedisServer.HOST, server.port(), SHORT, "PING"));
        server.resume();
        assertFalse(server.isPaused());
        assertEquals("PONG", ping(server));
    }

    @Test
    void killedServerIsGoneAndRestartsEmptyOnTheSamePort() throws IOException {
        RedisServer server = servers.start();
        server.call("SET", "k", "v");
        long pid = server.pid();
        server.kill();
        assertFalse(server.isRunning());
        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
        assertThrows(ConnectException.class, () -> ping(server));

        server.restart();
        assertTrue(server.isRunning());
        assertNotEquals(pid, server.pid());
        assertEquals("PONG", ping(server));
        assertNull(server.call("GET", "k"), "no persistence: a restarted server is empty");
    }

    @Test
    void stopShutsDownCleanlyEvenWhenPaused() {
        RedisServer server = servers.start();
        server.pause();
        server.stop();
        assertFalse(server.isRunning());
        assertThrows(ConnectException.class, () -> ping(server));
        server.restart();
        server.restart();
        assertTrue(server.isRunning());
    }

    @Test
    void closeKillsEveryServerPausedOrNot() {
        RedisServers own = new RedisServers();
        RedisServer running = own.start();
        RedisServer paused = own.start();
        paused.pause();
        own.close();
        assertFalse(running.isRunning());
        assertFalse(paused.isRunning());
        assertThrows(ConnectException.class, () -> ping(running));
        assertThrows(IllegalStateException.class, own::start);
        own.close();
    }

    @Test
    void missingExecutableFailsWithAClearMessage() {
        IllegalStateException error = assertThrows(IllegalStateException.class,
                () -> new RedisServers("no-such-redis-server-7f3a"));
        assertTrue(error.getMessage().startsWith("no-such-redis-server-7f3a is not on PATH"), error.getMessage());
        assertTrue(error.getMessage().contains("apt-get install redis-server"), error.getMessage());
        assertThrows(IllegalStateException.class, () -> new RedisServers("/no/such/redis-server"));
    }

    @Test
    void serversOfAJvmThatExitsWithoutClosingAreKilledByTheShutdownHook() throws Exception {
        assertProbeLeavesNothing("exit");
    }

    @Test
    void serversOfAKilledJvmAreKilledByTheWatchdog() throws Exception {
        assertProbeLeavesNothing("hang");
    }

    /**
     * Starts {@link RedisOrphanProbe} in a JVM of its own; it starts a server, pauses it and
     * then exits without closing ({@code exit}) or waits to be SIGKILLed ({@code hang}).
     * Afterwards the server must not answer.
     */
    private static void assertProbeLeavesNothing(String mode) throws Exception {
        Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
        Process probe = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                RedisOrphanProbe.class.getName(), mode)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(probe.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            assertTrue(line != null && line.startsWith("port "), "the probe printed " + line);
            int port = Integer.parseInt(line.substring(5).trim());
            if (mode.equals("hang")) {
                probe.destroyForcibly();
            }
            assertTrue(probe.waitFor(20, TimeUnit.SECONDS), "the probe JVM did not end");
            awaitRefused(port, Duration.ofSeconds(10));
        } finally {
            probe.destroyForcibly();
        }
    }

    private static void awaitRefused(int port, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                Resp.once(RedisServer.HOST, port, SHORT, "PING");
            } catch (ConnectException refused) {
                return;
            } catch (IOException stillThere) {
                // paused or answering: not gone yet
            }
            Thread.sleep(50);
        }
        throw new AssertionError("a redis-server still listens on port " + port + " after its JVM ended");
    }

    private static Object ping(RedisServer server) throws IOException {
        return Resp.once(RedisServer.HOST, server.port(), SHORT, "PING");
    }

    private static String config(RedisServer server, String key) {
        List<?> reply = (List<?>) server.call("CONFIG", "GET", key);
        return String.valueOf(reply.get(1));
    }
}
