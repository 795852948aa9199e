package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import org.mariadb.jdbc.MariaDbDataSource;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A MariaDB server of the test's own, for server settings a test may not change on the shared one
 * ({@code innodb_rollback_on_timeout} is read-only at run time): a fresh data directory made by
 * {@code mariadb-install-db}, a free loopback port, stopped and deleted by {@link #close()} (and by a
 * shutdown hook, should the test not get that far). Binaries from {@code FENCING_MARIADB_BIN}
 * (default: on the PATH).
 */
final class MariaDbServerProcess implements AutoCloseable {

    private final Path dir;
    private final int port;
    private final Process process;
    private final Thread reaper;

    private MariaDbServerProcess(Path dir, int port, Process process) {
        this.dir = dir;
        this.port = port;
        this.process = process;
        this.reaper = new Thread(this::stop, "mariadb-" + port + "-reaper");
        Runtime.getRuntime().addShutdownHook(reaper);
    }

    /** Starts a server with {@code options} ({@code --name=value}) and a database named {@code test}. */
    static MariaDbServerProcess start(String... options) throws IOException, InterruptedException, SQLException {
        Path dir = Files.createTempDirectory("fencing-mariadb-");
        String bin = java.util.Objects.requireNonNullElse(System.getenv("FENCING_MARIADB_BIN"), "").trim();
        String prefix = bin.isEmpty() ? "" : bin + "/";
        run(dir, List.of(prefix + "mariadb-install-db", "--no-defaults", "--datadir=" + dir.resolve("data"),
                "--user=" + System.getProperty("user.name"), "--auth-root-authentication-method=normal",
                "--skip-test-db"));
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        List<String> command = new ArrayList<>(List.of(prefix + "mariadbd", "--no-defaults",
                "--datadir=" + dir.resolve("data"), "--user=" + System.getProperty("user.name"),
                "--port=" + port, "--bind-address=127.0.0.1", "--socket=" + dir.resolve("mysqld.sock"),
                "--pid-file=" + dir.resolve("mysqld.pid"), "--innodb-buffer-pool-size=16M", "--skip-log-bin",
                "--log-error=" + dir.resolve("error.log")));
        command.addAll(List.of(options));
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("stdout.log").toFile()).start();
        MariaDbServerProcess server = new MariaDbServerProcess(dir, port, process);
        try {
            server.awaitReady();
            try (Connection connection = server.dataSource("mysql").getConnection()) {
                connection.createStatement().execute("CREATE DATABASE test");
            }
            return server;
        } catch (SQLException | RuntimeException | InterruptedException e) {
            server.close();
            throw e;
        }
    }

    private static void run(Path dir, List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("install.log").toFile()).start();
        if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IOException(command.get(0) + " failed; see " + dir.resolve("install.log") + ": "
                    + Files.readString(dir.resolve("install.log")));
        }
    }

    private void awaitReady() throws InterruptedException, SQLException {
        SQLException last = null;
        for (int attempt = 0; attempt < 150; attempt++) {
            if (!process.isAlive()) {
                throw new IllegalStateException("mariadbd exited with " + process.exitValue() + "; see " + dir);
            }
            try (Connection connection = dataSource("mysql").getConnection()) {
                return;
            } catch (SQLException e) {
                last = e;
                Thread.sleep(100);
            }
        }
        throw last;
    }

    /** A data source for {@code database} on this server, as root. */
    MariaDbDataSource dataSource(String database) throws SQLException {
        return new MariaDbDataSource("jdbc:mariadb://127.0.0.1:" + port + "/" + database + "?user=root");
    }

    private void stop() {
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory left behind is all that is lost
        }
    }

    @Override
    public void close() {
        stop();
        try {
            Runtime.getRuntime().removeShutdownHook(reaper);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
    }
}
