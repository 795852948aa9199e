package dev.fencing.agent;

import java.lang.instrument.Instrumentation;

/**
 * The fencing agent's entry points: {@code premain} ({@code -javaagent:fencing-agent.jar}),
 * {@code agentmain} (attached to a running JVM) and {@code main}
 * ({@code java -jar fencing-agent.jar attach <pid> [config]}).
 *
 * <p>Agent argument: {@code config=/path/fencing.properties}; without it the configuration is
 * found as the driver finds it (system property {@code fencing.config}, environment variable
 * {@code FENCING_CONFIG}, classpath resource {@code fencing.properties}).
 *
 * <p>This class names only {@code java.base} types: the bootstrap jar (with
 * {@code dev.fencing.Fence}) must be on the bootstrap search path before any class that uses
 * {@code Fence} is loaded.
 */
public final class FencingAgent {

    private FencingAgent() {
    }

    public static void premain(String arguments, Instrumentation instrumentation) {
        start(arguments, instrumentation, false);
    }

    public static void agentmain(String arguments, Instrumentation instrumentation) {
        start(arguments, instrumentation, true);
    }

    /** {@code attach <pid> [config-path]}: loads this jar as an agent into a running JVM. */
    public static void main(String[] arguments) {
        System.exit(AttachCommand.run(arguments, System.out, System.err));
    }

    private static void start(String arguments, Instrumentation instrumentation, boolean attached) {
        Object settings = AgentSettings.configure(arguments); // an invalid configuration stops here, having changed nothing
        BootstrapJar.inject(instrumentation);
        Installer.install(settings, instrumentation, attached);
    }
}
