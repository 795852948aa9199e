package dev.fencing.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.instrument.Instrumentation;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * Puts the classes that must exist once per JVM on the bootstrap class loader's search path:
 * {@code dev.fencing.Fence} (the thread's fence: one copy for the application, the fenced
 * connections and the lock hooks), {@code dev.fencing.Fenced}, and the agent's bridge
 * ({@code dev.fencing.agent.bootstrap}), which instrumented classes of every class loader call.
 *
 * <p>Class loaders ask their parent first, so once these classes are on the bootstrap path the
 * copies in the application's own {@code fencing-driver} jar are never loaded (even web
 * containers that load the application's classes first ask the bootstrap/platform loader before
 * they do). They depend on {@code java.base} only: {@code java.sql} is not visible from the
 * bootstrap loader.
 *
 * <p>The classes are copied from this agent jar into a private temporary jar, deleted when the
 * JVM exits.
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
                    || entry.startsWith("dev/fencing/Fence$") && entry.endsWith(".class"))
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
            Path jar = Files.createTempFile("fencing-agent-bootstrap-", ".jar");
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

    /** Copies the bootstrap entries of the agent jar (or classes directory) into {@code target}. */
    private static List<String> write(Path agent, Path target, Selection selection) throws IOException {
        List<String> written = new ArrayList<>();
        try (OutputStream file = Files.newOutputStream(target);
             JarOutputStream out = new JarOutputStream(file)) {
            if (Files.isDirectory(agent)) {
                List<Path> classes = new ArrayList<>();
                try (Stream<Path> walk = Files.walk(agent)) {
                    walk.filter(Files::isRegularFile).forEach(classes::add);
                }
                for (Path path : classes) {
                    String name = agent.relativize(path).toString().replace('\\', '/');
                    if (selection.belongs(name)) {
                        try (InputStream in = Files.newInputStream(path)) {
                            copy(out, name, in);
                            written.add(name);
                        }
                    }
                }
            } else {
                try (JarFile jar = new JarFile(agent.toFile())) {
                    Enumeration<JarEntry> entries = jar.entries();
                    while (entries.hasMoreElements()) {
                        JarEntry entry = entries.nextElement();
                        if (selection.belongs(entry.getName())) {
                            try (InputStream in = jar.getInputStream(entry)) {
                                copy(out, entry.getName(), in);
                                written.add(entry.getName());
                            }
                        }
                    }
                }
            }
        }
        return written;
    }

    private static void copy(JarOutputStream out, String name, InputStream in) throws IOException {
        out.putNextEntry(new JarEntry(name));
        in.transferTo(out);
        out.closeEntry();
    }
}
