package dev.fencing.spring;

import dev.fencing.lock.Lease;

import java.util.ArrayDeque;
import java.util.Deque;

/** The leases the current thread holds through {@link FencedLock}, innermost last. */
final class HeldLeases {

    /** One lease and whether its loss was already reported. */
    static final class Held {
        final Lease lease;
        boolean lossReported;

        Held(Lease lease) {
            this.lease = lease;
        }
    }

    /** Null on threads that hold none, so that transactions elsewhere leave nothing behind. */
    private static final ThreadLocal<Deque<Held>> HELD = new ThreadLocal<>();

    private HeldLeases() {
    }

    static Held push(Lease lease) {
        Held held = new Held(lease);
        Deque<Held> stack = HELD.get();
        if (stack == null) {
            stack = new ArrayDeque<>();
            HELD.set(stack);
        }
        stack.addLast(held);
        return held;
    }

    static void pop(Held held) {
        Deque<Held> stack = HELD.get();
        if (stack == null) {
            return;
        }
        stack.removeLastOccurrence(held);
        if (stack.isEmpty()) {
            HELD.remove();
        }
    }

    static boolean any() {
        return HELD.get() != null;
    }

    /**
     * @throws FencedLockLostException for the first lease of this thread that is no longer held
     */
    static void requireAllHeld(LockObserver observer) {
        Deque<Held> stack = HELD.get();
        if (stack == null) {
            return;
        }
        for (Held held : stack) {
            if (!held.lease.isHeld()) {
                if (!held.lossReported) {
                    held.lossReported = true;
                    observer.leaseLost();
                }
                throw new FencedLockLostException(held.lease.resource(), held.lease.fence());
            }
        }
    }
}
