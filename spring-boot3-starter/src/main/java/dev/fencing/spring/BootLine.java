package dev.fencing.spring;

/**
 * The Spring Boot line this build of the starter is compiled and tested against: Spring Boot 3.5.
 * The same sources, compiled against Spring Boot 4, are {@code fencing-spring-boot-starter},
 * whose {@code BootLine} names that line ({@link BootLineCheck} refuses the other).
 */
final class BootLine {

    /** This artifact's coordinates. */
    static final String ARTIFACT = "dev.fencing:fencing-spring-boot3-starter";
    /** The line it supports, as people name it. */
    static final String SUPPORTED = "Spring Boot 3.5";
    /** The artifact to use on the other supported line. */
    static final String OTHER = "dev.fencing:fencing-spring-boot-starter for Spring Boot 4.x";

    private BootLine() {
    }

    /**
     * True when {@code running} (Spring Boot's version, or only its major version when the jar
     * does not say: then 3.5 cannot be told from older 3.x, and is assumed) is on this line.
     */
    static boolean supports(String running) {
        return running.startsWith("3.5.") || running.equals("3");
    }
}
