package dev.fencing.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.instrument.Instrumentation;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.zip.Deflater;

/**
 * Puts the classes that must exist once per JVM on the bootstrap class loader's search path:
 * {@code dev.fencing.Fence} (the thread's fence: one copy for the application, the fenced
 * connections and the lock hooks) with {@code dev.fencing.internal.fence.FenceHolders} (which
 * threads hold a fence, for refusals' messages), {@code dev.fencing.Fenced}, and the agent's bridge
 * ({@code dev.fencing.agent.bootstrap}), which instrumented classes of every class loader call.
 *
 * <p>Class loaders ask their parent first, so once these classes are on the bootstrap path the
 * copies in the application's own {@code fencing-driver} jar are never loaded (even web
 * containers that load the application's classes first ask the bootstrap/platform loader before
 * they do). They depend on {@code java.base} only: {@code java.sql} is not visible from the
 * bootstrap loader.
 *
 * <p>The classes are copied from this agent jar into a private temporary jar, deleted when the
 * JVM exits (a JVM killed with SIGKILL leaves it in {@code java.io.tmpdir}).
 */
final class BootstrapJar {

    private BootstrapJar() {
    }

    /** What goes on the bootstrap path; classes loaded before the agent came are left where they are. */
    record Selection(boolean fence, boolean fenced) {

        /**
         * When the application loaded {@code Fence} (or {@code Fenced}) before the agent was
         * attached, that copy stays the one in effect: its class loader has it already, and a
         * bootstrap copy of the rest of its nest ({@code Fence$Frame}, loaded lazily, parent
         * first) would split the nest across two loaders ({@code IllegalAccessError}). Everything
         * fenced runs on that loader's copy, so there is still one.
         */
        static Selection of(Class<?>[] loaded) {
            boolean fence = true;
            boolean fenced = true;
            for (Class<?> type : loaded) {
                String name = type.getName();
                if (name.equals("dev.fencing.Fence") || name.startsWith("dev.fencing.Fence$")) {
                    fence = false;
                } else if (name.equals("dev.fencing.Fenced")) {
                    fenced = false;
                }
            }
            return new Selection(fence, fenced);
        }

        /** True for the entries that go on the bootstrap path. */
        boolean belongs(String entry) {
            return fence && (entry.equals("dev/fencing/Fence.class")
                    || entry.startsWith("dev/fencing/Fence$") && entry.endsWith(".class")
                    || entry.startsWith(FENCE_HOLDERS) && entry.endsWith(".class"))
                    || fenced && entry.equals("dev/fencing/Fenced.class")
                    || entry.startsWith("dev/fencing/agent/bootstrap/") && entry.endsWith(".class");
        }
    }

    static void inject(Instrumentation instrumentation) {
        if (injected()) {
            return; // attached a second time
        }
        Selection selection = Selection.of(instrumentation.getAllLoadedClasses());
        if (!selection.fence()) {
            System.getLogger("dev.fencing.agent").log(System.Logger.Level.INFO, "fencing agent: the application "
                    + "loaded dev.fencing.Fence before the agent came; its copy stays the one in effect");
        }
        try {
            Path jar = createPrivateFile();
            jar.toFile().deleteOnExit();
            List<String> written = write(agentLocation(), jar, selection);
            if (selection.fence() && !written.contains("dev/fencing/Fence.class")
                    || !written.contains("dev/fencing/agent/bootstrap/AgentBridge.class")) {
                throw new IllegalStateException("fencing agent: " + agentLocation()
                        + " lacks dev.fencing.Fence or the agent bridge; use the fencing-agent jar itself");
            }
            instrumentation.appendToBootstrapClassLoaderSearch(new JarFile(jar.toFile()));
        } catch (IOException e) {
            throw new UncheckedIOException("fencing agent: cannot prepare its bootstrap jar", e);
        }
        if (!injected()) {
            throw new IllegalStateException("fencing agent: the bootstrap jar was appended but its classes are not visible");
        }
    }

