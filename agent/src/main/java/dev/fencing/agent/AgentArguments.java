package dev.fencing.agent;

/**
 * The agent's argument string ({@code -javaagent:fencing-agent.jar=<arguments>}): empty, or
 * {@code config=<path of a properties file>}. The path is everything after {@code config=}, so
 * it may hold commas and equals signs.
 */
final class AgentArguments {

    static final String CONFIG = "config";

    private AgentArguments() {
    }

    /** The configuration file named by the arguments, or null when none is named. */
    static String configFile(String arguments) {
        if (arguments == null || arguments.isBlank()) {
            return null;
        }
        String text = arguments.trim();
        String prefix = CONFIG + "=";
        if (!text.startsWith(prefix) || text.length() == prefix.length()) {
            throw new IllegalArgumentException("invalid fencing agent argument '" + text
                    + "'; allowed: config=<path of a fencing properties file>, or nothing");
        }
        return text.substring(prefix.length()).trim();
    }
}
