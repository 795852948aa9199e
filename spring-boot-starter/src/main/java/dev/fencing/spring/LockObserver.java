package dev.fencing.spring;

import dev.fencing.lock.LockAcquisitionException;

/** What {@link FencedLockInterceptor} reports about its locks; the Micrometer binder listens. */
interface LockObserver {

    LockObserver NONE = new LockObserver() {
    };

    /** An acquire returned a lease after {@code nanos}. */
    default void acquired(long nanos) {
    }

    /** An acquire failed after {@code nanos}. */
    default void failed(LockAcquisitionException.Reason reason, long nanos) {
    }

    /** A lease was found lost while its method ran or before its transaction committed. */
    default void leaseLost() {
    }
}
