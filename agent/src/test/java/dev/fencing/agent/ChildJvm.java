package dev.fencing.agent;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A sample application in a JVM of its own, with or without {@code -javaagent:} on the packaged
 * agent jar. The class path is this test JVM's, without the agent's own classes and the test
 * framework; {@code withDriver = false} leaves out {@code fencing-driver} too (then only the agent
 * supplies {@code dev.fencing.*}).
 */
final class ChildJvm implements AutoCloseable {

    /** The packaged agent jar (failsafe passes its path; the tests run after {@code package}). */
    static Path agentJar() {
        Path jar = Path.of(System.getProperty("fencing.agent.jar", "target/fencing-agent-0.1.0-SNAPSHOT.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("no agent jar at " + jar + ": run the tests with mvn verify (after package)");
        }
        return jar;
    }

    /** The java executables to run samples with: this JVM's, then those of {@code fencing.test.jdks} that exist. */
    static Stream<Path> javas() {
        Set<Path> javas = new LinkedHashSet<>();
        javas.add(Path.of(System.getProperty("java.home"), "bin", "java"));
        for (String home : System.getProperty("fencing.test.jdks", "").split(",")) {
            if (home.isBlank()) {
                continue;
            }
            Path java = Path.of(home.trim(), "bin", "java");
            if (Files.isExecutable(java)) {
                javas.add(java);
            } else {
                System.err.println("fencing.test.jdks: no java at " + java + "; skipped");
            }
        }
        return javas.stream();
    }

    static String classPath(boolean withDriver) {
        List<String> entries = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String path = entry.replace('\\', '/');
            boolean agent = path.endsWith("agent/target/classes") || path.contains("fencing-agent");
            boolean testing = path.contains("/junit") || path.contains("opentest4j") || path.contains("apiguardian")
                    || path.contains("assertj") || path.contains("surefire") || path.contains("failsafe");
            boolean driver = path.contains("fencing-driver") || path.endsWith("driver/target/classes");
            if (!agent && !testing && (withDriver || !driver)) {
                entries.add(entry);
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    static String javaagent(Path config) {
        return "-javaagent:" + agentJar().toAbsolutePath() + (config == null ? "" : "=config=" + config.toAbsolutePath());
    }

    private final Process process;
    private final StringBuffer output = new StringBuffer();
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Thread reader;

    private ChildJvm(Process process) {
        this.process = process;
        this.reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    output.append(line).append('\n');
                    lines.add(line);
                }
            } catch (IOException e) {
                output.append("(reading the output failed: ").append(e).append(")\n");
            }
        }, "child-jvm-output");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts {@code java <jvmOptions> -cp <classPath> <mainClass> <arguments>}. */
    static ChildJvm start(Path java, List<String> jvmOptions, String classPath, Class<?> mainClass, String... arguments)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(java.toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classPath);
        command.add(mainClass.getName());
        command.addAll(List.of(arguments));
        return start(command);
    }

    static ChildJvm start(List<String> command) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().remove("FENCING_CONFIG"); // only what each test passes configures the agent
        builder.environment().remove("JAVA_TOOL_OPTIONS");
        return new ChildJvm(builder.start());
    }

    long pid() {
        return process.pid();
    }

    /** Waits for a line starting with {@code prefix} and returns it. */
    String awaitLine(String prefix, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            String line = lines.poll(Math.max(left, 0), TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new AssertionError("no line starting with '" + prefix + "' within " + timeout + "; output:\n" + output());
            }
            if (line.startsWith(prefix)) {
                return line;
            }
        }
    }

    void send(String line) throws IOException {
        Writer in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        in.write(line + "\n");
        in.flush();
    }

    /** Waits for the process to exit; fails (with its output) unless it exits with 0. */
    String awaitSuccess(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the sample did not finish within " + timeout + "; output:\n" + output());
        }
        reader.join(5_000);
        if (process.exitValue() != 0) {
            throw new AssertionError("the sample exited with " + process.exitValue() + "; output:\n" + output());
        }
        return output();
    }

    /** Waits for the process to exit and returns its exit status (the output stays readable). */
    int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the JVM did not exit within " + timeout + "; output:\n" + output());
        }
        reader.join(5_000);
        return process.exitValue();
    }

    String output() {
        return output.toString();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }
}
