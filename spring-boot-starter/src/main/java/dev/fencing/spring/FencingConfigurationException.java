package dev.fencing.spring;

/**
 * A fencing setting of the application that the starter cannot run with: a misspelt
 * {@code fencing.*} key, a value that is not allowed, a lock store that cannot be built from the
 * settings, a Spring Boot version this build of the starter is not for. Spring Boot's start-up
 * report shows it as a description and an action ({@link FencingFailureAnalyzer}); the message
 * carries both for everything else that prints it.
 */
public class FencingConfigurationException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String description;
    private final String action;

    /**
     * @param description what is wrong, naming the key (or the versions)
     * @param action      what to do about it
     */
    public FencingConfigurationException(String description, String action) {
        this(description, action, null);
    }

    public FencingConfigurationException(String description, String action, Throwable cause) {
        super(description + ". " + action, cause);
        this.description = description;
        this.action = action;
    }

    /** What is wrong. */
    public String getDescription() {
        return description;
    }

    /** What to do about it. */
    public String getAction() {
        return action;
    }
}
