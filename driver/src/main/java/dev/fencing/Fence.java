package dev.fencing;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Callable;

/**
 * The calling thread's current fencing token.
 *
 * <p>Every write that fencing-jdbc sends to a fenced table carries the token in scope on the
 * thread that executes it. A scope is entered with {@link #enter(long)} (or
 * {@link #enter(String, long)}, naming the lock whose tenure the token belongs to) and left by
 * closing it, which restores the fence that was current before; scopes nest.
 *
 * <pre>{@code
 * try (Fence.Scope scope = Fence.enter(lease.fence())) {
 *     orders.markPaid(42);   // every fenced write here carries lease.fence()
 * }
 * }</pre>
 *
 * <p>The fence lives in a thread-local: work handed to another thread must carry it along,
 * with {@link #wrap(Runnable)} or {@link #wrap(Callable)}.
 */
public final class Fence {

    private static final ThreadLocal<Frame> CURRENT = new ThreadLocal<>();

    private Fence() {
    }

    /**
     * Makes {@code token} the calling thread's fence until the returned scope is closed.
     *
     * @throws IllegalArgumentException if {@code token} is not positive
     */
    public static Scope enter(long token) {
        return push(null, token);
    }

    /**
     * Makes {@code token}, issued by the lock named {@code lockName}, the calling thread's fence
     * until the returned scope is closed. Tables in {@code epoch} mode accept only fences that
     * name their lock.
     *
     * @throws IllegalArgumentException if {@code token} is not positive or the name is blank
     */
    public static Scope enter(String lockName, long token) {
        Objects.requireNonNull(lockName, "lockName");
        if (lockName.isBlank()) {
            throw new IllegalArgumentException("lockName must not be blank");
        }
        return push(lockName, token);
    }

    /** The calling thread's fence, or empty when no scope is open. */
    public static OptionalLong current() {
        Frame frame = CURRENT.get();
        return frame == null ? OptionalLong.empty() : OptionalLong.of(frame.token);
    }

    /** The name of the lock the current fence belongs to, when it was entered with one. */
    public static Optional<String> currentLock() {
        Frame frame = CURRENT.get();
        return frame == null ? Optional.empty() : Optional.ofNullable(frame.lockName);
    }

    /**
     * Returns a runnable that runs {@code task} under the fence that is current on the calling
     * thread now (or under no fence when none is), whichever thread runs it.
     */
    public static Runnable wrap(Runnable task) {
        Objects.requireNonNull(task, "task");
        Frame captured = CURRENT.get();
        return () -> {
            Frame previous = CURRENT.get();
            install(captured);
            try {
                task.run();
            } finally {
                install(previous);
            }
        };
    }

    /** Like {@link #wrap(Runnable)}, for a task that returns a value. */
    public static <T> Callable<T> wrap(Callable<T> task) {
        Objects.requireNonNull(task, "task");
        Frame captured = CURRENT.get();
        return () -> {
            Frame previous = CURRENT.get();
            install(captured);
            try {
                return task.call();
            } finally {
                install(previous);
            }
        };
    }

    private static Scope push(String lockName, long token) {
        if (token <= 0) {
            throw new IllegalArgumentException("a fencing token must be > 0, got " + token);
        }
        Frame previous = CURRENT.get();
        Frame frame = new Frame(token, lockName);
        CURRENT.set(frame);
        return new Scope(frame, previous);
    }

    private static void install(Frame frame) {
        if (frame == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(frame);
        }
    }

    private static final class Frame {
        final long token;
        final String lockName;

        Frame(long token, String lockName) {
            this.token = token;
            this.lockName = lockName;
        }
    }

    /**
     * An open fence. Closing it restores the fence that was current when it was entered;
     * closing it again does nothing.
     */
    public static final class Scope implements AutoCloseable {
        private final Frame frame;
        private final Frame previous;
        private final Thread owner = Thread.currentThread();
        private boolean closed;

        private Scope(Frame frame, Frame previous) {
            this.frame = frame;
            this.previous = previous;
        }

        /** The token this scope made current. */
        public long token() {
            return frame.token;
        }

        /**
         * Restores the previous fence. A scope closed on a thread other than the one that
         * entered it only marks itself closed: the fence is thread-local and that thread's own
         * state is not ours to change.
         */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            if (Thread.currentThread() == owner) {
                install(previous);
            }
        }
    }
}
