package dev.fencing.agent;

import com.sun.tools.attach.VirtualMachine;

import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code java -jar fencing-agent.jar attach <pid> [config-path]}: loads this jar into the running
 * JVM {@code pid} (same user; a JDK, not a bare JRE, runs this command). The configuration path
 * is made absolute here, since the target JVM may run in another directory; without it the
 * target JVM finds its configuration itself ({@code fencing.config}, {@code FENCING_CONFIG},
 * classpath {@code fencing.properties}). When the agent refuses the target's configuration, the
 * target JVM runs on unchanged and this command prints the refusal and exits with status 1.
 */
final class AttachCommand {

    private static final String USAGE = "usage: java -jar fencing-agent.jar attach <pid> [config-path]";

    /** What an attach cannot change; printed here and logged by the target JVM. */
    static final String BEFORE_ATTACH = "note: connections the application obtained before the attach and still "
            + "holds are NOT fenced and keep writing unchecked until they are closed; connections taken from then on "
            + "(DriverManager, data sources, and every borrow from a pool, including pooled connections opened "
            + "before the attach) are fenced. Restart the application, or let it return its connections, to be sure; "
            + "a guard in the database (triggers) is what checks the writes of raw connections";

    private AttachCommand() {
    }

    /** Runs the command; returns the process exit status. */
    static int run(String[] arguments, PrintStream out, PrintStream err) {
        if (arguments.length < 2 || arguments.length > 3 || !arguments[0].equals("attach")) {
            err.println(USAGE);
            return 2;
        }
        String pid = arguments[1];
        if (!pid.chars().allMatch(Character::isDigit)) {
            err.println("not a process id: " + pid + "\n" + USAGE);
            return 2;
        }
        String agentArguments = null;
        if (arguments.length == 3) {
            Path config = Path.of(arguments[2]).toAbsolutePath().normalize();
            if (!Files.isReadable(config)) {
                err.println("cannot read the configuration file " + config);
                return 2;
            }
            agentArguments = AgentArguments.CONFIG + "=" + config;
        }
        String jar;
        try {
            jar = Path.of(AttachCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            err.println("cannot locate the agent jar: " + e);
            return 1;
        }
        String refusal;
        try {
            VirtualMachine vm = VirtualMachine.attach(pid);
            try {
                vm.loadAgent(jar, agentArguments);
                refusal = vm.getSystemProperties().getProperty(FencingAgent.REFUSAL_PROPERTY);
            } finally {
                vm.detach();
            }
        } catch (Exception e) {
            err.println("attaching the fencing agent to " + pid + " failed: " + e);
            err.println("(the agent's own error, if any, is printed by the target JVM)");
            return 1;
        }
        if (refusal != null) {
            // the agent refused inside the target and said so in its log; the target runs on
            err.println(FencingAgent.REFUSED_PREFIX + refusal);
            return 1;
        }
        out.println("fencing agent attached to " + pid + (agentArguments == null ? "" : " with " + agentArguments));
        out.println(BEFORE_ATTACH);
        return 0;
    }
}
