package dev.fencing.agent;

import dev.fencing.agent.bootstrap.AgentBridge;

import java.lang.instrument.Instrumentation;
import java.util.List;
import java.util.Set;

/**
 * Reads the configuration, installs the hooks and the transformer ({@link FencingTransformer},
 * which weaves with {@link Weaver}); when attached, also applies both to what is loaded already.
 * The agent's own classes and relocated libraries are never instrumented; the driver's
 * {@code FencingDataSource} and {@code FencingDriver} are, so that their inner calls count as
 * nested, and the fenced connection they return is recognised and left alone.
 */
final class Installer {

    private static final System.Logger LOG = System.getLogger("dev.fencing.agent");

    private Installer() {
    }

    static void install(Object configured, Instrumentation instrumentation, boolean attached) {
        if (AgentBridge.installed()) {
            LOG.log(System.Logger.Level.WARNING, "fencing agent: already installed in this JVM; "
                    + "the configuration it started with stays in effect");
            return;
        }
        long started = System.nanoTime();
        AgentSettings settings = (AgentSettings) configured;
        FencedTables tables = new FencedTables(settings.fencingKeys());
        AgentBridge.install(new ConnectionHooks(tables, settings.urls()));

        Set<String> namedTargets = Weaver.namedTargets();
        // retransform-capable only when attached (classes loaded before must be redone): otherwise
        // the JVM would keep a copy of every class file it loads, for retransformations never asked for
        instrumentation.addTransformer(new FencingTransformer(tables, new Weaver(tables), namedTargets), attached);
        List<String> instrumentedLoaded = attached
                ? FencingTransformer.applyToLoaded(instrumentation, tables, namedTargets) : List.of();

        if (attached) {
            LOG.log(System.Logger.Level.WARNING, "fencing agent: " + AttachCommand.BEFORE_ATTACH
                    + ". Drivers, data sources and pools already loaded and now instrumented: "
                    + (instrumentedLoaded.isEmpty() ? "none" : String.join(", ", instrumentedLoaded)));
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        LOG.log(System.Logger.Level.INFO, () -> "fencing agent " + (attached ? "attached" : "started") + " in " + millis
                + " ms; fenced tables: " + describe(tables) + "; connections to " + settings.urls());
    }

    private static String describe(FencedTables tables) {
        return tables.describe().isEmpty() ? "none yet (waiting for @Fenced entities)" : String.join(", ", tables.describe());
    }
}
