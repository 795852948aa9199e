package dev.fencing.spring;

import dev.fencing.lock.LockAcquisitionException;

import org.springframework.dao.CannotAcquireLockException;

/**
 * The lock of a {@link FencedLock} method stayed held by someone else for the whole wait; the
 * method was not run. Transient: trying again later may succeed.
 */
public class FencedLockUnavailableException extends CannotAcquireLockException {

    private final String resource;

    public FencedLockUnavailableException(String resource, LockAcquisitionException cause) {
        super(cause.getMessage(), cause);
        this.resource = resource;
    }

    /** The locked resource. */
    public String getResource() {
        return resource;
    }
}
