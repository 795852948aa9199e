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
 * The configuration is read and checked before anything changes in the JVM.
 *
 * <p>This class names only {@code java.base} types: the bootstrap jar (with
 * {@code dev.fencing.Fence}) must be on the bootstrap search path before any class that uses
 * {@code Fence} is loaded.
 */
public final class FencingAgent {

    /** The JVM's own status for options it rejects at start-up. */
    static final int REFUSED_EXIT_STATUS = 1;
    /** Where {@link #agentmain} leaves its refusal for {@link AttachCommand}; cleared by a successful attach. */
    static final String REFUSAL_PROPERTY = "dev.fencing.agent.refused";
    static final String REFUSED_PREFIX = "fencing agent: not started: ";

    private FencingAgent() {
    }

    /**
     * Starts the agent before {@code main}. A configuration the agent refuses (an unknown key, an
     * invalid value, a file it cannot read, no table) or a start that fails (the bootstrap jar
     * cannot be written) is printed as one line on standard error and the JVM exits with status
     * {@value #REFUSED_EXIT_STATUS}, as the JVM itself does for an option it rejects: the
     * application must not run unfenced, and an exception thrown from here would abort the JVM
     * through the instrumentation library's assertion, with a stack trace that buries the message.
     */
    public static void premain(String arguments, Instrumentation instrumentation) {
        try {
            // an invalid configuration stops here, having changed nothing
            install(AgentSettings.configure(arguments), instrumentation, false);
        } catch (RuntimeException refused) {
            System.err.println(REFUSED_PREFIX + describe(refused));
            System.err.flush();
            System.exit(REFUSED_EXIT_STATUS);
        }
    }

    /**
     * Attaches to a running JVM. A refused configuration changes nothing and must not harm the
     * running application: it is logged there as one line and left in the system property
     * {@value #REFUSAL_PROPERTY} for the attach command, which reads it and fails (an exception
     * from here would print a stack trace into the application's output).
     */
    public static void agentmain(String arguments, Instrumentation instrumentation) {
        System.clearProperty(REFUSAL_PROPERTY);
        Object settings;
        try {
            settings = AgentSettings.configure(arguments);
        } catch (RuntimeException refused) {
            refuseAttach(refused, "attach refused; the application runs on as before, unchanged");
            return;
        }
        try {
            install(settings, instrumentation, true);
        } catch (RuntimeException failed) {
            refuseAttach(failed, "the attach failed part-way; restart the application with -javaagent to be sure "
                    + "every connection is fenced");
        }
    }

    private static void refuseAttach(RuntimeException error, String consequence) {
        System.setProperty(REFUSAL_PROPERTY, describe(error));
        System.getLogger("dev.fencing.agent").log(System.Logger.Level.ERROR,
                REFUSED_PREFIX + describe(error) + " (" + consequence + ")");
    }

    /** {@code attach <pid> [config-path]}: loads this jar as an agent into a running JVM. */
    public static void main(String[] arguments) {
        System.exit(AttachCommand.run(arguments, System.out, System.err));
    }

    private static void install(Object settings, Instrumentation instrumentation, boolean attached) {
        BootstrapJar.inject(instrumentation);
        Installer.install(settings, instrumentation, attached);
    }

    /**
     * The message and its causes on one line: what an operator reads in a start-up log. A
     * configuration error is its message alone; anything else names its class too.
     */
    static String describe(RuntimeException error) {
        StringBuilder line = new StringBuilder(error instanceof IllegalArgumentException ? error.getMessage() : error.toString());
        for (Throwable cause = error.getCause(); cause != null; cause = cause.getCause()) {
            line.append(" (caused by ").append(cause).append(')');
        }
        return line.toString().replace('\n', ' ');
    }
}