    /**
     * A new file only this user can read, in {@code java.io.tmpdir}: created exclusively (an
     * existing file or link of that name is never followed or reused). Not
     * {@code Files.createTempFile}, whose random names cost a {@code SecureRandom} at start-up.
     */
    private static Path createPrivateFile() throws IOException {
        Path directory = Path.of(System.getProperty("java.io.tmpdir"));
        removeLeftovers(directory);
        boolean posix = directory.getFileSystem().supportedFileAttributeViews().contains("posix");
        for (int attempt = 0; ; attempt++) {
            Path file = directory.resolve("fencing-agent-bootstrap-" + ProcessHandle.current().pid() + "-"
                    + Long.toHexString(System.nanoTime()) + ".jar");
            try {
                return posix
                        ? Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))
                        : Files.createFile(file);
            } catch (FileAlreadyExistsException e) {
                if (attempt == 100) {
                    throw e;
                }
            }
        }
    }

    /** Removes the bootstrap jars of JVMs that are gone without deleting theirs (killed). */
    private static void removeLeftovers(Path directory) {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "fencing-agent-bootstrap-*.jar")) {
            for (Path file : files) {
                String[] parts = file.getFileName().toString().split("-");
                if (parts.length == 5) {
                    try {
                        if (ProcessHandle.of(Long.parseLong(parts[3])).isEmpty()) {
                            Files.deleteIfExists(file);
                        }
                    } catch (NumberFormatException | IOException e) {
                        // not ours, or not ours to delete
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // best effort only
        }
    }

    private static boolean injected() {
        try {
            Class.forName("dev.fencing.agent.bootstrap.AgentBridge", false, null);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    private static Path agentLocation() {
        URL location = BootstrapJar.class.getProtectionDomain().getCodeSource().getLocation();
        try {
            return Path.of(location.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("fencing agent: cannot locate its own jar: " + location, e);
        }
    }

    /**
     * The threads holding a fence, which {@code Fence} registers with and the driver's refusals
     * read: it goes where {@code Fence} goes, so that there is one registry and the refusals
     * (loaded by another loader) reach it through its public methods.
     */
    private static final String FENCE_HOLDERS = "dev/fencing/internal/fence/FenceHolders";

    /** The classes that go on the bootstrap path with all their nest members, by name: no scan of the agent jar. */
    private static final List<String> ROOTS = List.of("dev/fencing/Fence", "dev/fencing/Fenced",
            "dev/fencing/agent/bootstrap/AgentBridge", FENCE_HOLDERS);

    /** Copies the bootstrap classes of the agent jar (or classes directory) into {@code target}. */
    private static List<String> write(Path agent, Path target, Selection selection) throws IOException {
        List<String> written = new ArrayList<>();
        boolean directory = Files.isDirectory(agent);
        try (JarFile jar = directory ? null : new JarFile(agent.toFile(), false);
             OutputStream file = Files.newOutputStream(target);
             JarOutputStream out = new JarOutputStream(file)) {
            out.setLevel(Deflater.BEST_SPEED);
            List<String> pending = new ArrayList<>(ROOTS);
            while (!pending.isEmpty()) {
                String entry = pending.remove(pending.size() - 1) + ".class";
                if (!selection.belongs(entry) || written.contains(entry)) {
                    continue;
                }
                byte[] classfile = read(jar, agent, entry);
                if (classfile == null) {
                    continue;
                }
                out.putNextEntry(new JarEntry(entry));
                out.write(classfile);
                out.closeEntry();
                written.add(entry);
                if (entry.indexOf('$') < 0) {
                    pending.addAll(ClassFileFilter.nestMembers(classfile));
                }
            }
        }
        return written;
    }

    private static byte[] read(JarFile jar, Path directory, String entry) throws IOException {
        if (jar == null) {
            Path file = directory.resolve(entry);
            return Files.isRegularFile(file) ? Files.readAllBytes(file) : null;
        }
        JarEntry found = jar.getJarEntry(entry);
        if (found == null) {
            return null;
        }
        try (InputStream in = jar.getInputStream(found)) {
            return in.readAllBytes();
        }
    }

}
