/** fencing-spring-integration: {@code FencedLockRegistry}, Spring Integration's LockRegistry over fenced locks. */
module dev.fencing.integration {
    // FencedLocks is in its API
    requires transitive dev.fencing.driver;
    // the LockRegistry it implements
    requires transitive spring.integration.core;

    exports dev.fencing.integration;
}
